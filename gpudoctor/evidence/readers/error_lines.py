"""Error and log lines, read by the failure-signature table (matrices/signatures.toml): each matching line becomes a
Symptom (the line, kept as evidence) plus the facts its entry establishes. This reader knows no message itself; what
a line means is data, with its sources and test lines, in the table."""

from __future__ import annotations

import re
from typing import Iterator

from ...matrix.signatures import Signature, SignatureTable, expand, load_signatures
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
    keywords = table.keyword_filter
    lines = document.lines
    hit = [keywords.search(line) is not None for line in lines] + [False]
    # Which signatures a line can match, found from the keywords in it (each signature lists its keywords): one pass
    # over the table's few distinct keywords per line instead of one per signature, in the table's order (issue 23).
    by_keyword: dict[str, list[int]] = {}
    for index, signature in enumerate(table.signatures):
        for k in signature.keywords:
            by_keyword.setdefault(k, []).append(index)
    every_keyword = tuple(by_keyword)

    def candidates(text: str) -> list[Signature]:
        found = {i for k in every_keyword if k in text for i in by_keyword[k]}
        return [table.signatures[i] for i in sorted(found)]

    for number, line in document.numbered():
        if not hit[number - 1] and not hit[number]:
            continue
        matched_families: set[str] = set()
        matched = False
        for signature in candidates(line) if hit[number - 1] else ():
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
        joined = f"{line.rstrip()} {lines[number].strip()}"
        for signature in candidates(joined):
            if signature.family in matched_families:
                continue
            m = signature.regex.search(joined)
            if m and m.start() < len(line) and m.end() > len(line.rstrip()) and not signature.regex.search(lines[number]):
                if signature.family:
                    matched_families.add(signature.family)
                yield from _observations(signature, m, number, joined)
