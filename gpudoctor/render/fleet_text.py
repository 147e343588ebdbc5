"""The fleet report for people: the nodes x sections table, findings by id with their nodes, drift, golden."""

from __future__ import annotations

from typing import Callable

from ..fleet.model import FleetReport
from .. import escape
from .fleet_common import SEVERITY_SYMBOLS, STATUS_ROLES, section_title, shown, status_word, summary

Style = Callable[[str, str], str]
_t = escape.text
NAMES_SHOWN = 12


def plain(text: str, role: str) -> str:
    return text


def render_fleet_text(report: FleetReport, style: Style = plain) -> str:
    out = [style("gpudoctor fleet", "bold") + (f" — {_t(report.source)}" if report.source else ""), summary(report), ""]
    out += _node_table(report, style)
    if report.findings:
        out += ["", style("Findings by id", "bold")]
        for group in report.findings:
            names, more = shown(group.nodes, NAMES_SHOWN)
            where = ", ".join(_t(n) for n in names) + (f" and {more} more" if more else "")
            out.append(style(f"  {SEVERITY_SYMBOLS[group.severity]} {_t(group.id)}", group.severity)
                       + f" on {len(group.nodes)} node{'s' if len(group.nodes) != 1 else ''}: {where}")
            out.append(style(f"      e.g. {_t(group.title)}", "dim"))
    out += ["", style("Drift", "bold")]
    if not report.drift:
        out.append("  none: every fact compared is the same on every node that reported it")
    for drift in report.drift:
        outliers, more = shown(drift.outliers, NAMES_SHOWN)
        listed = ", ".join(f"{_t(node)} {_t(value)}" for node, value in outliers) + (f" and {more} more" if more else "")
        out.append(f"  {drift.label}: {_t(drift.summary)}; "
                   + style(f"{'outliers' if drift.majority is not None else 'values'}: {listed}", "warning"))
        if drift.unknown:
            unknown, more = shown(drift.unknown, NAMES_SHOWN)
            out.append(style(f"      unknown on {', '.join(_t(n) for n in unknown)}" + (f" and {more} more" if more else ""), "dim"))
    if report.golden is not None:
        out += ["", style("Against the golden node", "bold") + f" ({_t(report.golden)})"]
        if not report.golden_diffs:
            out.append("  every node matches the golden node")
        for diff in report.golden_diffs:
            out.append(style(f"  {_t(diff.node)}: {diff.label} {_t(diff.value)}, golden {_t(diff.golden)}", "error"))
    return "\n".join(out) + "\n"


def _node_table(report: FleetReport, style: Style) -> list[str]:
    width = max([4] + [len(_t(n.name)) for n in report.nodes])
    head = f"{'node':<{width}}  " + "  ".join(f"{_t(section_title(s)):<5}" for s in report.sections) + "  exit"
    rows = [style(head, "bold")]
    for node in report.nodes:
        name = f"{_t(node.name):<{width}}  "
        if not node.answered:
            rows.append(name + style(f"FAILED TO ANSWER: {_t(node.failure)}", "error"))
            continue
        statuses = dict(node.sections)
        cells = [style(f"{_t(status_word(statuses.get(s))):<5}", STATUS_ROLES.get(statuses.get(s, ""), "dim"))
                 for s in report.sections]
        rows.append(name + "  ".join(cells) + f"  {'' if node.exit_code is None else node.exit_code}")
    return rows
