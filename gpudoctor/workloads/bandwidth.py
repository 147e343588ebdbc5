"""All-reduce bandwidth, by nccl-tests' definitions (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md):
algorithm bandwidth = bytes / time, and bus bandwidth = algbw * 2(n-1)/n for all-reduce, the factor that makes the
figure comparable with the hardware's link speed whatever the number of ranks. Pure arithmetic (no torch): the timing
is workloads/allreduce.py, run inside verify --multi-gpu's torchrun children."""

from __future__ import annotations


def algorithm_bandwidth(nbytes: int, seconds: float) -> float:
    """GB/s (1e9 bytes per second, as nccl-tests prints it)."""
    if seconds <= 0:
        raise ValueError("an all-reduce cannot take no time")
    return nbytes / seconds / 1e9


def bus_bandwidth(algbw: float, ranks: int) -> float:
    """nccl-tests' busbw for all-reduce: each rank sends and receives 2(n-1)/n of the buffer."""
    if ranks < 1:
        raise ValueError("an all-reduce needs at least one rank")
    return algbw * 2 * (ranks - 1) / ranks
