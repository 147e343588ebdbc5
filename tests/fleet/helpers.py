"""Reports for fleet tests: real `check --json` reports of the recorded snapshots, with chosen facts changed."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path

from gpudoctor.checks import run_checks
from gpudoctor.matrix import load_matrix
from gpudoctor.render.json_report import report_to_dict

from ..conftest import load_facts


@cache
def _report(fixture: str) -> str:
    return json.dumps(report_to_dict(run_checks(load_facts(fixture), load_matrix(), f"snapshot {fixture}")))


def report(fixture: str = "healthy-h100", driver: str | None = None, pcie_width: int | None = None) -> dict:
    """The report `gpudoctor check --json` prints for a recorded machine, optionally with another driver version
    or PCIe link width written into its facts (as a node with that driver would report)."""
    data = copy.deepcopy(json.loads(_report(fixture)))
    if driver is not None:
        data["facts"]["driver"]["version"] = driver
    if pcie_width is not None:
        for gpu in data["facts"]["gpus"]:
            gpu["pcie"] = {"gen_current": 5, "gen_max": 5, "width_current": pcie_width, "width_max": 16}
    return data


def write_reports(directory: Path, reports: dict[str, object]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in reports.items():
        text = content if isinstance(content, str) else json.dumps(content, indent=2)
        (directory / f"{name}.json").write_text(text, encoding="utf-8")
    return directory
