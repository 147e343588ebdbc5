"""What NVML says about a GPU while it works: clock throttle reasons, SM clock, PCIe link (current vs max), power
limit vs default, persistence mode, temperature, other processes. ``gpudoctor bench`` samples it during its
measurements (a throttle reason or a down-trained link at idle means nothing; under load it explains a slow figure).
Observes only; the calls go through probes/nvml.py's helpers (an unsupported call is unknown, never an error)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpudoctor.probes.nvml_calls import _call, _field, _int, _str, _Unavailable

# NVML's clocks-event (throttle) reason bits (nvml.h: nvmlClocksEventReason*), named for people. GpuIdle,
# ApplicationsClocksSetting and DisplayClockSetting are not slowdowns of a busy GPU and are left out.
THROTTLE_REASONS = (
    (0x4, "power cap (software power limit)"),
    (0x8, "hardware slowdown (power brake or overheating)"),
    (0x10, "sync boost (held to the slowest GPU of its group)"),
    (0x20, "thermal (software thermal slowdown)"),
    (0x40, "thermal (hardware thermal slowdown)"),
    (0x80, "power brake (external power brake signal)"),
)
_SM_CLOCK = 1  # NVML_CLOCK_SM
_GPU_TEMPERATURE = 0  # NVML_TEMPERATURE_GPU


@dataclass(frozen=True)
class Sample:
    """One GPU's NVML state at one moment: throttle reasons, clocks, PCIe link, power limit, temperature, processes."""

    index: int
    bus_id: str | None = None
    throttle_reasons: tuple[str, ...] | None = None
    sm_clock_mhz: int | None = None
    sm_clock_max_mhz: int | None = None
    pcie_gen: int | None = None
    pcie_gen_max: int | None = None
    pcie_width: int | None = None
    pcie_width_max: int | None = None
    power_limit_w: float | None = None
    power_default_limit_w: float | None = None
    persistence_mode: bool | None = None
    temperature_c: int | None = None
    processes: tuple[tuple[int, int | None], ...] | None = None  # (pid, used MiB)


def throttle_names(mask: Any) -> tuple[str, ...] | None:
    if _int(mask) is None:
        return None
    return tuple(name for bit, name in THROTTLE_REASONS if mask & bit)


def _watts(value: Any) -> float | None:
    milliwatts = _int(value)
    return milliwatts / 1000 if milliwatts is not None else None


def _throttle(nvml: Any, handle: Any) -> tuple[str, ...] | None:
    for function in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
        try:
            return throttle_names(_call(nvml, function, handle))
        except _Unavailable:
            continue
    return None


def _processes(nvml: Any, handle: Any) -> tuple[tuple[int, int | None], ...] | None:
    found = _field(nvml, list, "nvmlDeviceGetComputeRunningProcesses", handle)
    if found is None:
        return None
    used = [(getattr(p, "pid", None), getattr(p, "usedGpuMemory", None)) for p in found]
    return tuple((pid, mem // (1024 * 1024) if _int(mem) is not None else None) for pid, mem in used if _int(pid) is not None)


def sample(nvml: Any, index: int) -> Sample:
    """One reading of GPU ``index`` from an initialised NVML (pynvml or a fake with its API)."""
    try:
        handle = _call(nvml, "nvmlDeviceGetHandleByIndex", index)
    except _Unavailable:
        return Sample(index)
    persistence = _field(nvml, _int, "nvmlDeviceGetPersistenceMode", handle)
    return Sample(
        index=index,
        bus_id=_field(nvml, lambda info: _str(getattr(info, "busId", None)), "nvmlDeviceGetPciInfo", handle),
        throttle_reasons=_throttle(nvml, handle),
        sm_clock_mhz=_field(nvml, _int, "nvmlDeviceGetClockInfo", handle, _SM_CLOCK),
        sm_clock_max_mhz=_field(nvml, _int, "nvmlDeviceGetMaxClockInfo", handle, _SM_CLOCK),
        pcie_gen=_field(nvml, _int, "nvmlDeviceGetCurrPcieLinkGeneration", handle),
        pcie_gen_max=_field(nvml, _int, "nvmlDeviceGetMaxPcieLinkGeneration", handle),
        pcie_width=_field(nvml, _int, "nvmlDeviceGetCurrPcieLinkWidth", handle),
        pcie_width_max=_field(nvml, _int, "nvmlDeviceGetMaxPcieLinkWidth", handle),
        power_limit_w=_field(nvml, _watts, "nvmlDeviceGetPowerManagementLimit", handle),
        power_default_limit_w=_field(nvml, _watts, "nvmlDeviceGetPowerManagementDefaultLimit", handle),
        persistence_mode=None if persistence is None else persistence == 1,
        temperature_c=_field(nvml, _int, "nvmlDeviceGetTemperature", handle, _GPU_TEMPERATURE),
        processes=_processes(nvml, handle),
    )


def sample_all(nvml: Any) -> list[Sample]:
    try:
        count = _int(_call(nvml, "nvmlDeviceGetCount")) or 0
    except _Unavailable:
        return []
    return [sample(nvml, i) for i in range(count)]
