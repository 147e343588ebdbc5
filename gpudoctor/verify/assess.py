"""Judging the numbers a smoke test measured: pure functions (no framework import), shared by the torch and the
TensorFlow cases and unit-tested on their own. Each returns a SmokeCheck that says what was measured and the threshold."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from gpudoctor.verify.model import SmokeCheck, SmokeStatus

# Tolerances for "the GPU computes what the CPU computes" (one forward + backward from the same weights). TF32 is
# switched off and cuDNN is held to deterministic algorithms without autotuning for that step (torch; TensorFlow
# cannot switch its autotuner off at run time), so it is fp32 on both sides and what is left is summation order:
# about 1e-6 relative in fp32. 1e-3 is far above that and far below what TF32 (10-bit mantissa, ~1e-3 per product,
# more after accumulation) or a broken kernel gives, so a TF32 step that slipped through fails rather than passes.
AGREEMENT_TOLERANCE = {"float32": 1e-3}
AMP_MIN_CC = 7  # tensor cores: below compute capability 7.0 mixed precision is slower, so it is off by default


@dataclass(frozen=True)
class LearnTarget:
    """What a smoke test must show to count as learning: the least held-out loss drop and accuracy."""

    min_drop: float  # the held-out loss must fall by at least this fraction
    min_accuracy: float  # and the held-out accuracy reach at least this


def learned(first_loss: float, last_loss: float, accuracy: float, chance: float, target: LearnTarget) -> SmokeCheck:
    measured = {
        "first_loss": first_loss,
        "last_loss": last_loss,
        "loss_drop": None,
        "accuracy": accuracy,
        "chance": chance,
        "min_drop": target.min_drop,
        "min_accuracy": target.min_accuracy,
    }
    if not (math.isfinite(first_loss) and math.isfinite(last_loss)):
        return SmokeCheck("learned", SmokeStatus.FAILED, f"loss is not finite ({first_loss:.4g} -> {last_loss:.4g})", measured)
    drop = (first_loss - last_loss) / first_loss if first_loss > 0 else 0.0
    measured["loss_drop"] = drop
    problems = []
    if drop < target.min_drop:
        problems.append(
            f"loss fell {drop:.1%} ({first_loss:.4f} -> {last_loss:.4f}), needs at least {target.min_drop:.0%}"
        )
    if accuracy < target.min_accuracy:
        problems.append(
            f"accuracy {accuracy:.3f} is not clearly above chance {chance:.3f}, needs at least {target.min_accuracy:.2f}"
        )
    if problems:
        return SmokeCheck("learned", SmokeStatus.FAILED, "; ".join(problems), measured)
    return SmokeCheck(
        "learned",
        SmokeStatus.PASSED,
        f"loss fell {drop:.1%} ({first_loss:.4f} -> {last_loss:.4f}, needs {target.min_drop:.0%}); "
        f"accuracy {accuracy:.3f} (chance {chance:.3f}, needs {target.min_accuracy:.2f})",
        measured,
    )


def relative_error(reference: list[float], other: list[float]) -> float:
    """max |other - reference| / max |reference| over flat lists (0 when both are all zeros)."""
    if len(reference) != len(other):
        raise ValueError("compared values differ in size")
    scale = max((abs(v) for v in reference), default=0.0)
    diff = max((abs(a - b) for a, b in zip(reference, other)), default=0.0)
    if scale == 0.0:
        return 0.0 if diff == 0.0 else math.inf
    return diff / scale


def agreement(device: str, loss_cpu: float, loss_dev: float, grad_rel_err: float, dtype: str = "float32") -> SmokeCheck:
    tol = AGREEMENT_TOLERANCE[dtype]
    loss_rel = abs(loss_dev - loss_cpu) / max(abs(loss_cpu), 1e-12)
    measured = {
        "loss_cpu": loss_cpu,
        "loss_device": loss_dev,
        "loss_rel_err": loss_rel,
        "grad_rel_err": grad_rel_err,
        "tolerance": tol,
        "dtype": dtype,
    }
    finite = all(math.isfinite(v) for v in (loss_cpu, loss_dev, grad_rel_err))
    if not finite or loss_rel > tol or grad_rel_err > tol:
        return SmokeCheck(
            "agreement",
            SmokeStatus.FAILED,
            f"{device} and the CPU disagree on one step from the same weights: loss {loss_dev:.6g} vs {loss_cpu:.6g} "
            f"(rel. error {loss_rel:.2e}), gradients rel. error {grad_rel_err:.2e}; tolerance {tol:.0e} ({dtype})",
            measured,
        )
    return SmokeCheck(
        "agreement",
        SmokeStatus.PASSED,
        f"one step on {device} matches the CPU: loss rel. error {loss_rel:.2e}, gradients {grad_rel_err:.2e} "
        f"(tolerance {tol:.0e}, {dtype})",
        measured,
    )


def frozen(backbone_changed: list[str], backbone_total: int, head_changed: int, head_total: int) -> SmokeCheck:
    measured = {
        "backbone_tensors": backbone_total,
        "backbone_changed": len(backbone_changed),
        "head_tensors": head_total,
        "head_changed": head_changed,
    }
    problems = []
    if backbone_total == 0:
        problems.append("the backbone has no weights to compare")
    if backbone_changed:
        shown = ", ".join(backbone_changed[:3]) + (" ..." if len(backbone_changed) > 3 else "")
        problems.append(f"{len(backbone_changed)} of {backbone_total} frozen backbone tensors changed ({shown})")
    if head_changed == 0:
        problems.append(f"none of the {head_total} head tensors changed: the head did not train")
    if problems:
        return SmokeCheck("frozen", SmokeStatus.FAILED, "; ".join(problems), measured)
    return SmokeCheck(
        "frozen",
        SmokeStatus.PASSED,
        f"all {backbone_total} backbone tensors bit-identical after training; {head_changed} of {head_total} head "
        "tensors changed",
        measured,
    )


def amp(on_gpu: bool, compute_capability: tuple[int, int] | None, requested: bool | None, dtypes: Sequence[str],
        step: Callable[[str], float]) -> SmokeCheck:  # fmt: skip
    """Mixed precision, the same policy for both frameworks: skipped on the CPU, with --no-amp, and by default below
    compute capability 7.0; otherwise one training step per dtype ("fp16" with loss scaling first, then "bf16"
    where the framework supports it), each of which must give a finite loss. ``step(dtype) -> loss``."""
    if not on_gpu:
        return skipped("amp", "mixed precision needs a CUDA device; this ran on the CPU")
    major, minor = compute_capability or (0, 0)
    cc = f"{major}.{minor}"
    if requested is False:
        return skipped("amp", "turned off by --no-amp")
    if requested is None and major < AMP_MIN_CC:
        return skipped("amp", f"compute capability {cc} < {AMP_MIN_CC}.0 (no tensor cores): off by default, --amp forces it")
    measured: dict[str, object] = {"compute_capability": cc, "dtypes": list(dtypes)}
    problems = []
    for dtype in dtypes:
        loss = step(dtype)
        measured[f"{dtype}_loss"] = loss
        if not math.isfinite(loss):
            problems.append(f"{dtype} loss is {loss}")
    if problems:
        return SmokeCheck("amp", SmokeStatus.FAILED, "mixed precision step: " + "; ".join(problems), measured)
    bf16 = f", bf16 loss {measured['bf16_loss']:.4f}" if "bf16" in dtypes else ", bf16 not supported here"
    return SmokeCheck("amp", SmokeStatus.PASSED, f"fp16 step with loss scaling: loss {measured['fp16_loss']:.4f}{bf16}", measured)


def skipped(name: str, why: str) -> SmokeCheck:
    return SmokeCheck(name, SmokeStatus.SKIPPED, why)
