"""Judging a ``verify --multi-gpu`` launch: pure functions over what the ranks reported and how the launch ended
(no framework import, no process, no file). Each returns a verify SmokeCheck with the measured numbers, so the result
renders and serialises like every other smoke test."""

from __future__ import annotations

import dataclasses
import math

from gpudoctor.verify.multigpu.model import Launch, RankResult
from gpudoctor.verify import assess as verify_assess
from gpudoctor.verify.model import SmokeCheck, SmokeResult, SmokeStatus

# DDP's averaged gradient vs the mean of the ranks' local gradients, computed by hand from the same batch: the same
# float32 numbers summed in a possibly different order (NCCL's ring vs one all_reduce), so ~1e-6 relative; 1e-4 is far
# above that and far below a gradient that was not averaged (then the error is the ranks' spread, order 1).
GRADIENT_TOLERANCE = 1e-4
# The ranks' local gradients must differ (each rank trains on its own shard), or "averaged" proves nothing.
MIN_LOCAL_SPREAD = 1e-3
# Replicas whose parameter norms differ by more than this (relative) did not stay in step. DDP all-reduces the same
# buffers on every rank, so replicas are normally bit-identical (same SHA-256); the norm is the fallback measure.
REPLICA_TOLERANCE = 1e-6
NCCL_TAIL_LINES = 15
# What every rank must reach: verify's torch CNN target (torch_cases/training.PLANS["cnn"], which imports torch, so
# it is repeated here for the parent; a test holds the two equal).
CNN_TARGET = verify_assess.LearnTarget(min_drop=0.5, min_accuracy=0.6)

# Why a hang that goes away with NCCL_P2P_DISABLE=1 points at PCIe peer-to-peer, and the fixes. Sources: NCCL's
# troubleshooting guide, "PCI Access Control Services (ACS)"
# (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#pci-access-control-services-acs),
# and NVIDIA/nccl#199 (https://github.com/NVIDIA/nccl/issues/199: "disable ACS in your PCI-e switch setting ... or
# set NCCL_P2P_DISABLE=1 to use shared memory (SHM) instead of CUDA P2P").
P2P_CAUSE = (
    "GPU peer-to-peer (P2P) traffic over PCIe does not get through: most often PCIe Access Control Services (ACS) on a "
    "PCIe switch or root port, or the IOMMU (intel_iommu/amd_iommu, VT-d/AMD-Vi), redirects P2P transfers to the root "
    "complex, where they stall"
)
P2P_FIX = (
    "disable ACS (BIOS setting, or `sudo setpci -s BDF ECAP_ACS+0x6.w=0000` for each PCI bridge), or boot with "
    "`iommu=pt` / disable VT-d for bare-metal training; until then `export NCCL_P2P_DISABLE=1` (NCCL falls back to "
    "shared memory: slower, but it runs). See https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
    "troubleshooting.html#pci-access-control-services-acs"
)


def should_retry_without_p2p(launch: Launch) -> bool:
    """Retry once with NCCL_P2P_DISABLE=1 when an NCCL launch hung (timed out) with P2P on: its outcome is what
    tells a P2P/IOMMU/ACS problem from any other hang."""
    return launch.backend == "nccl" and launch.timed_out and not launch.p2p_disabled


def nccl_tail(lines: tuple[str, ...] | list[str]) -> list[str]:
    """The NCCL_DEBUG lines of a launch's output ("host:pid:tid [0] NCCL INFO ..."), the last ones first kept."""
    return [line for line in lines if "NCCL" in line][-NCCL_TAIL_LINES:]


