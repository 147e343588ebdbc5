"""The report for machines: one JSON object with a schema version and stable keys (the snapshot included), as
gpudoctor.snapshot.report_to_dict builds it."""

from __future__ import annotations

import json

from ..model import Report
from ..snapshot import finding_to_dict, report_to_dict

__all__ = ["finding_to_dict", "render_json", "report_to_dict"]  # the dicts are the public format's (gpudoctor.snapshot)


def render_json(report: Report, strict: bool = False) -> str:
    return json.dumps(report_to_dict(report, strict), indent=2) + "\n"
