"""What the fleet renderers share: column titles, status words, the summary line (values only, no escaping: each
renderer escapes for its own format)."""

from __future__ import annotations

from ..fleet.model import FleetReport

SECTION_TITLES = {"gpu": "GPU", "cuda": "CUDA", "cudnn": "cuDNN", "torch": "torch", "tensorflow": "TF",
                  "environment": "env"}
STATUS_WORDS = {"ok": "ok", "note": "note", "warning": "warn", "error": "ERROR", "not applicable": "-",
                "not judged": "?", "crashed": "CRASH"}
STATUS_ROLES = {"ok": "ok", "note": "info", "warning": "warning", "error": "error", "not applicable": "dim",
                "not judged": "dim", "crashed": "error"}
SEVERITY_SYMBOLS = {"ok": "✓", "info": "•", "warning": "!", "error": "✗"}


def section_title(section: str) -> str:
    return SECTION_TITLES.get(section, section)


def status_word(status: str | None) -> str:
    return STATUS_WORDS.get(status or "", status or "")


def summary(report: FleetReport) -> str:
    total, failed, errors = len(report.nodes), len(report.failed), len(report.nodes_with_errors)
    parts = [f"{total} node{'s' if total != 1 else ''}", f"{errors} with errors", f"{failed} failed to answer",
             f"{len(report.drift)} fact{'s' if len(report.drift) != 1 else ''} drifting"]
    if report.golden is not None:
        differing = len({d.node for d in report.golden_diffs})
        parts.append(f"{differing} differing from golden")
    return ", ".join(parts)


def shown(names: tuple[str, ...] | list[str], limit: int) -> tuple[list[str], int]:
    """The first ``limit`` names and how many more there are (a 10,000-node list is a count, not a wall of text)."""
    return list(names[:limit]), max(0, len(names) - limit)
