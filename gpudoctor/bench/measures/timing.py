"""Timing on a device: warm-up, then repeated runs timed with CUDA events (GPU work is asynchronous: the host's
clock would time the launch, not the work) or the host clock on the CPU; the median, so one hiccup of a busy host
does not move the figure."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # annotations only: this module runs in bench's child, and importing it loads no framework
    import torch


@dataclass
class Context:
    """What each measurement in a bench child gets: the device, quick or full, precisions to time, progress output."""

    device: torch.device
    quick: bool
    precisions: tuple[str, ...]
    progress: Callable[[str], None]

    @property
    def cuda(self) -> bool:
        return self.device.type == "cuda"


@dataclass(frozen=True)
class Timed:
    """A timing result: the median seconds of the timed runs, and how many runs and warm-ups it took."""

    median_s: float
    runs: int
    warmup: int

    def how(self) -> str:
        return f"median of {self.runs} after {self.warmup} warm-up"


def sync(device: torch.device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


SETTLE_RUNS = 5  # the runs whose spread decides that a measurement has settled
SETTLE_SPREAD = 0.03  # ... when max - min of them is within 3% of their median


def settled(times: list[float]) -> bool:
    """The last SETTLE_RUNS runs agree within SETTLE_SPREAD of their median: more runs would not move the median
    (bench --quick stops a measurement here instead of filling its time budget)."""
    if len(times) < SETTLE_RUNS:
        return False
    last = sorted(times[-SETTLE_RUNS:])
    return (last[-1] - last[0]) <= SETTLE_SPREAD * last[SETTLE_RUNS // 2]


def time_it(fn: Callable[[], Any], device: torch.device, warmup: int = 2, min_runs: int = 3, max_runs: int = 20,
            budget_s: float = 1.0, settle: bool = False) -> Timed:  # fmt: skip
    """Run fn warm-up times, then at least min_runs and at most max_runs timed runs, stopping once budget_s passed
    (or, with ``settle``, as soon as the runs agree: see settled)."""
    import torch

    for _ in range(warmup):
        fn()
    sync(device)
    times: list[float] = []
    deadline = time.perf_counter() + budget_s
    while len(times) < max_runs and (len(times) < min_runs or time.perf_counter() < deadline):
        if device.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1000.0)
        else:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        if settle and len(times) >= min_runs and settled(times):
            break
    return Timed(statistics.median(times), len(times), warmup)
