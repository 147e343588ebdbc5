"""The results of ``gpudoctor bench``: frozen dataclasses with a JSON round-trip (``--save`` / ``--compare``), no
framework import. A measurement is a number with its unit, or says why it was skipped (not applicable here) or
failed; judging adds the ratio to the GPU's spec and findings with their likely causes."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from gpudoctor import jsontext
from gpudoctor.errors import GpuDoctorError, SnapshotError
from gpudoctor.snapshot import from_json_value

BENCH_SCHEMA = "gpudoctor.bench/1"
WORKER_SCHEMA = "gpudoctor.bench.worker/1"
PROGRESS_PREFIX = "@@gpudoctor-bench"  # the worker's "measuring X" lines

# The measurements, in report order: name -> (label, unit). A new measurement module (all-reduce, P2P) adds a name.
MEASUREMENTS = {
    "matmul-fp32": ("matmul fp32", "TFLOPS"),
    "matmul-tf32": ("matmul TF32", "TFLOPS"),
    "matmul-fp16": ("matmul fp16", "TFLOPS"),
    "matmul-bf16": ("matmul bf16", "TFLOPS"),
    "memory-copy": ("device memory copy", "GB/s"),
    "h2d-pageable": ("host->device, pageable", "GB/s"),
    "h2d-pinned": ("host->device, pinned", "GB/s"),
    "d2h-pageable": ("device->host, pageable", "GB/s"),
    "d2h-pinned": ("device->host, pinned", "GB/s"),
    "cnn-step": ("CNN training step", "ms"),
    "cnn-step-cpu": ("CNN training step on the CPU", "ms"),
    "largest-batch": ("largest CNN batch that fits", "samples"),
    "realistic-step": ("ResNet-18 step per 224x224 image", "ms"),
    "realistic-step-bf16": ("ResNet-18 step per image, bf16", "ms"),
    "realistic-step-cpu": ("ResNet-18 step per image on the CPU", "ms"),
    "realistic-sm-clock": ("SM clock during the ResNet-18 step", "MHz"),
    "realistic-utilisation": ("GPU utilisation during it", "%"),
}


class BenchFileError(GpuDoctorError):
    """A saved bench result that cannot be read (--compare)."""


@dataclass(frozen=True)
class Measurement:
    """One bench figure on one device (a matmul's TFLOPS, a copy's GB/s), or why it was skipped or failed."""

    name: str  # a key of MEASUREMENTS
    value: float | None = None  # None: not measured (see skipped / error)
    detail: str = ""  # how: "8192x8192, median of 10 after 3 warm-up"
    skipped: str | None = None  # why it does not apply here
    error: str | None = None  # why it failed

    @property
    def label(self) -> str:
        return MEASUREMENTS.get(self.name, (self.name, ""))[0]

    @property
    def unit(self) -> str:
        return MEASUREMENTS.get(self.name, ("", ""))[1]


@dataclass(frozen=True)
class GpuState:
    """What NVML reported about the GPU while the measurements ran (None = unknown)."""

    throttle_reasons: tuple[str, ...] | None = None  # every reason seen in any sample: "power cap", "thermal", ...
    sm_clock_mhz: int | None = None  # the lowest SM clock sampled under load
    sm_clock_max_mhz: int | None = None
    pcie_gen_current: int | None = None  # the lowest generation sampled under load
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    power_limit_w: float | None = None
    power_default_limit_w: float | None = None
    persistence_mode: bool | None = None
    temperature_c: int | None = None  # the highest sampled
    other_processes: tuple[str, ...] | None = None  # "pid 4242 (python, 20480 MiB)"; empty: none


@dataclass(frozen=True)
class Judged:
    """One measurement against the spec: "bf16 matmul 610 TFLOPS = 62% of the 989 TFLOPS peak (dense)"."""

    name: str
    value: float
    unit: str
    peak: float | None = None
    ratio: float | None = None
    text: str = ""


@dataclass(frozen=True)
class BenchFinding:
    """A problem bench found on a device, with its stable id, the evidence and the exact fix."""

    id: str  # stable kebab-case id, documented in docs/facts-format.md
    severity: str  # "info" | "warning" | "error"
    title: str
    evidence: tuple[str, ...] = ()
    fix: tuple[str, ...] = ()  # the exact steps or commands


@dataclass(frozen=True)
class DeviceResult:
    """What bench learned on one device: what it is, its figures judged against the spec, findings, the GPU's state."""

    device: str  # "cuda:0" | "cpu"
    device_name: str | None = None
    compute_capability: str | None = None
    spec_name: str | None = None  # the matrix row judged against; None: no sourced spec for this GPU
    note: str | None = None  # why it ran where it ran ("no CUDA device is visible: measured on the CPU")
    measurements: tuple[Measurement, ...] = ()
    judged: tuple[Judged, ...] = ()
    findings: tuple[BenchFinding, ...] = ()
    state: GpuState | None = None
    error: str | None = None  # the child failed (timeout, crash): what happened
    pci_bus_id: str | None = None  # as NVML writes it (nvidia-smi -i accepts it)
    framework_version: str | None = None
    wall_s: float | None = None  # the child process, start-up and import included
    measure_s: float | None = None  # the measurements alone, as the child timed them

    def measurement(self, name: str) -> Measurement | None:
        return next((m for m in self.measurements if m.name == name), None)


