"""The report for machines: one JSON object with a schema version and stable keys (the snapshot included)."""

from __future__ import annotations

import json
from typing import Any

from .. import __version__
from ..model import REPORT_SCHEMA, Finding, Report, Severity, exit_code
from ..snapshot import facts_to_dict


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    fix = finding.fix
    return {
        "id": finding.id,
        "severity": finding.severity.label,
        "section": finding.section.name.lower(),
        "title": finding.title,
        "evidence": list(finding.evidence),
        "fix": {"summary": fix.summary, "commands": list(fix.commands), "url": fix.url} if fix else None,
        "explains": list(finding.explains),
    }


def report_to_dict(report: Report, strict: bool = False) -> dict[str, Any]:
    return {
        "schema": REPORT_SCHEMA,
        "gpudoctor": __version__,
        "source": report.source,
        "matrix_reviewed": report.matrix_reviewed,
        "summary": {
            "errors": report.count(Severity.ERROR),
            "warnings": report.count(Severity.WARNING),
            "info": report.count(Severity.INFO),
            "ok": report.count(Severity.OK),
            "crashed_checks": len(report.crashes),
            "exit_code": int(exit_code(report, strict)),
        },
        "primary": report.primary,
        "sections": [{"section": r.section.name.lower(), "status": r.status.value, "reason": r.reason} for r in report.sections],
        "findings": [finding_to_dict(f) for f in report.findings],
        "crashes": [{"check": c.check, "error": c.error} for c in report.crashes],
        "facts": facts_to_dict(report.facts),
    }


def render_json(report: Report, strict: bool = False) -> str:
    return json.dumps(report_to_dict(report, strict), indent=2) + "\n"
