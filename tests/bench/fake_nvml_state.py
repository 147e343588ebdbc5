"""The probes' fake NVML (tests/probes/fake_pynvml.py: pynvml's names, real exception classes) with the calls bench
samples while it measures: clock throttle (event) reasons, SM clocks, power limits, persistence, temperature. The
values are pynvml's units: milliwatts, MHz, the nvmlClocksEventReason* bit mask."""

from __future__ import annotations

from dataclasses import dataclass

import pynvml

from tests.probes.fake_pynvml import FakeGpu, FakeNvml


@dataclass
class BusyGpu(FakeGpu):
    throttle_mask: int = 0
    sm_clock: int = 1980
    sm_clock_max: int = 1980
    power_limit_mw: int = 700_000
    power_default_mw: int = 700_000
    persistence: int = 1
    temperature: int = 60


class BusyNvml(FakeNvml):
    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: BusyGpu) -> int:
        self._enter("nvmlDeviceGetCurrentClocksEventReasons", handle)
        return handle.throttle_mask

    def nvmlDeviceGetClockInfo(self, handle: BusyGpu, clock_type: int) -> int:
        self._enter("nvmlDeviceGetClockInfo", handle)
        return handle.sm_clock

    def nvmlDeviceGetMaxClockInfo(self, handle: BusyGpu, clock_type: int) -> int:
        self._enter("nvmlDeviceGetMaxClockInfo", handle)
        return handle.sm_clock_max

    def nvmlDeviceGetPowerManagementLimit(self, handle: BusyGpu) -> int:
        self._enter("nvmlDeviceGetPowerManagementLimit", handle)
        return handle.power_limit_mw

    def nvmlDeviceGetPowerManagementDefaultLimit(self, handle: BusyGpu) -> int:
        self._enter("nvmlDeviceGetPowerManagementDefaultLimit", handle)
        return handle.power_default_mw

    def nvmlDeviceGetPersistenceMode(self, handle: BusyGpu) -> int:
        self._enter("nvmlDeviceGetPersistenceMode", handle)
        return handle.persistence

    def nvmlDeviceGetTemperature(self, handle: BusyGpu, sensor: int) -> int:
        self._enter("nvmlDeviceGetTemperature", handle)
        return handle.temperature


def h100(**changes) -> BusyGpu:
    fields = {"name": "NVIDIA H100 80GB HBM3", "compute_capability": (9, 0), "memory_total": 81559 * 1024 * 1024,
              "pcie": (5, 5, 16, 16), **changes}
    return BusyGpu(**fields)


POWER_CAP = pynvml.nvmlClocksEventReasonSwPowerCap
THERMAL = pynvml.nvmlClocksEventReasonHwThermalSlowdown
IDLE = pynvml.nvmlClocksEventReasonGpuIdle
NOT_SUPPORTED = pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
