"""Whole numbers written in untrusted text, read one way everywhere.

``str.isdigit`` is true for "²", "①" and "٣", which ``int()`` rejects or reads as another number, and ``int()`` of
4,300 or more digits raises. A value from a snapshot, a paste, an environment variable or a command line goes
through ascii_int: a short run of ASCII digits is its number, anything else is no number."""

from __future__ import annotations

MAX_DIGITS = 18  # fits 64 bits: past every count, index, version component or error counter gpudoctor reads


def is_ascii_int(text: str, max_digits: int = MAX_DIGITS) -> bool:
    return 0 < len(text) <= max_digits and text.isascii() and text.isdigit()


def ascii_int(text: str, max_digits: int = MAX_DIGITS) -> int | None:
    """"12" -> 12; "²", "٣", "", "-1", " 1", "1.0" and a number longer than ``max_digits`` -> None."""
    return int(text) if is_ascii_int(text, max_digits) else None
