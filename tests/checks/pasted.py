"""What `check --from` makes of a pasted text, for the tests of line families: one helper, not one per file."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Finding


def findings(text: str) -> tuple[Finding, ...]:
    return run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings


def severities(text: str) -> dict[str, str]:
    """Each finding id of the text's report with its severity's label."""
    return {f.id: f.severity.label for f in findings(text)}


def with_id(text: str, finding_id: str) -> list[Finding]:
    return [f for f in findings(text) if f.id == finding_id]