def ranks_check(launch: Launch) -> SmokeCheck:
    got = sorted(r.rank for r in launch.ranks)
    missing = [r for r in range(launch.world_size) if r not in got]
    devices = {r.rank: r.device for r in launch.ranks}
    measured = {"world_size": launch.world_size, "reported": got, "devices": devices}
    if missing:
        return SmokeCheck("ranks", SmokeStatus.FAILED, f"{len(got)} of {launch.world_size} ranks reported; no result from rank "
                     f"{', '.join(map(str, missing))}", measured)  # fmt: skip
    seen = sorted({r.world_size for r in launch.ranks})
    if seen and seen != [launch.world_size]:
        return SmokeCheck("ranks", SmokeStatus.FAILED, f"{launch.world_size} asked for, but the group saw {seen} "
                          "(MirroredStrategy: fewer devices than asked are visible)", measured)  # fmt: skip
    if launch.backend in ("nccl", "mirrored") and len(set(devices.values())) != len(devices):
        return SmokeCheck("ranks", SmokeStatus.FAILED, f"ranks share a GPU: {devices}", measured)
    places = ", ".join(f"rank {r} on {devices[r]}" for r in got)
    if launch.backend == "mirrored":
        return SmokeCheck("ranks", SmokeStatus.PASSED, f"MirroredStrategy saw {launch.world_size} replicas: {places.replace('rank', 'replica')}", measured)
    return SmokeCheck("ranks", SmokeStatus.PASSED, f"{launch.world_size} ranks ({launch.backend}): {places}", measured)


def trained_check(ranks: tuple[RankResult, ...], target: verify_assess.LearnTarget) -> SmokeCheck:
    """Every rank's held-out loss fell and its accuracy beat chance, each judged like the single-device CNN."""
    per_rank = {r.rank: verify_assess.learned(r.first_loss, r.last_loss, r.accuracy, r.chance, target)
                for r in sorted(ranks, key=lambda r: r.rank)}  # fmt: skip
    measured = {f"rank{k}": c.measured for k, c in per_rank.items()}
    failed = {k: c for k, c in per_rank.items() if c.status is SmokeStatus.FAILED}
    if not per_rank:
        return SmokeCheck("trained", SmokeStatus.FAILED, "no rank reported", measured)
    if failed:
        detail = "; ".join(f"rank {k} did not train: {c.detail}" for k, c in failed.items())
        return SmokeCheck("trained", SmokeStatus.FAILED, detail, measured)
    drops = ", ".join(f"rank {k} {c.measured['loss_drop']:.1%}" for k, c in per_rank.items())
    return SmokeCheck("trained", SmokeStatus.PASSED, f"every rank's held-out loss fell ({drops}; needs {target.min_drop:.0%})",
                 measured)  # fmt: skip


def replicas_check(ranks: tuple[RankResult, ...]) -> SmokeCheck:
    """After training the replicas' parameters must be equal: bit-identical (one SHA-256), or at least norms within
    REPLICA_TOLERANCE, and the norms every rank gathered must agree with what each rank reported."""
    ordered = sorted(ranks, key=lambda r: r.rank)
    norms = {r.rank: r.param_norm for r in ordered}
    digests = {r.rank: r.param_sha256 for r in ordered}
    measured = {"param_norm": norms, "param_sha256": digests, "tolerance": REPLICA_TOLERANCE}
    if not ordered:
        return SmokeCheck("replicas-equal", SmokeStatus.FAILED, "no rank reported", measured)
    if not all(math.isfinite(v) for v in norms.values()):
        return SmokeCheck("replicas-equal", SmokeStatus.FAILED, f"parameter norms are not finite: {norms}", measured)
    reference = ordered[0].param_norm
    spread = max(abs(v - reference) for v in norms.values()) / max(abs(reference), 1e-30)
    measured["norm_rel_spread"] = spread
    # what each rank received from the others must be what they reported (the all_gather really carried data)
    seen = {r.rank: r.gathered_norms for r in ordered}
    wrong = [f"rank {r} received {list(g)}" for r, g in seen.items()
             if len(g) != len(ordered) or any(abs(a - norms.get(i, math.nan)) > 1e-9 * max(1.0, abs(a))
                                              for i, a in enumerate(g))]  # fmt: skip
    if len(set(digests.values())) == 1 and not wrong:
        return SmokeCheck("replicas-equal", SmokeStatus.PASSED, f"{len(ordered)} replicas bit-identical after training "
                     f"(SHA-256 {ordered[0].param_sha256[:12]}..., norm {reference:.6f})", measured)  # fmt: skip
    if spread <= REPLICA_TOLERANCE and not wrong:
        return SmokeCheck("replicas-equal", SmokeStatus.PASSED, f"replicas equal within {REPLICA_TOLERANCE:.0e} (norm spread "
                     f"{spread:.1e}; not bit-identical)", measured)  # fmt: skip
    shown = ", ".join(f"rank {k} {v:.6f}" for k, v in norms.items())
    why = f"parameter norms {shown} (rel. spread {spread:.1e} > {REPLICA_TOLERANCE:.0e})"
    if wrong:
        why += "; all_gather disagrees with the ranks: " + "; ".join(wrong)
    return SmokeCheck("replicas-equal", SmokeStatus.FAILED, f"the replicas differ after training: {why}: gradients were not "
                 "kept in step", measured)  # fmt: skip


