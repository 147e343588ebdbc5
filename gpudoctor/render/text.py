"""The report for people: the primary cause first, then sections with a status symbol, each finding's evidence and
fix; colour only through the ``style`` function the CLI passes in (so the renderer never decides whether the
terminal supports it)."""

from __future__ import annotations

from typing import Callable

from .. import __version__
from .. import escape
from ..model import Finding, Report, Section, SectionResult, Severity, Status
from .facts_lines import section_facts

Style = Callable[[str, str], str]  # (text, role) -> text; role is a severity label or "dim"/"bold"
Escape = Callable[[object], str]  # untrusted text -> text safe for the output format (gpudoctor/escape.py)
_t = escape.text

SYMBOLS = {Severity.OK: "✓", Severity.INFO: "•", Severity.WARNING: "!", Severity.ERROR: "✗"}
STATUS_SYMBOLS = {Status.OK: "✓", Status.NOTE: "•", Status.WARNING: "!", Status.ERROR: "✗", Status.NOT_APPLICABLE: "-",
                  Status.NOT_JUDGED: "?", Status.CRASHED: "☠"}
_STATUS_ROLES = {Status.OK: "ok", Status.NOTE: "info", Status.WARNING: "warning", Status.ERROR: "error",
                 Status.NOT_APPLICABLE: "dim", Status.NOT_JUDGED: "warning", Status.CRASHED: "error"}
CRASH_SYMBOL = STATUS_SYMBOLS[Status.CRASHED]
NEUTRAL_SYMBOL = STATUS_SYMBOLS[Status.NOT_APPLICABLE]


def plain(text: str, role: str) -> str:
    return text


def render_text(report: Report, verbose: bool = False, style: Style = plain) -> str:
    out: list[str] = [style(f"gpudoctor {__version__}", "bold") + f" — {_t(report.source)}"
                      + (f" · matrix reviewed {_t(report.matrix_reviewed)}" if report.matrix_reviewed else ""), ""]
    lead = cause_lines(report)
    if lead:
        out += [style(lead[0], "bold"), *lead[1:], ""]
    for result in section_results(report):
        section = result.section
        findings = [f for f in report.findings if f.section == section]
        facts = [_t(line) for line in section_facts(report.facts, section)]
        headline = "" if findings else f": {_t(_headline(result, facts))}"
        out.append(style(f"[{STATUS_SYMBOLS[result.status]}] {section.value}", _STATUS_ROLES[result.status]) + headline)
        for finding in findings:
            out.extend(_finding_lines(finding, verbose, style, report.primary))
        if verbose:
            out.extend(style(f"      {line}", "dim") for line in (facts if findings else facts[1:]))
    for crash in report.crashes:
        out.append(style(f"[{CRASH_SYMBOL}] check {_t(crash.check)} crashed: {_t(crash.error)}", "error"))
    if verbose and report.facts.provenance:
        out += ["", style("Where each fact was read:", "bold")]
        out += [style(f"  {_t(key)}: {_t(where)}", "dim") for key, where in report.facts.provenance.items()]
    out += ["", summary_line(report)]
    return "\n".join(out) + "\n"


def section_results(report: Report) -> tuple[SectionResult, ...]:
    """The report's section verdicts, as the checks judged them (gpudoctor.checks.run_checks): a renderer judges
    nothing, so a Report built without them shows none."""
    return report.sections


def cause_lines(report: Report, esc: Escape = _t) -> list[str]:
    """"Cause: ..." and what it explains, when one finding leads; every value through ``esc``."""
    if not report.primary:
        return []
    finding = next((f for f in report.findings if f.id == report.primary), None)
    if finding is None:
        return []
    lines = [f"Cause: {esc(finding.title)}  [{esc(finding.id)}]"]
    if finding.explains:
        lines.append(f"  it also explains: {', '.join(esc(e) for e in finding.explains)}")
    if finding.fix:
        lines.append(f"  fix: {esc(finding.fix.summary)}")
    return lines


def _headline(result: SectionResult, facts: list[str]) -> str:
    if result.status is Status.NOT_JUDGED:
        return f"not judged — {result.reason}"
    if result.status is Status.NOT_APPLICABLE and result.reason:
        return result.reason
    return facts[0] if facts else ""


def _finding_lines(finding: Finding, verbose: bool, style: Style, primary: str | None) -> list[str]:
    marker = "  ← cause" if finding.id == primary else ""
    lines = [f"    {style(SYMBOLS[finding.severity], finding.severity.label)} {_t(finding.title)}  " + style(f"[{_t(finding.id)}]", "dim") + marker]
    # Info and ok evidence is detail; warnings and errors always show why and how to fix.
    if finding.severity >= Severity.WARNING or verbose:
        lines += [f"        {_t(line)}" for line in finding.evidence]
        if finding.explains:
            lines.append(f"        explains: {', '.join(_t(e) for e in finding.explains)}")
    if finding.fix and (finding.severity >= Severity.WARNING or verbose):
        lines.append("        " + style("fix:", "bold") + f" {_t(finding.fix.summary)}")
        lines += [f"          $ {_t(command)}" for command in finding.fix.commands]
        if finding.fix.url:
            lines.append(f"          see {_t(finding.fix.url)}")
    return lines


def summary_line(report: Report, esc: Escape = _t) -> str:
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    notes = report.count(Severity.INFO)
    parts = [f"{errors} error{'s' if errors != 1 else ''}", f"{warnings} warning{'s' if warnings != 1 else ''}",
             f"{notes} note{'s' if notes != 1 else ''}"]
    if report.crashes:
        parts.append(f"{len(report.crashes)} crashed check{'s' if len(report.crashes) != 1 else ''}")
    unjudged = [r for r in section_results(report) if r.status is Status.NOT_JUDGED]
    if errors or warnings or report.crashes:
        verdict = "problems found"
    elif unjudged:
        verdict = "no problem found in what is known"
    else:
        verdict = "no problems found"
    line = f"Summary: {verdict} ({', '.join(parts)})."
    if unjudged:
        line += "\nNot judged: " + "; ".join(f"{r.section.value} ({esc(r.reason)})" for r in unjudged) + "."
    return line


__all__ = ["SYMBOLS", "STATUS_SYMBOLS", "Section", "plain", "render_text", "summary_line", "cause_lines"]
