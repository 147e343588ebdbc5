"""The report for people: sections, a symbol per finding, evidence and the fix; colour only through the ``style``
function the CLI passes in (so the renderer never decides whether the terminal supports it)."""

from __future__ import annotations

from typing import Callable

from .. import __version__
from ..model import Finding, Report, Section, Severity
from .facts_lines import is_neutral, section_facts

Style = Callable[[str, str], str]  # (text, role) -> text; role is a severity label or "dim"/"bold"

SYMBOLS = {Severity.OK: "✓", Severity.INFO: "•", Severity.WARNING: "!", Severity.ERROR: "✗"}
CRASH_SYMBOL = "☠"
NEUTRAL_SYMBOL = "-"


def plain(text: str, role: str) -> str:
    return text


def render_text(report: Report, verbose: bool = False, style: Style = plain) -> str:
    out: list[str] = [style(f"gpudoctor {__version__}", "bold") + f" — {report.source}"
                      + (f" · matrix reviewed {report.matrix_reviewed}" if report.matrix_reviewed else ""), ""]
    for section in Section:
        findings = [f for f in report.findings if f.section == section]
        facts = section_facts(report.facts, section)
        worst = max((f.severity for f in findings), default=Severity.OK)
        headline = "" if findings else f": {facts[0]}" if facts else ""
        symbol = NEUTRAL_SYMBOL if not findings and facts and is_neutral(facts[0]) else SYMBOLS[worst]
        out.append(style(f"[{symbol}] {section.value}", worst.label if symbol != NEUTRAL_SYMBOL else "dim") + headline)
        for finding in findings:
            out.extend(_finding_lines(finding, verbose, style))
        if verbose:
            out.extend(style(f"      {line}", "dim") for line in (facts if findings else facts[1:]))
    for crash in report.crashes:
        out.append(style(f"[{CRASH_SYMBOL}] check {crash.check} crashed: {crash.error}", "error"))
    out += ["", summary_line(report)]
    return "\n".join(out) + "\n"


def _finding_lines(finding: Finding, verbose: bool, style: Style) -> list[str]:
    lines = [f"    {style(SYMBOLS[finding.severity], finding.severity.label)} {finding.title}  " + style(f"[{finding.id}]", "dim")]
    # Info and ok evidence is detail; warnings and errors always show why and how to fix.
    if finding.severity >= Severity.WARNING or verbose:
        lines += [f"        {line}" for line in finding.evidence]
    if finding.fix and (finding.severity >= Severity.WARNING or verbose):
        lines.append("        " + style("fix:", "bold") + f" {finding.fix.summary}")
        lines += [f"          $ {command}" for command in finding.fix.commands]
        if finding.fix.url:
            lines.append(f"          see {finding.fix.url}")
    return lines


def summary_line(report: Report) -> str:
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    notes = report.count(Severity.INFO)
    parts = [f"{errors} error{'s' if errors != 1 else ''}", f"{warnings} warning{'s' if warnings != 1 else ''}",
             f"{notes} note{'s' if notes != 1 else ''}"]
    if report.crashes:
        parts.append(f"{len(report.crashes)} crashed check{'s' if len(report.crashes) != 1 else ''}")
    verdict = "no problems found" if not errors and not warnings and not report.crashes else "problems found"
    return f"Summary: {verdict} ({', '.join(parts)})."