def gradients_check(ranks: tuple[RankResult, ...]) -> SmokeCheck:
    """DDP's gradient equals the mean of the ranks' local gradients, which themselves differ (different shards)."""
    errs = {r.rank: r.grad_avg_rel_err for r in ranks}
    spreads = {r.rank: r.local_grad_spread for r in ranks}
    measured = {"grad_avg_rel_err": errs, "local_grad_spread": spreads, "tolerance": GRADIENT_TOLERANCE,
                "min_local_spread": MIN_LOCAL_SPREAD}  # fmt: skip
    if not ranks or any(v is None for v in (*errs.values(), *spreads.values())):
        return SmokeCheck("gradients-averaged", SmokeStatus.SKIPPED, "not every rank measured its first-step gradients", measured)
    bad = {k: v for k, v in errs.items() if not (math.isfinite(v) and v <= GRADIENT_TOLERANCE)}  # type: ignore[operator]
    if bad:
        shown = ", ".join(f"rank {k} {v:.2e}" for k, v in bad.items())
        return SmokeCheck("gradients-averaged", SmokeStatus.FAILED, f"the all-reduced gradient is not the mean of the ranks' gradients "
                     f"({shown}; tolerance {GRADIENT_TOLERANCE:.0e})", measured)  # fmt: skip
    if len(ranks) > 1 and max(spreads.values()) < MIN_LOCAL_SPREAD:  # type: ignore[type-var]
        return SmokeCheck("gradients-averaged", SmokeStatus.FAILED, "the ranks' local gradients are identical: they did not "
                     "train on different data, so averaging was not tested", measured)  # fmt: skip
    worst = max(errs.values())  # type: ignore[type-var]
    return SmokeCheck("gradients-averaged", SmokeStatus.PASSED, f"first step: the all-reduced gradient = mean of the {len(ranks)} ranks' "
                 f"local gradients (max rel. error {worst:.1e}, tolerance {GRADIENT_TOLERANCE:.0e}); local gradients "
                 f"differ by up to {max(spreads.values()):.0%} of the mean", measured)  # type: ignore[type-var]  # fmt: skip


def allreduce_check(ranks: tuple[RankResult, ...]) -> SmokeCheck | None:
    """The bus bandwidth rank 0 measured: a figure, not a verdict (what the topology should give is bench's)."""
    first = next((r for r in sorted(ranks, key=lambda r: r.rank) if r.busbw_gbs is not None), None)
    if first is None:
        return None
    measured = {"busbw_gbs": first.busbw_gbs, "algbw_gbs": first.algbw_gbs, "bytes": first.allreduce_bytes,
                "ranks": first.world_size}  # fmt: skip
    mib = (first.allreduce_bytes or 0) / 2**20
    return SmokeCheck("allreduce", SmokeStatus.PASSED, f"all-reduce of {mib:g} MiB over {first.world_size} ranks: bus bandwidth "
                 f"{first.busbw_gbs:.2f} GB/s (algbw {first.algbw_gbs:.2f} GB/s; busbw = algbw x 2(n-1)/n, as "
                 "nccl-tests)", measured)  # fmt: skip


