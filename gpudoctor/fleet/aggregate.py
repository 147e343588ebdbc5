"""Node results -> the fleet report: nodes x sections, findings grouped by id with their nodes, drift. Pure."""

from __future__ import annotations

import re
from typing import Iterable

from .drift import against_golden, find_drift
from .model import FindingGroup, FleetReport, NodeResult

_SEVERITY_RANK = {"ok": 0, "info": 1, "warning": 2, "error": 3}
_SECTION_ORDER = ("gpu", "cuda", "cudnn", "torch", "tensorflow", "environment")


def aggregate(nodes: Iterable[NodeResult], source: str = "", golden: NodeResult | None = None) -> FleetReport:
    ordered = tuple(sorted(nodes, key=lambda n: _natural(n.name)))
    return FleetReport(
        nodes=ordered,
        sections=_sections(ordered),
        findings=_group_findings(ordered),
        drift=find_drift(ordered),
        golden=golden.origin if golden else None,
        golden_diffs=against_golden(ordered, golden) if golden else (),
        source=source,
    )


def _sections(nodes: tuple[NodeResult, ...]) -> tuple[str, ...]:
    seen = dict.fromkeys(s for n in nodes for s, _ in n.sections)
    known = [s for s in _SECTION_ORDER if s in seen]
    return tuple(known + [s for s in seen if s not in _SECTION_ORDER])


def _group_findings(nodes: tuple[NodeResult, ...]) -> tuple[FindingGroup, ...]:
    groups: dict[str, tuple[str, str, list[str]]] = {}
    for node in nodes:
        for finding in node.findings:
            severity, title, names = groups.setdefault(finding.id, (finding.severity, finding.title, []))
            if not names or names[-1] != node.name:  # one entry per node, even if a node repeats an id
                names.append(node.name)
            if _SEVERITY_RANK[finding.severity] > _SEVERITY_RANK[severity]:
                groups[finding.id] = (finding.severity, finding.title, names)
    result = [FindingGroup(fid, sev, title, tuple(names)) for fid, (sev, title, names) in groups.items()]
    return tuple(sorted(result, key=lambda g: (-_SEVERITY_RANK[g.severity], -len(g.nodes), g.id)))


def _natural(name: str) -> tuple:
    """node2 before node10: ASCII digit runs compare as numbers. Compared by length then digits, never int(): a name
    is untrusted, and "node²" (isdigit but not a number) or 5,000 digits (past int()'s limit) must sort, not crash."""
    parts = re.split(r"([0-9]+)", name)
    return tuple((len(p.lstrip("0")), p.lstrip("0"), p) if i % 2 else p for i, p in enumerate(parts))
