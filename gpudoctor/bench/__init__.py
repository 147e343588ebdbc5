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

from gpudoctor.bench.model import BenchReport, DeviceResult
from gpudoctor.digits import ascii_int

if TYPE_CHECKING:
    from gpudoctor.matrix.tables.model import Matrix
    from gpudoctor.runner import Runner, Spawner

DEFAULT_TIMEOUT_S = 120.0
QUICK_TIMEOUT_S = 45.0


@dataclass(frozen=True)
class BenchOptions:
    """What `gpudoctor bench` was asked for: the device, quick or full, time limit, multi-GPU and NVIDIA-tool runs."""

    device: str = "auto"  # "auto" (every visible GPU in turn, else the CPU) | "cpu" | "cuda:N"
    quick: bool = False
    timeout_s: float | None = None  # None: the default for the mode
    gpus: int | None = None  # visible GPUs (NVML narrowed by CUDA_VISIBLE_DEVICES); None: unknown
    nproc: int | None = None  # the all-reduce with N gloo processes on the CPU (--nproc)
    nvidia_tools: bool = True  # run dcgmi diag / all_reduce_perf / nvbandwidth where installed (GPUs only)

    def devices(self) -> tuple[str, ...]:
        """auto with two or more visible GPUs: each of them, one child after the other."""
        if self.device == "auto" and self.gpus is not None and self.gpus > 1:
            return tuple(f"cuda:{i}" for i in range(self.gpus))
        return (self.device,)

    def across(self) -> tuple[int, str] | None:
        """(ranks, backend) for the all-reduce, or None: every GPU with NCCL, or --nproc gloo ranks on the CPU."""
        if self.nproc is not None:
            return self.nproc, "gloo"
        if self.device == "auto" and self.gpus is not None and self.gpus > 1:
            return self.gpus, "nccl"
        return None

    @property
    def timeout(self) -> float:
        return self.timeout_s or (QUICK_TIMEOUT_S if self.quick else DEFAULT_TIMEOUT_S)


def run_bench(options: BenchOptions, matrix: Matrix, spawner: Spawner | None = None, nvml: Any | None = None,
              on_progress: Callable[[str], None] | None = None, host: str | None = None,
              runner: Runner | None = None) -> BenchReport:  # fmt: skip
    """Measure each device in its own child process, one after the other, while NVML is sampled here; then the
    all-reduce across them and NVIDIA's own tools where installed; judge every figure."""
    from gpudoctor.matrix.tables.gpu_specs import GpuSpecTable

    table = matrix.gpu_specs or GpuSpecTable()
    start = time.perf_counter()
    devices = tuple(_bench_device(d, options, table, spawner, nvml, on_progress) for d in options.devices())
    across = None
    if options.across() is not None:
        from gpudoctor.bench.across import measure_across

        if on_progress is not None:
            on_progress("the all-reduce across devices")
        ranks, backend = options.across()  # type: ignore[misc]
        gpu = next((d for d in devices if d.device.startswith("cuda")), None)
        spec = table.for_name(gpu.device_name) if gpu is not None else None
        across = measure_across(ranks, backend, options.timeout, table, spec, spawner, runner,
                                _nvml_ready(nvml) if backend == "nccl" else None)  # fmt: skip
    tools: tuple = ()
    if options.nvidia_tools and any(d.device.startswith("cuda") for d in devices):
        from gpudoctor.bench.nvidia_tools import probe_nvidia_tools
        from gpudoctor.runner import SubprocessRunner

        tools = probe_nvidia_tools(runner or SubprocessRunner(), options.gpus or 1)
    return BenchReport(devices, options.quick, host, matrix.reviewed, time.perf_counter() - start, interconnect=across,
                       nvidia_tools=tools)  # fmt: skip


def _nvml_ready(nvml: Any | None) -> Any | None:
    """An initialised NVML binding for the P2P probe, or None (no driver, no binding: P2P unknown)."""
    try:
        if nvml is None:
            from gpudoctor.probes.nvml import _import_pynvml

            nvml = _import_pynvml()
        nvml.nvmlInit()
        return nvml
    except Exception:  # noqa: BLE001 - unknown, not an error
        return None


def _bench_device(device: str, options: BenchOptions, table: Any, spawner: Spawner | None, nvml: Any | None,
                  on_progress: Callable[[str], None] | None) -> DeviceResult:  # fmt: skip
    from gpudoctor.bench.assess import judge
    from gpudoctor.bench.child import run_device
    from gpudoctor.bench.sampler import NvmlSampler

    if on_progress is not None and len(options.devices()) > 1:
        on_progress(f"{device}:")
    sampler = NvmlSampler(nvml) if device != "cpu" else None
    if sampler is not None:
        with sampler:
            result, bus_id = run_device(device, options.quick, dict(table.tensor_min_cc), options.timeout,
                                        on_progress, spawner)  # fmt: skip
    else:
        result, bus_id = run_device(device, options.quick, dict(table.tensor_min_cc), options.timeout, on_progress,
                                    spawner)  # fmt: skip
    state = None
    if sampler is not None and result.device.startswith("cuda"):
        state = sampler.state(bus_id, index=_index(result.device))
    if bus_id is not None:
        import dataclasses

        result = dataclasses.replace(result, pci_bus_id=bus_id)
    spec = table.for_name(result.device_name) if result.device.startswith("cuda") else None
    return judge(result, spec, table, state)


def _index(device: str) -> int | None:
    """cuda:N -> N: NVML's index is the same only where CUDA_VISIBLE_DEVICES does not reorder, hence the bus id first."""
    tail = device.partition(":")[2]
    return ascii_int(tail, 9)


__all__ = ["BenchOptions", "run_bench", "DEFAULT_TIMEOUT_S", "QUICK_TIMEOUT_S"]
