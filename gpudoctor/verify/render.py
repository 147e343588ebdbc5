"""VerifyReport -> text (for people) and -> JSON (for machines, schema "gpudoctor.verify/1"). Renderers return
strings; only the CLI prints."""

from __future__ import annotations

import json
import math
from typing import Any

from gpudoctor.model import ExitCode
from gpudoctor.verify import ran_on
from gpudoctor.verify.model import VERIFY_SCHEMA, SmokeResult, SmokeStatus, VerifyReport

_SYMBOL = {SmokeStatus.PASSED: "✓", SmokeStatus.FAILED: "✗", SmokeStatus.SKIPPED: "-"}
_ASCII = {SmokeStatus.PASSED: "+", SmokeStatus.FAILED: "x", SmokeStatus.SKIPPED: "-"}


def exit_code(report: VerifyReport) -> ExitCode:
    """OK when no test failed and at least one passed; PROBLEMS when one failed or nothing was proved (every test
    skipped: no framework installed, or none selected that can run here)."""
    return ExitCode.OK if report.ok else ExitCode.PROBLEMS


def verdict(report: VerifyReport) -> str:
    if report.count(SmokeStatus.FAILED):
        return "some tests failed"
    if not report.count(SmokeStatus.PASSED):
        return "nothing was proved: no test ran"
    return "all tests that ran passed"


def to_text(report: VerifyReport, verbose: bool = False, unicode: bool = True) -> str:
    sym = _SYMBOL if unicode else _ASCII
    lines = [headline(report)]
    for r in report.results:
        lines.append("")
        lines.append(f"{sym[r.status]} {r.label}: {r.status.value}" + (f" - {r.reason}" if r.reason else ""))
        facts = _facts(r)
        if facts:
            lines.append("    " + " | ".join(facts))
        if r.test in ("ddp", "mirrored") and r.device_note:
            lines.append(f"    {'replicas' if r.test == 'mirrored' else 'ranks'}: {r.device_note}")
        elif r.device_note and r.device_note != "--device cpu":
            lines.append(f"    why the CPU: {r.device_note}")
        if r.framework_path:
            lines.append(f"    {r.framework.label} tested: {_version(r)}{shown(r.framework_path)}")
        if r.weights:
            lines.append(f"    weights: {r.weights}")
        for note in r.notes:
            lines.append(f"    note: {note}")
        for c in r.checks:
            lines.append(f"    {sym[c.status]} {c.name}: {c.detail}")
        if r.status is SmokeStatus.FAILED and r.stderr_tail and (verbose or not r.checks):
            tail = r.stderr_tail.splitlines()[-(20 if verbose else 5) :]
            lines.append("    child's last stderr lines:")
            lines.extend(f"      {t}" for t in tail)
    passed, failed, skipped = (report.count(s) for s in (SmokeStatus.PASSED, SmokeStatus.FAILED, SmokeStatus.SKIPPED))
    lines.append("")
    total = f" in {report.wall_s:.1f}s" if report.wall_s is not None else ""
    lines.append(f"{passed} passed, {failed} failed, {skipped} skipped{total}: {verdict(report)}")
    return "\n".join(lines) + "\n"


def shown(value: str) -> str:
    """A path from the child, as one line of plain text (untrusted: it can hold any character)."""
    from gpudoctor.escape import text

    return text(value)


def _version(r: SmokeResult) -> str:
    return f"{shown(r.framework_version)} from " if r.framework_version else ""


def headline(report: VerifyReport) -> str:
    """The first line: where the tests ran ("Smoke tests ran on the CPU: no CUDA device is visible")."""
    where = ran_on(report)
    return f"Smoke tests ran {where}" if where.startswith("on ") else f"Smoke tests {where}"


def _facts(r: SmokeResult) -> list[str]:
    out = []
    if r.device:
        out.append(f"device {r.device}" + (f" ({r.device_name})" if r.device_name and r.device_name != "CPU" else ""))
    if r.steps is not None:
        out.append(f"{r.steps} steps x {r.batch_size}")
    if r.first_loss is not None and r.last_loss is not None:
        out.append(f"loss {r.first_loss:.4f} -> {r.last_loss:.4f}")
    if r.accuracy is not None:
        out.append(f"accuracy {r.accuracy:.3f}" + (f" (chance {r.chance:.3f})" if r.chance is not None else ""))
    if r.samples_per_s is not None:
        out.append(f"{r.samples_per_s:,.0f} samples/s")
    if r.peak_mem_mib is not None:
        out.append(f"peak {r.peak_mem_mib:,.0f} MiB")
    if r.wall_s is not None:
        out.append(f"{r.wall_s:.1f}s")
    return out


def to_dict(report: VerifyReport) -> dict[str, Any]:
    o = report.options
    return {
        "schema": VERIFY_SCHEMA,
        "ran_on": ran_on(report),
        "options": {
            "frameworks": [f.short for f in o.frameworks],
            "tests": list(o.tests),
            "device": o.device,
            "amp": o.amp,
            "weights": list(o.weights),
            "timeout_s": o.timeout_s,
            "multi_gpu": o.multi_gpu,
            "nproc": o.nproc,
        },
        "results": [r.to_dict() for r in report.results],
        "summary": {
            "passed": report.count(SmokeStatus.PASSED),
            "failed": report.count(SmokeStatus.FAILED),
            "skipped": report.count(SmokeStatus.SKIPPED),
            "ok": report.ok,
            "wall_s": report.wall_s,
            "children": report.children,
        },
        "exit_code": int(exit_code(report)),
    }


def to_json(report: VerifyReport) -> str:
    return json.dumps(_finite(to_dict(report)), indent=2, allow_nan=False) + "\n"


def _finite(value: Any) -> Any:
    """NaN and infinity (a loss that blew up) are not JSON: they are written as the strings "nan", "inf", "-inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
