"""``verify --multi-gpu``: DistributedDataParallel across every visible GPU (NCCL) or N CPU processes (gloo), launched
with torchrun's standalone mode in child processes. Importing this package imports no framework.

    plan      how many ranks, which backend, and why (pure: the GPU count and the options decide)
    launch    the parent side: torchrun through the runner, the ranks' private result files, the P2P retry
    rank_worker   one rank (the only module here that imports torch)
    assess    pure judging of what the ranks reported
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_CPU_RANKS = 2


@dataclass(frozen=True)
class MultiGpuPlan:
    """How the DDP run is launched: the number of ranks, the backend, and why there."""

    nproc: int
    backend: str  # "nccl" | "gloo"
    why: str  # one line for the report: where the ranks run and why there


def visible_gpu_count(nvml_count: int | None, cuda_visible_devices: str | None) -> int | None:
    """The GPUs a CUDA program will see: NVML counts every GPU, CUDA_VISIBLE_DEVICES narrows it (an empty value hides
    them all; "-1" or any invalid entry hides that one and every one after it, as CUDA does). None: unknown."""
    if cuda_visible_devices is None:
        return nvml_count
    count = 0
    for entry in cuda_visible_devices.split(","):
        entry = entry.strip()
        if not entry or entry.startswith("-"):
            break
        count += 1
    return count if nvml_count is None else min(count, nvml_count)


def plan(multi_gpu: bool | None, nproc: int | None, gpus: int | None) -> MultiGpuPlan | None:
    """None: no multi-GPU run. --nproc N forces N gloo ranks on the CPU; otherwise every visible GPU gets an NCCL rank
    when there are two or more; --multi-gpu with fewer runs the gloo path on the CPU (and says so); by default (None)
    the run happens only when more than one GPU is visible."""
    if multi_gpu is False:
        return None
    if nproc is not None:
        return MultiGpuPlan(nproc, "gloo", f"{nproc} gloo ranks on the CPU (--nproc {nproc})")
    if gpus is not None and gpus > 1:
        return MultiGpuPlan(gpus, "nccl", f"{gpus} NCCL ranks, one per visible GPU")
    if multi_gpu is None:
        return None
    seen = "no GPU is visible" if not gpus else ("one GPU is visible" if gpus == 1 else "the GPU count is unknown")
    return MultiGpuPlan(DEFAULT_CPU_RANKS, "gloo", f"{DEFAULT_CPU_RANKS} gloo ranks on the CPU: {seen} (--nproc N "
                        "chooses how many)")  # fmt: skip