@dataclass(frozen=True)
class PeerLink:
    """One ordered GPU pair: how ``nvidia-smi topo -m`` says it is linked and what NVML says of P2P (None: unknown)."""

    a: int
    b: int
    link: str | None = None  # "NV12" | "PIX" | "PXB" | "PHB" | "NODE" | "SYS"
    p2p_read: str | None = None  # "ok" | "GPU not supported" | ... (topology.NVML_P2P_STATUS's words)
    p2p_write: str | None = None
    p2p_nvlink: str | None = None


@dataclass(frozen=True)
class Interconnect:
    """bench across devices: the all-reduce bus bandwidth (nccl-tests' definition) over every GPU (NCCL), or over
    N gloo processes on the CPU, and what the topology says it should reach."""

    ranks: int
    backend: str  # "nccl" | "gloo"
    busbw_gbs: float | None = None
    algbw_gbs: float | None = None
    nbytes: int | None = None
    error: str | None = None  # the launch failed or hung: what happened
    expected_gbs: float | None = None  # None: no sourced figure for this topology (always on the CPU)
    expected_basis: str | None = None  # how the expectation was made: "NVLink 900 GB/s both ways / 2 (H100 ...)"
    ratio: float | None = None
    links: tuple[PeerLink, ...] = ()
    findings: tuple[BenchFinding, ...] = ()
    wall_s: float | None = None


@dataclass(frozen=True)
class ToolVerdict:
    """What one of NVIDIA's own tools concluded (dcgmi diag, all_reduce_perf, nvbandwidth): its verdict, not ours."""

    tool: str  # "dcgmi diag" | "all_reduce_perf" | "nvbandwidth"
    command: str
    verdict: str  # "pass" | "warn" | "fail" | "error" (it ran but failed or printed nothing gpudoctor can read)
    summary: str
    details: tuple[str, ...] = ()  # per test / per figure lines
    value: float | None = None  # the headline figure where the tool prints one (GB/s)


@dataclass(frozen=True)
class BenchReport:
    """A whole `gpudoctor bench` run: each device's result, the interconnect figure and NVIDIA's tools' verdicts."""

    devices: tuple[DeviceResult, ...]
    quick: bool = False
    host: str | None = None  # the machine's name, for --compare
    matrix_reviewed: str | None = None
    wall_s: float | None = None
    schema: str = BENCH_SCHEMA
    interconnect: Interconnect | None = None  # None: not measured (one device, and no --nproc)
    nvidia_tools: tuple[ToolVerdict, ...] = ()  # the tools that are installed here and ran

    @property
    def worst(self) -> str:
        order = {"info": 0, "warning": 1, "error": 2}
        severities = [f.severity for d in self.devices for f in d.findings]
        if any(d.error for d in self.devices):
            severities.append("error")
        if self.interconnect is not None:
            severities += [f.severity for f in self.interconnect.findings]
        severities += [{"fail": "error", "warn": "warning"}[t.verdict] for t in self.nvidia_tools
                       if t.verdict in ("fail", "warn")]  # fmt: skip
        return max(severities, key=order.__getitem__, default="ok")


def to_dict(value: Any) -> Any:
    if dataclasses.is_dataclass(value):
        return {f.name: to_dict(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [to_dict(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# A saved result is a few kB: reading stops here, so /dev/zero or a runaway file is an error line, not all memory.
MAX_SAVED_BYTES = 16 * 1024 * 1024


def read_saved(path: str) -> BenchReport:
    """A result written by ``bench --save``; BenchFileError (one line) for anything else: unreadable, too large, not
    UTF-8 or JSON, nested or numbered past what the JSON reader takes, or not a bench result."""
    import json

    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_SAVED_BYTES + 1)
    except OSError as exc:
        raise BenchFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_SAVED_BYTES:
        raise BenchFileError(f"{path}: larger than {MAX_SAVED_BYTES // 2**20} MiB: not a saved gpudoctor bench result")
    try:
        data = jsontext.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BenchFileError(f"{path}: not UTF-8 text: not a saved gpudoctor bench result") from None
    except json.JSONDecodeError as exc:
        raise BenchFileError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except jsontext.TooDeep:
        raise BenchFileError(f"{path}: JSON nested too deeply to be a bench result") from None
    except ValueError as exc:  # an integer past int()'s digit limit
        raise BenchFileError(f"{path}: not a usable bench result ({type(exc).__name__})") from None
    return report_from_dict(data, path)


def report_from_dict(data: Any, origin: str) -> BenchReport:
    if not isinstance(data, dict) or data.get("schema") != BENCH_SCHEMA:
        raise BenchFileError(f"{origin}: not a saved gpudoctor bench result (schema {BENCH_SCHEMA})")
    try:
        return from_json_value(BenchReport, data)
    except SnapshotError as exc:
        raise BenchFileError(f"{origin}: {exc}") from None


