"""A pasted text split into lines once, shared by every reader; line numbers are 1-based as editors show them."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate
from typing import Iterable, Iterator

# Markdown quote markers people leave in front of pasted output: "> " quotes, but not a ">>> " Python prompt.
_PREFIX = re.compile(r"^(?:\s*>(?!>>))+\s?")
# Terminal escape sequences and control characters (C0 but tab, DEL, C1): a paste is untrusted text that gpudoctor
# prints back as evidence, so they never get past reading. Each of them starts with a character of _CONTROL_CHAR,
# whose search is several times cheaper than the substitution: a text without one is left as it is.
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_CHAR = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Longer lines are cut: no machine output needs more, and regexes stay linear on hostile input.
MAX_LINE = 4000


@dataclass(frozen=True)
class Document:
    """A pasted text as clean lines (quote markers and control characters removed), and whether it was cut short."""

    lines: tuple[str, ...]
    truncated: bool = False
    _hits: dict[str | re.Pattern[str], list[int]] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_text(cls, text: str, truncated: bool = False) -> "Document":
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if _CONTROL_CHAR.search(text):
            text = _CONTROL.sub("", text)
        lines = text.split("\n")
        # a quote marker is first on its line but for spaces (which str.lstrip strips as \s matches them): only the
        # lines holding a ">" are looked at, each once, found by str.find (issue 23: no Python code runs per line)
        index, previous, at = 0, 0, text.find(">")
        while at != -1:
            index += text.count("\n", previous, at)
            line = lines[index]
            if line.lstrip()[:1] == ">":
                lines[index] = _PREFIX.sub("", line)
            previous = text.find("\n", at)  # on to the next line
            at = text.find(">", previous) if previous != -1 else -1
        if max(map(len, lines)) > MAX_LINE:
            lines = [line[:MAX_LINE] for line in lines]
        return cls(tuple(map(str.rstrip, lines)), truncated)

    def numbered(self):
        """(line number, line) pairs."""
        return enumerate(self.lines, start=1)

    def find(self, pattern: re.Pattern[str], keywords: Iterable[str] = ()) -> Iterator[tuple[int, re.Match[str]]]:
        """(line number, match) for every line the pattern matches (``search``). ``keywords``: literal parts of every
        line the pattern can match (one of them at least); then only the lines holding one are searched."""
        keywords = tuple(keywords)
        lines = self.lines
        for number in self.lines_with(*keywords) if keywords else range(1, len(lines) + 1):
            m = pattern.search(lines[number - 1])
            if m:
                yield number, m

    def lines_with(self, *keywords: str) -> list[int]:
        """The numbers of the lines holding any of the keywords (none holds a newline), in order: each keyword is
        looked for in the whole text by ``str.find`` once a document (issue 23: most lines of a 1 MB paste are never
        looked at in Python)."""
        if len(keywords) == 1:
            return self._lines_with(keywords[0])
        return sorted({n for k in keywords for n in self._lines_with(k)})

    def _lines_with(self, keyword: str) -> list[int]:
        found = self._hits.get(keyword)
        if found is None:
            text, starts = self.text, self._starts
            found, at = [], text.find(keyword)
            while at != -1:
                number = bisect.bisect_right(starts, at)  # 1-based: starts[number - 1] <= at
                found.append(number)
                at = text.find(keyword, starts[number]) if number < len(starts) else -1  # on to the next line
            self._hits[keyword] = found
        return found

    def lines_starting(self, pattern: re.Pattern[str]) -> list[int]:
        """The numbers of the lines a pattern matches at their start, in order: one search of the whole text, with a
        newline put before its first line. The pattern starts with a newline (a literal the regex engine looks for
        fast, where ^ with MULTILINE tries every character) and matches no other (\\s within a line is [^\\S\\n])."""
        found = self._hits.get(pattern)
        if found is None:
            starts = self._starts  # a match's newline is at its line's start in the text without the added one
            found = self._hits[pattern] = [bisect.bisect_right(starts, m.start()) for m in pattern.finditer("\n" + self.text)]
        return found

    @cached_property
    def text(self) -> str:
        """The lines joined by newlines (what the readers that parse a whole output read)."""
        return "\n".join(self.lines)

    @cached_property
    def numbered_as_splitlines(self) -> bool:
        """Whether ``text.splitlines()`` numbers the lines as ``lines`` does (the parsers shared with the probes split
        so): it also breaks at U+2028 and U+2029 (the other characters it breaks at are removed as control ones)."""
        return "\u2028" not in self.text and "\u2029" not in self.text

    @cached_property
    def _starts(self) -> list[int]:
        return list(accumulate((len(line) + 1 for line in self.lines[:-1]), initial=0))
