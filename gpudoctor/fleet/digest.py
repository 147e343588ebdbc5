"""One node's report (the dict of `gpudoctor check --json`) -> its compact NodeResult. Pure: no I/O.

The report is untrusted (it came from a node or a file): a value of the wrong type is read as unknown, never
trusted and never a crash; a document that is not a report at all raises NotAReport with the reason."""

from __future__ import annotations

from typing import Any

from .model import DRIFT_KEYS, NodeFinding, NodeResult

REPORT_SCHEMA_PREFIX = "gpudoctor.report/"
SEVERITIES = ("ok", "info", "warning", "error")


class NotAReport(ValueError):
    """The document is not a gpudoctor report; the message says why (shown as the node's failure)."""


def node_from_report(data: Any, name: str, origin: str, shared: dict | None = None) -> NodeResult:
    """``shared`` (one dict per collection) makes nodes that report the same sections, findings or facts share
    one copy of them: a fleet of 10,000 alike nodes holds each distinct digest part once."""
    if not isinstance(data, dict) or not str(data.get("schema", "")).startswith(REPORT_SCHEMA_PREFIX):
        raise NotAReport("not a gpudoctor report (no \"schema\": \"gpudoctor.report/1\")")
    shared = {} if shared is None else shared
    summary = _dict(data.get("summary"))
    exit_code = summary.get("exit_code")
    sections = tuple((_str(s.get("section")) or "?", _str(s.get("status")) or "not judged")
                     for s in _dicts(data.get("sections")))
    findings = tuple((_str(f.get("id")) or "?", _severity(f.get("severity")), _str(f.get("title")) or "")
                     for f in _dicts(data.get("findings")))
    facts = facts_digest(_dict(data.get("facts")))
    return NodeResult(
        name=name,
        origin=origin,
        exit_code=exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None,
        sections=shared.setdefault(("sections", sections), sections),
        findings=_shared_findings(findings, shared),
        facts=shared.setdefault(("facts", facts), facts),
    )


def _shared_findings(findings: tuple[tuple[str, str, str], ...], shared: dict) -> tuple[NodeFinding, ...]:
    key = ("findings", findings)
    if key not in shared:
        shared[key] = tuple(NodeFinding(*f) for f in findings)
    return shared[key]


def facts_digest(facts: dict) -> tuple[tuple[str, str | None], ...]:
    """The drift-relevant facts of one snapshot dict, as strings (None: unknown)."""
    driver = _dict(facts.get("driver"))
    frameworks = _dict(facts.get("frameworks"))
    torch, tf = _dict(frameworks.get("torch")), _dict(frameworks.get("tensorflow"))
    gpus = facts.get("gpus")
    gpu_list = _dicts(gpus)
    known_gpus = isinstance(gpus, list)
    values = {
        "driver": _str(driver.get("version")),
        "driver_cuda": _str(driver.get("cuda_version")),
        "cuda_toolkit": _joined(_str(t.get("version")) for t in _dicts(facts.get("cuda_toolkits"))),
        "cudnn": _joined(_str(lib.get("version")) for lib in _dicts(_dict(facts.get("libraries")).get("libcudnn"))),
        "torch": _str(torch.get("version")),
        "torch_cuda": _str(torch.get("cuda")) if torch.get("build") != "cpu" else "cpu",
        "tensorflow": _str(tf.get("version")),
        "gpu_count": str(len(gpu_list)) if known_gpus else None,
        "gpu_model": _joined(_str(g.get("name")) for g in gpu_list) if gpu_list else ("none" if known_gpus else None),
        "pcie_width": _joined(_width(g) for g in gpu_list),
        "ecc_uncorrected": _total(g.get("ecc_uncorrected_errors") for g in gpu_list),
    }
    if not torch:
        values["torch_cuda"] = None
    return tuple((key, values[key]) for key in DRIFT_KEYS)


def _width(gpu: dict) -> str | None:
    pcie = _dict(gpu.get("pcie"))
    current, widest = _int(pcie.get("width_current")), _int(pcie.get("width_max"))
    if current is None:
        return None
    return f"x{current}" if widest is None or widest == current else f"x{current} of x{widest}"


def _joined(values) -> str | None:
    """Distinct known values, sorted: "x16" for eight GPUs alike, "x8, x16" when they differ; None if none known."""
    distinct = sorted({v for v in values if v is not None}, key=lambda v: (len(v), v))
    return ", ".join(distinct) if distinct else None


def _total(values) -> str | None:
    counts = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    return str(sum(counts)) if counts else None


def _severity(value: Any) -> str:
    return value if value in SEVERITIES else "info"


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
