"""The report for a bug report: Markdown, with GPU UUIDs, the host name and the user name redacted."""

from __future__ import annotations

import re
from typing import Iterable

from .. import __version__
from ..model import Report, Status
from .facts_lines import section_facts
from .text import STATUS_SYMBOLS, cause_lines, section_results, summary_line

_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_HOME = re.compile(r"(/home/|/Users/|[A-Za-z]:\\Users\\)[^/\\\s:]+")


def redact(text: str, private_words: Iterable[str] = ()) -> str:
    text = _UUID.sub(lambda m: f"{m.group(1)}-<redacted>", text)
    text = _HOME.sub(lambda m: f"{m.group(1)}<user>", text)
    for word in sorted({w for w in private_words if w and len(w) > 2}, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(word)}\b", "<redacted>", text)
    return text


def render_markdown(report: Report, private_words: Iterable[str] = ()) -> str:
    out = [f"## gpudoctor {__version__} report", ""]
    if report.matrix_reviewed:
        out += [f"Compatibility matrix reviewed {report.matrix_reviewed}.", ""]
    lead = cause_lines(report)
    if lead:
        out += [f"**{lead[0]}**", "", *[f"- {line.strip()}" for line in lead[1:]], ""]
    for result in section_results(report):
        section = result.section
        findings = [f for f in report.findings if f.section == section]
        out.append(f"### {STATUS_SYMBOLS[result.status]} {section.value}")
        out.append("")
        if not findings and result.status in (Status.NOT_JUDGED, Status.NOT_APPLICABLE) and result.reason:
            out += [f"{result.status.value}: {result.reason}", ""]
        for f in findings:
            out.append(f"- **{f.severity.label}** `{f.id}`: {f.title}")
            out += [f"  - {line}" for line in f.evidence]
            if f.fix:
                out.append(f"  - fix: {f.fix.summary}")
                if f.fix.commands:
                    out += ["", "    ```sh", *[f"    {c}" for c in f.fix.commands], "    ```", ""]
                if f.fix.url:
                    out.append(f"  - see <{f.fix.url}>")
        facts = section_facts(report.facts, section)
        if facts:
            out += ["", "<details><summary>facts</summary>", "", *[f"    {line}" for line in facts], "", "</details>"]
        out.append("")
    out += [f"- crashed check `{c.check}`: {c.error}" for c in report.crashes]
    out.append(summary_line(report))
    return redact("\n".join(out) + "\n", private_words)
