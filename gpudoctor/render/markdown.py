"""The report for a bug report: Markdown, with GPU UUIDs, the host name and the user name redacted."""

from __future__ import annotations

import re
from typing import Iterable

from .. import __version__
from ..model import Report, Status
from ..escape import fence, markdown, markdown_code
from .facts_lines import section_facts
from .text import STATUS_SYMBOLS, cause_lines, section_results, summary_line

_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,80}")
_URL = re.compile(r"https://[A-Za-z0-9.-]+(?:/[A-Za-z0-9._~%/?=&#+,;:@!$*'()-]*)?")
_HOME = re.compile(r"(/home/|/Users/|[A-Za-z]:\\Users\\)[^/\\\s:]+")


def redact(text: str, private_words: Iterable[str] = ()) -> str:
    text = _UUID.sub(lambda m: f"{m.group(1)}-<redacted>", text)
    text = _HOME.sub(lambda m: f"{m.group(1)}<user>", text)
    for word in sorted({w for w in private_words if w and len(w) > 2}, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(word)}\b", "<redacted>", text)
    return text


def render_markdown(report: Report, private_words: Iterable[str] = ()) -> str:
    """Every value from the report is redacted, then escaped once: escape.markdown in prose, escape.markdown_code in
    code blocks (where a backslash would show)."""
    private_words = tuple(private_words)

    def md(value: object) -> str:
        return markdown(redact(str(value), private_words))

    def code(value: object) -> str:
        return markdown_code(redact(str(value), private_words))

    out = [f"## gpudoctor {__version__} report", ""]
    if report.matrix_reviewed:
        out += [f"Compatibility matrix reviewed {md(report.matrix_reviewed)}.", ""]
    lead = cause_lines(report, md)
    if lead:
        out += [f"**{lead[0]}**", "", *[f"- {line.strip()}" for line in lead[1:]], ""]
    for result in section_results(report):
        section = result.section
        findings = [f for f in report.findings if f.section == section]
        out.append(f"### {STATUS_SYMBOLS[result.status]} {section.value}")
        out.append("")
        if not findings and result.status in (Status.NOT_JUDGED, Status.NOT_APPLICABLE) and result.reason:
            out += [f"{result.status.value}: {md(result.reason)}", ""]
        for f in findings:
            out.append(f"- **{f.severity.label}** {_code_span(f.id, md)}: {md(f.title)}")
            out += [f"  - {md(line)}" for line in f.evidence]
            if f.fix:
                out.append(f"  - fix: {md(f.fix.summary)}")
                if f.fix.commands:
                    commands = [code(c) for c in f.fix.commands]
                    out += ["", f"    {fence(commands)}sh", *[f"    {c}" for c in commands], f"    {fence(commands)}", ""]
                if f.fix.url:
                    out.append(f"  - see {_link(f.fix.url, md)}")
        facts = section_facts(report.facts, section)
        if facts:
            out += ["", "<details><summary>facts</summary>", "", *[f"    {code(line)}" for line in facts], "", "</details>"]
        out.append("")
    crashed = [f"- crashed check {_code_span(c.check, md)}: {md(c.error)}" for c in report.crashes]
    if crashed:  # the blank line ends the list: a line right after an item would continue it (lazy continuation)
        out += [*crashed, ""]
    out.append(summary_line(report, md))
    return redact("\n".join(out) + "\n", private_words)


def _code_span(name: str, md) -> str:
    """A finding id or check name as code, when it is one (kebab or snake case); anything else is escaped prose."""
    return f"`{name}`" if _NAME.fullmatch(name) else md(name)


def _link(url: str, md) -> str:
    return f"<{url}>" if _URL.fullmatch(url) else md(url)
