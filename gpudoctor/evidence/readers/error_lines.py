"""Error and log lines, read by the failure-signature table (matrices/signatures.toml): each matching line becomes a
Symptom (the line, kept as evidence) plus the facts its entry establishes. This reader knows no message itself; what
a line means is data, with its sources and test lines, in the table."""

from __future__ import annotations

import re
from typing import Iterator

from ...matrix.tables.signatures import Signature, SignatureTable, expand, load_signatures
from ..document import Document
from ..observation import Observation

NAME = "error line"


def _observations(signature: Signature, m: re.Match[str], number: int, line: str) -> Iterator[Observation]:
    if signature.symptom:
        item = {"kind": signature.symptom, "text": line.strip()[:300]}
        if signature.framework:
            item["framework"] = signature.framework
        subject = expand(signature.subject, m) if signature.subject else None
        if subject:
            item["subject"] = subject
        yield Observation("symptoms[]", item, number, NAME)
    if signature.when is not None and not expand(signature.when, m):
        return
    for key_template, value_template in signature.facts:
        key = expand(key_template, m)
        if isinstance(value_template, dict):
            value = {name: expand(v, m) or None for name, v in value_template.items()}
            if not any(value.values()):
                continue
        else:
            value = expand(value_template, m)
        if key is None or value is None:
            continue
        implied = signature.implied.get(key_template)
        yield Observation(key, value, number, NAME, expand(implied, m) if implied else None)


def read(document: Document, table: SignatureTable | None = None) -> Iterator[Observation]:
    table = table or load_signatures()
    lines = document.lines
    # The keywords in each line, found by searching the whole text once per keyword (str.find, not a regex per
    # line): a line without one is skipped, and a line with some is tried only against the signatures that list
    # them, in the table's order (issue 23: a 1 MB paste in linear, small time).
    by_keyword, crossing, padded, memo = _indexed(table)
    present, holding = _keywords_by_line(document, tuple(by_keyword))

    def candidates(found: set[str] | frozenset[str], text: str | None = None) -> tuple[Signature, ...]:
        key = frozenset(found)
        if key not in memo:
            memo[key] = tuple(table.signatures[i] for i in sorted({i for k in key for i in by_keyword[k]}))
        if text is None or not padded:
            return memo[key]
        return tuple(sig for sig in memo[key] if any(k in text for k in sig.keywords))

    wanted = sorted({n for number in holding for n in (number - 1, number) if n >= 1})  # not a test of every line
    for number in wanted:  # 1-based: a line with a keyword, or the line before one
        line = lines[number - 1]
        matched_families: set[str] = set()
        matched = False
        for signature in candidates(present[number - 1]) if present[number - 1] else ():
            if signature.family in matched_families:
                continue
            m = signature.regex.search(line)
            if m:
                matched = True
                if signature.family:
                    matched_families.add(signature.family)
                yield from _observations(signature, m, number, line)
        if matched or number >= len(lines):
            continue
        # Messages wrap ("...driver on your\nsystem is too old (found version 12040)"): try the line joined to the
        # next, keeping only matches that start on this line and need the next (which is tried on its own in turn).
        head, tail = line.rstrip(), lines[number].strip()
        joined = f"{head} {tail}"
        # the keywords in the joined text: those of either line, and those across the join (the space put there)
        found = present[number - 1] | present[number] | {
            k for before, after, k in crossing.get(head[-1:], ()) + crossing.get("", ())
            if head.endswith(before) and tail.startswith(after)}
        for signature in candidates(found, joined):
            if signature.family in matched_families:
                continue
            m = signature.regex.search(joined)
            if m and m.start() < len(line) and m.end() > len(line.rstrip()) and not signature.regex.search(lines[number]):
                if signature.family:
                    matched_families.add(signature.family)
                yield from _observations(signature, m, number, joined)


_NONE: frozenset[str] = frozenset()
_INDEXED: tuple = (None,)  # (table, its index): one table is indexed once, not on every read


def _indexed(table: SignatureTable) -> tuple[dict[str, list[int]], dict[str, tuple[tuple[str, str, str], ...]], bool,
                                              dict[frozenset[str], tuple[Signature, ...]]]:
    """Each keyword's signatures (their places in the table), the ways keywords with spaces may cross a wrapped line's
    join, whether a keyword has spaces at its ends (such a keyword may be in a line yet not in its stripped part of a
    joined pair: then the candidates of a join are checked against the joined text as the table states them), and the
    candidates found so far for each set of keywords."""
    global _INDEXED
    if _INDEXED[0] is not table:
        by_keyword: dict[str, list[int]] = {}
        for index, signature in enumerate(table.signatures):
            for k in signature.keywords:
                by_keyword.setdefault(k, []).append(index)
        crossing = _crossing_index(k for k in by_keyword if " " in k)
        _INDEXED = (table, by_keyword, crossing, any(k != k.strip() for k in by_keyword), {})
    return _INDEXED[1:]


def _crossing_index(keywords: Iterator[str]) -> dict[str, tuple[tuple[str, str, str], ...]]:
    """Each way a keyword with spaces can lie across the space that joins two lines, as (the part before that space,
    the part after it, the keyword), by the last character of the part before ("" when the keyword starts there)."""
    index: dict[str, list[tuple[str, str, str]]] = {}
    for k in keywords:
        for at, char in enumerate(k):
            if char == " ":
                index.setdefault(k[at - 1:at], []).append((k[:at], k[at + 1:], k))
    return {last: tuple(ways) for last, ways in index.items()}


def _keywords_by_line(document: Document, keywords: tuple[str, ...]) -> tuple[list[frozenset[str] | set[str]], set[int]]:
    """For each line, the keywords it contains (plus an empty entry after the last line), and the numbers of the lines
    holding one: the document's own search of the whole text for each keyword, shared with every reader that looks for
    the same word."""
    present: list[frozenset[str] | set[str]] = [_NONE] * (len(document.lines) + 1)
    holding: set[int] = set()
    for k in keywords:
        if not k or "\n" in k:
            continue
        numbers = document.lines_with(k)
        holding.update(numbers)
        for number in numbers:
            if present[number - 1] is _NONE:
                present[number - 1] = set()
            present[number - 1].add(k)  # type: ignore[union-attr]
    return present, holding
