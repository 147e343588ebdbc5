"""A pasted text split into lines once, shared by every reader; line numbers are 1-based as editors show them."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Markdown quote markers people leave in front of pasted output.
_PREFIX = re.compile(r"^(?:\s*>(?!>>))+\s?")  # "> " quotes, but not a ">>> " Python prompt
# Terminal escape sequences and control characters (C0 but tab, DEL, C1): a paste is untrusted text that gpudoctor
# prints back as evidence, so they never get past reading.
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Longer lines are cut: no machine output needs more, and regexes stay linear on hostile input.
MAX_LINE = 4000


@dataclass(frozen=True)
class Document:
    """A pasted text as clean lines (quote markers and control characters removed), and whether it was cut short."""

    lines: tuple[str, ...]
    truncated: bool = False

    @classmethod
    def from_text(cls, text: str, truncated: bool = False) -> "Document":
        text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
        lines = tuple(_PREFIX.sub("", line)[:MAX_LINE].rstrip() for line in text.split("\n"))
        return cls(lines, truncated)

    def numbered(self):
        """(line number, line) pairs."""
        return enumerate(self.lines, start=1)

    def find(self, pattern: re.Pattern[str]):
        """(line number, match) for every line the pattern matches (``search``)."""
        for number, line in enumerate(self.lines, start=1):
            m = pattern.search(line)
            if m:
                yield number, m
