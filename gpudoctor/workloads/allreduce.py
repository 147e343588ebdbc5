"""The all-reduce bus bandwidth, timed with torch.distributed inside a process group that already exists (verify
--multi-gpu's torchrun ranks): a float32 buffer all-reduced after warm-up, the slowest rank's time counting (a
collective is done when the last rank is). Not in REGISTRY: bench's worker is one process on one device, and an
all-reduce needs the group; the ranks call ``measure`` themselves."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor.workloads.bandwidth import algorithm_bandwidth, bus_bandwidth

ALLREDUCE_SCHEMA = "gpudoctor.multigpu.allreduce/1"  # bench's all-reduce launch: rank 0's figure (allreduce_worker)

if TYPE_CHECKING:  # annotations only: this module runs in bench's child, and importing it loads no framework
    import torch


@dataclass(frozen=True)
class AllReduceFigure:
    """One timed all-reduce of a buffer size: seconds per call and the algorithm and bus bandwidth it gives."""

    nbytes: int
    seconds: float  # per all-reduce, the slowest rank's
    algbw_gbs: float
    busbw_gbs: float
    ranks: int


def measure(device: torch.device, nbytes: int, iterations: int, warmup: int = 3) -> AllReduceFigure:
    import torch
    import torch.distributed as dist

    buffer = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    for _ in range(warmup):
        dist.all_reduce(buffer)
    _sync(device)
    dist.barrier()
    start = time.perf_counter()
    for _ in range(iterations):
        dist.all_reduce(buffer)
    _sync(device)
    elapsed = torch.tensor([(time.perf_counter() - start) / iterations], dtype=torch.float64, device=device)
    dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
    seconds = float(elapsed.item())
    ranks = dist.get_world_size()
    algbw = algorithm_bandwidth(buffer.numel() * 4, seconds)
    return AllReduceFigure(buffer.numel() * 4, seconds, algbw, bus_bandwidth(algbw, ranks), ranks)


def _sync(device: torch.device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)
