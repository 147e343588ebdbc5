"""The results of ``gpudoctor bench``: frozen dataclasses with a JSON round-trip (``--save`` / ``--compare``), no
framework import. A measurement is a number with its unit, or says why it was skipped (not applicable here) or
failed; judging adds the ratio to the GPU's spec and findings with their likely causes."""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass
from typing import Any, Union

from gpudoctor.errors import GpuDoctorError

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
}


class BenchFileError(GpuDoctorError):
    """A saved bench result that cannot be read (--compare)."""


@dataclass(frozen=True)
class Measurement:
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
    id: str  # stable kebab-case id, documented in docs/facts-format.md
    severity: str  # "info" | "warning" | "error"
    title: str
    evidence: tuple[str, ...] = ()
    fix: tuple[str, ...] = ()  # the exact steps or commands


@dataclass(frozen=True)
class DeviceResult:
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
class BenchReport:
    devices: tuple[DeviceResult, ...]
    quick: bool = False
    host: str | None = None  # the machine's name, for --compare
    matrix_reviewed: str | None = None
    wall_s: float | None = None
    schema: str = BENCH_SCHEMA

    @property
    def worst(self) -> str:
        order = {"info": 0, "warning": 1, "error": 2}
        severities = [f.severity for d in self.devices for f in d.findings]
        if any(d.error for d in self.devices):
            severities.append("error")
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
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BenchFileError(f"{path}: not UTF-8 text: not a saved gpudoctor bench result") from None
    except json.JSONDecodeError as exc:
        raise BenchFileError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except (RecursionError, ValueError) as exc:  # nesting too deep for the parser; an integer past int()'s digit limit
        raise BenchFileError(f"{path}: not a usable bench result ({type(exc).__name__})") from None
    return report_from_dict(data, path)


def report_from_dict(data: Any, origin: str) -> BenchReport:
    if not isinstance(data, dict) or data.get("schema") != BENCH_SCHEMA:
        raise BenchFileError(f"{origin}: not a saved gpudoctor bench result (schema {BENCH_SCHEMA})")
    try:
        return load_value(BenchReport, data, "")
    except (TypeError, ValueError) as exc:
        raise BenchFileError(f"{origin}: {exc}") from None


def load_value(tp: Any, value: Any, path: str) -> Any:
    """JSON -> the type hint ``tp`` (dataclasses, tuples, optionals, str, int, float, bool); unknown keys ignored."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return load_value(inner, value, path)
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ValueError(f"key '{path or '.'}' must be an object")
        hints = typing.get_type_hints(tp)
        kwargs = {f.name: load_value(hints[f.name], value[f.name], f"{path}.{f.name}".lstrip("."))
                  for f in dataclasses.fields(tp) if f.name in value}  # fmt: skip
        return tp(**kwargs)
    if origin is tuple:
        if not isinstance(value, list):
            raise ValueError(f"key '{path}' must be a list")
        inner = typing.get_args(tp)[0]
        return tuple(load_value(inner, item, f"{path}[{i}]") for i, item in enumerate(value))
    if tp is float and isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    if tp is int and isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**63:
        return value
    if tp in (str, bool) and isinstance(value, tp):
        return value
    raise ValueError(f"key '{path}' must be {getattr(tp, '__name__', tp)}, got {type(value).__name__}")
