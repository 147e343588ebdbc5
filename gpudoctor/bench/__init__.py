"""``gpudoctor bench``: is this GPU as fast as it should be? Measures, in a child process with a timeout, dense matmul
per precision, device memory bandwidth, host<->device copies, the CNN smoke model's training step on the GPU and
on the CPU, and the largest batch that fits; judges each figure against the GPU's sourced spec (matrices/gpus.toml)
with pure functions (assess). Without a GPU the same measurements run on the CPU, and the report says so.

Importing this package imports no framework: only the child (gpudoctor.bench.worker) imports torch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from gpudoctor.bench.model import BenchReport

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Matrix
    from gpudoctor.runner import Spawner

DEFAULT_TIMEOUT_S = 120.0
QUICK_TIMEOUT_S = 45.0


@dataclass(frozen=True)
class BenchOptions:
    device: str = "auto"  # "auto" | "cpu" | "cuda:N"
    quick: bool = False
    timeout_s: float | None = None  # None: the default for the mode

    @property
    def timeout(self) -> float:
        return self.timeout_s or (QUICK_TIMEOUT_S if self.quick else DEFAULT_TIMEOUT_S)


def run_bench(options: BenchOptions, matrix: Matrix, spawner: Spawner | None = None, nvml: Any | None = None,
              on_progress: Callable[[str], None] | None = None, host: str | None = None) -> BenchReport:  # fmt: skip
    """Measure one device in a child process while NVML is sampled here, then judge the figures."""
    from gpudoctor.bench.assess import judge
    from gpudoctor.bench.child import run_device
    from gpudoctor.bench.sampler import NvmlSampler
    from gpudoctor.matrix.gpu_specs import GpuSpecTable

    table = matrix.gpu_specs or GpuSpecTable()
    start = time.perf_counter()
    sampler = NvmlSampler(nvml) if options.device != "cpu" else None
    if sampler is not None:
        with sampler:
            result, bus_id = run_device(options.device, options.quick, dict(table.tensor_min_cc), options.timeout,
                                        on_progress, spawner)  # fmt: skip
    else:
        result, bus_id = run_device(options.device, options.quick, dict(table.tensor_min_cc), options.timeout,
                                    on_progress, spawner)  # fmt: skip
    state = None
    if sampler is not None and result.device.startswith("cuda"):
        state = sampler.state(bus_id, index=_index(result.device))
    if bus_id is not None:
        import dataclasses

        result = dataclasses.replace(result, pci_bus_id=bus_id)
    spec = table.for_name(result.device_name) if result.device.startswith("cuda") else None
    judged = judge(result, spec, table, state)
    return BenchReport((judged,), options.quick, host, matrix.reviewed, time.perf_counter() - start)


def _index(device: str) -> int | None:
    """cuda:N -> N: NVML's index is the same only where CUDA_VISIBLE_DEVICES does not reorder, hence the bus id first."""
    tail = device.partition(":")[2]
    return int(tail) if tail.isdigit() else None


__all__ = ["BenchOptions", "run_bench", "DEFAULT_TIMEOUT_S", "QUICK_TIMEOUT_S"]