def judge(first: Launch, retry: Launch | None, timeout_s: float, target: verify_assess.LearnTarget,
          framework: str = "torch", test: str = "ddp") -> SmokeResult:  # fmt: skip
    """A launch (and its NCCL_P2P_DISABLE=1 retry, when the first hung) -> the DDP smoke test's result (or, with
    framework "tensorflow" and test "mirrored", MirroredStrategy's: its replicas report in the same shape)."""
    base = {"framework": framework, "test": test}
    if first.error is not None:
        return SmokeResult(**base, status=SmokeStatus.FAILED, reason=f"could not start torchrun: {first.error}")
    notes: list[str] = []
    if first.timed_out:
        hung = (f"the {first.world_size}-rank {first.backend} run hung: killed after {timeout_s:g}s"
                + (" (NCCL's debug output is below)" if nccl_tail(first.tail) else ""))  # fmt: skip
        if retry is None:
            return SmokeResult(**base, status=SmokeStatus.FAILED, reason=hung, wall_s=first.wall_s,
                               stderr_tail="\n".join(nccl_tail(first.tail) or first.tail[-5:]) or None)  # fmt: skip
        retried = judge(retry, None, timeout_s, target, framework, test)
        if retried.status is SmokeStatus.PASSED:
            reason = (f"{hung}; with NCCL_P2P_DISABLE=1 it passed. Likely cause: {P2P_CAUSE}. Fix: {P2P_FIX}")
            notes.append("the checks below are from the retry with NCCL_P2P_DISABLE=1")
        else:
            reason = (f"{hung}; the retry with NCCL_P2P_DISABLE=1 failed too ({retried.reason}): not a peer-to-peer "
                      "problem alone; read the NCCL lines below (NCCL_DEBUG=INFO)")  # fmt: skip
        p2p = SmokeCheck("p2p", SmokeStatus.FAILED, reason, {"p2p_retry_passed": retried.status is SmokeStatus.PASSED})
        return dataclasses.replace(retried, status=SmokeStatus.FAILED, reason=reason, checks=(p2p, *retried.checks),
                                   notes=(*notes, *retried.notes), wall_s=first.wall_s + (retried.wall_s or 0.0),
                                   stderr_tail="\n".join(nccl_tail(first.tail)) or retried.stderr_tail)  # fmt: skip
    ranks = first.ranks
    checks = [ranks_check(first), trained_check(ranks, target), gradients_check(ranks), replicas_check(ranks)]
    figure = allreduce_check(ranks)
    if figure is not None:
        checks.append(figure)
    if first.p2p_disabled:
        notes.append("ran with NCCL_P2P_DISABLE=1")
    notes.extend(first.problems)
    failed = [c for c in checks if c.status is SmokeStatus.FAILED]
    reasons = [f"{c.name}: {c.detail}" for c in failed]
    if first.returncode not in (0, None):
        reasons.insert(0, f"torchrun exited with status {first.returncode}")
    rank0 = min(ranks, key=lambda r: r.rank) if ranks else None
    devices = sorted({r.device for r in ranks})
    return SmokeResult(
        **base,
        status=SmokeStatus.FAILED if reasons else SmokeStatus.PASSED,
        reason="; ".join(reasons) or None,
        device=", ".join(devices) if devices and all(d.startswith("cuda") for d in devices) else f"cpu x{len(ranks)}",
        device_name=rank0.device_name if rank0 else None,
        framework_version=rank0.torch_version if rank0 else None,
        steps=rank0.steps if rank0 else None,
        batch_size=rank0.batch_size if rank0 else None,
        first_loss=rank0.first_loss if rank0 else None,
        last_loss=rank0.last_loss if rank0 else None,
        accuracy=rank0.accuracy if rank0 else None,
        chance=rank0.chance if rank0 else None,
        train_s=max((r.train_s for r in ranks if r.train_s is not None), default=None),
        wall_s=first.wall_s,
        checks=tuple(checks),
        notes=tuple(notes),
        stderr_tail="\n".join(nccl_tail(first.tail) or first.tail[-8:]) if reasons else None,
    )
