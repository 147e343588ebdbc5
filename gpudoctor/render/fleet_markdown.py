"""The fleet report as Markdown (a ticket, a wiki page): the same content as the text report, values escaped."""

from __future__ import annotations

import re

from ..fleet.model import FleetReport
from .. import escape
from .fleet_common import SEVERITY_SYMBOLS, section_title, shown, status_word, summary

_m = escape.markdown
NAMES_SHOWN = 30
_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,80}")


def _id(finding_id: str) -> str:
    """A finding id as code when it is one (kebab case); anything else a node sent is escaped prose."""
    return f"`{finding_id}`" if _ID.fullmatch(finding_id) else _m(finding_id)


def render_fleet_markdown(report: FleetReport) -> str:
    out = ["## gpudoctor fleet" + (f" — {_m(report.source)}" if report.source else ""), "", summary(report), ""]
    columns = ["node", *(_m(section_title(s)) for s in report.sections), "exit"]
    out += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for node in report.nodes:
        if not node.answered:
            out.append(f"| {_m(node.name)} | **failed to answer**: {_m(node.failure)} |" + " |" * len(report.sections))
            continue
        statuses = dict(node.sections)
        cells = [_m(node.name), *(_m(status_word(statuses.get(s))) for s in report.sections),
                 "" if node.exit_code is None else str(node.exit_code)]
        out.append("| " + " | ".join(cells) + " |")
    if report.findings:
        out += ["", "### Findings by id", ""]
        for group in report.findings:
            names, more = shown(group.nodes, NAMES_SHOWN)
            out.append(f"- {SEVERITY_SYMBOLS[group.severity]} {_id(group.id)} on {len(group.nodes)} node(s): "
                       + ", ".join(_m(n) for n in names) + (f" and {more} more" if more else "")
                       + f" — e.g. {_m(group.title)}")
    out += ["", "### Drift", ""]
    if not report.drift:
        out.append("None: every fact compared is the same on every node that reported it.")
    for drift in report.drift:
        outliers, more = shown(drift.outliers, NAMES_SHOWN)
        out.append(f"- **{drift.label}**: {_m(drift.summary)}; {'outliers' if drift.majority is not None else 'values'}: "
                   + ", ".join(f"{_m(node)} {_m(value)}" for node, value in outliers) + (f" and {more} more" if more else ""))
    if report.golden is not None:
        out += ["", f"### Against the golden node ({_m(report.golden)})", ""]
        if not report.golden_diffs:
            out.append("Every node matches the golden node.")
        for diff in report.golden_diffs:
            out.append(f"- {_m(diff.node)}: {diff.label} {_m(diff.value)}, golden {_m(diff.golden)}")
    return "\n".join(out) + "\n"
