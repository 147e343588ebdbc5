"""A pasted text split into lines once, shared by every reader; line numbers are 1-based as editors show them."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import cached_property

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
        first = self._first_possible_line(pattern)
        for number in range(first, len(self.lines) + 1):
            m = pattern.search(self.lines[number - 1])
            if m:
                yield number, m

    def _first_possible_line(self, pattern: re.Pattern[str]) -> int:
        """The first line a match can be on: one search of the whole text (issue 23: a 1 MB paste is searched by
        the regex engine, not line by line in Python, where nothing matches before its end). Exact for a pattern
        without lookarounds, \\A, \\Z or DOTALL: a match within a line is then also a match at the same place
        of the text searched with MULTILINE, whose ^ and $ are the line's ends. Other patterns start at line 1."""
        source = pattern.pattern
        if not isinstance(source, str) or pattern.flags & re.DOTALL or any(
                s in source for s in ("(?=", "(?!", "(?<", "\\A", "\\Z")):  # fmt: skip
            return 1
        whole = _MULTILINE.get(pattern)
        if whole is None:
            whole = _MULTILINE[pattern] = re.compile(source, pattern.flags | re.MULTILINE)
        m = whole.search(self._text)
        if m is None:
            return len(self.lines) + 1
        return bisect.bisect_right(self._starts, m.start())

    @cached_property
    def _text(self) -> str:
        return "\n".join(self.lines)

    @cached_property
    def _starts(self) -> list[int]:
        starts, at = [], 0
        for line in self.lines:
            starts.append(at)
            at += len(line) + 1
        return starts


_MULTILINE: dict[re.Pattern[str], re.Pattern[str]] = {}  # the readers' patterns, each compiled once more with MULTILINE
