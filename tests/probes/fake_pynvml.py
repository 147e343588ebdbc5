"""A fake NVML with the real pynvml's API: the same function names, the same constants and the *real* exception
classes (taken from the installed pynvml), so probe_nvml catches exactly what it would in production.

Each FakeGpu is also its own NVML handle. A function listed in ``FakeGpu.fail`` raises the given exception for that
GPU only; a name in ``FakeNvml(missing=...)`` does not exist at all, like a function an older binding lacks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pynvml

MIB = 1024 * 1024
# A pid no Linux system hands out (pid_max is at most 4194304): "running, but not visible from here".
INVISIBLE_PID = 4_194_999


@dataclass
class FakeGpu:
    name: str = "NVIDIA GeForce RTX 4090"
    uuid: str = "GPU-5a1c2f0e-8d4b-4e39-9a51-0c3b7d2e9f41"
    bus_id: str = "00000000:01:00.0"
    compute_capability: tuple[int, int] = (8, 9)
    memory_total: int = 24564 * MIB
    memory_used: int = 412 * MIB
    pcie: tuple[int, int, int, int] = (4, 4, 16, 16)  # gen current, gen max, width current, width max
    mig_mode: tuple[int, int] | None = None  # None: no MIG on this GPU (NotSupported), like every GeForce
    mig_slots: list[str | None] = field(default_factory=list)  # MIG device UUIDs by slot; None: an empty slot
    ecc_uncorrected: int | None = None  # None: no ECC (NotSupported), like every GeForce
    compute_processes: list[tuple[int, int | None]] = field(default_factory=list)  # (pid, usedGpuMemory bytes)
    graphics_processes: list[tuple[int, int | None]] = field(default_factory=list)
    fail: dict[str, BaseException] = field(default_factory=dict)
    # Node health (probes/nvml_health.py). None: NotSupported on this GPU, as on a GeForce for most of them.
    utilization: int | None = None  # percent busy
    persistence: int | None = None  # NVML_FEATURE_ENABLED (1) / DISABLED (0)
    display_active: int | None = None
    clock_reasons: int | None = None  # nvmlClocksEventReason* bit mask
    power_limit_mw: int | None = None
    power_default_mw: int | None = None
    retired_pages: dict[int, list[int]] | None = None  # cause -> page addresses (pre-Ampere ECC GPUs)
    retired_pending: int | None = None
    remapped_rows: tuple[int, int, int, int] | None = None  # corrected, uncorrected, pending, failure (Ampere+)
    nvlink_states: list[int] | None = None  # one entry per link the GPU has
    fabric_state: int | None = None  # NVML_GPU_FABRIC_STATE_*; None: no fabric (NotSupported)


class FakeNvml:
    def __init__(
        self,
        gpus: list[FakeGpu] | None = None,
        driver_version: str = "570.124.04",
        cuda_version: int = 12080,
        init_error: BaseException | None = None,
        fail: dict[str, BaseException] | None = None,
        missing: tuple[str, ...] = (),
        bytes_strings: bool = False,
    ):
        # The real constants and exception classes, so `except nvml.NVMLError_NotSupported` means what it says.
        for name in dir(pynvml):
            if name.startswith(("NVML_", "NVMLError", "c_nvml", "nvmlClocks")) or name == "NVMLLibraryMismatchError":
                setattr(self, name, getattr(pynvml, name))
        self._gpus = list(gpus or [])
        self._driver_version = driver_version
        self._cuda_version = cuda_version
        self._init_error = init_error
        self._fail = dict(fail or {})
        self._missing = frozenset(missing)
        self._bytes = bytes_strings  # nvidia-ml-py < 11.515.48 returned bytes
        self.init_calls = 0
        self.shutdown_calls = 0
        self.initialised = False

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("_") and name in object.__getattribute__(self, "_missing"):
            raise AttributeError(name)
        return object.__getattribute__(self, name)

    # -- plumbing ------------------------------------------------------------------------------------------------

    def _enter(self, function: str, handle: FakeGpu | None = None) -> None:
        if not self.initialised:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_UNINITIALIZED)
        failure = (handle.fail if handle is not None else self._fail).get(function)
        if failure is not None:
            raise failure

    def _s(self, text: str) -> str | bytes:
        return text.encode() if self._bytes else text

    @staticmethod
    def _procs(entries: list[tuple[int, int | None]]) -> list[Any]:
        return [
            pynvml.nvmlFriendlyObject(
                {"pid": pid, "usedGpuMemory": used, "gpuInstanceId": 0xFFFFFFFF, "computeInstanceId": 0xFFFFFFFF}
            )
            for pid, used in entries
        ]

    # -- pynvml's API --------------------------------------------------------------------------------------------

    def nvmlInit(self) -> None:
        self.init_calls += 1
        if self._init_error is not None:
            raise self._init_error
        self.initialised = True

    def nvmlShutdown(self) -> None:
        self._enter("nvmlShutdown")
        self.shutdown_calls += 1
        self.initialised = False

    def nvmlSystemGetDriverVersion(self) -> str | bytes:
        self._enter("nvmlSystemGetDriverVersion")
        return self._s(self._driver_version)

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        self._enter("nvmlSystemGetCudaDriverVersion")
        return self._cuda_version

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        self._enter("nvmlSystemGetCudaDriverVersion_v2")
        return self._cuda_version

    def nvmlDeviceGetCount(self) -> int:
        self._enter("nvmlDeviceGetCount")
        return len(self._gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> FakeGpu:
        self._enter("nvmlDeviceGetHandleByIndex")
        if not 0 <= index < len(self._gpus):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        gpu = self._gpus[index]
        failure = gpu.fail.get("nvmlDeviceGetHandleByIndex")
        if failure is not None:
            raise failure
        return gpu

    def nvmlDeviceGetName(self, handle: FakeGpu) -> str | bytes:
        self._enter("nvmlDeviceGetName", handle)
        return self._s(handle.name)

    def nvmlDeviceGetUUID(self, handle: FakeGpu) -> str | bytes:
        self._enter("nvmlDeviceGetUUID", handle)
        return self._s(handle.uuid)

    def nvmlDeviceGetPciInfo(self, handle: FakeGpu) -> Any:
        self._enter("nvmlDeviceGetPciInfo", handle)
        if self._bytes:
            return pynvml.nvmlFriendlyObject({"busId": handle.bus_id.encode(), "busIdLegacy": b""})
        info = pynvml.nvmlPciInfo_t()
        info.busId = handle.bus_id
        return info

    def nvmlDeviceGetCudaComputeCapability(self, handle: FakeGpu) -> tuple[int, int]:
        self._enter("nvmlDeviceGetCudaComputeCapability", handle)
        return handle.compute_capability

    def nvmlDeviceGetMemoryInfo(self, handle: FakeGpu, version: Any = None) -> Any:
        self._enter("nvmlDeviceGetMemoryInfo", handle)
        return pynvml.c_nvmlMemory_t(
            total=handle.memory_total, free=handle.memory_total - handle.memory_used, used=handle.memory_used
        )

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: FakeGpu) -> int:
        self._enter("nvmlDeviceGetCurrPcieLinkGeneration", handle)
        return handle.pcie[0]

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: FakeGpu) -> int:
        self._enter("nvmlDeviceGetMaxPcieLinkGeneration", handle)
        return handle.pcie[1]

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: FakeGpu) -> int:
        self._enter("nvmlDeviceGetCurrPcieLinkWidth", handle)
        return handle.pcie[2]

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: FakeGpu) -> int:
        self._enter("nvmlDeviceGetMaxPcieLinkWidth", handle)
        return handle.pcie[3]

    def nvmlDeviceGetMigMode(self, handle: FakeGpu) -> list[int]:
        self._enter("nvmlDeviceGetMigMode", handle)
        if handle.mig_mode is None:
            raise pynvml.NVMLError_NotSupported()
        return list(handle.mig_mode)

    def nvmlDeviceGetMaxMigDeviceCount(self, handle: FakeGpu) -> int:
        self._enter("nvmlDeviceGetMaxMigDeviceCount", handle)
        if handle.mig_mode is None:
            raise pynvml.NVMLError_NotSupported()
        return len(handle.mig_slots)

    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle: FakeGpu, index: int) -> FakeGpu:
        self._enter("nvmlDeviceGetMigDeviceHandleByIndex", handle)
        uuid = handle.mig_slots[index]
        if uuid is None:
            raise pynvml.NVMLError_NotFound()
        return FakeGpu(name=f"{handle.name} MIG", uuid=uuid)

    def nvmlDeviceGetTotalEccErrors(self, handle: FakeGpu, errorType: int, counterType: int) -> int:
        self._enter("nvmlDeviceGetTotalEccErrors", handle)
        if (errorType, counterType) != (pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_VOLATILE_ECC):
            raise AssertionError(f"unexpected ECC counter asked for: {errorType}, {counterType}")
        if handle.ecc_uncorrected is None:
            raise pynvml.NVMLError_NotSupported()
        return handle.ecc_uncorrected

    def nvmlDeviceGetComputeRunningProcesses(self, handle: FakeGpu) -> list[Any]:
        self._enter("nvmlDeviceGetComputeRunningProcesses", handle)
        return self._procs(handle.compute_processes)

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: FakeGpu) -> list[Any]:
        self._enter("nvmlDeviceGetGraphicsRunningProcesses", handle)
        return self._procs(handle.graphics_processes)


    # -- node health ------------------------------------------------------------------------------------------------

    def _health(self, function: str, handle: FakeGpu, value: Any) -> Any:
        self._enter(function, handle)
        if value is None:
            raise pynvml.NVMLError_NotSupported()
        return value

    def nvmlDeviceGetUtilizationRates(self, handle: FakeGpu) -> Any:
        busy = self._health("nvmlDeviceGetUtilizationRates", handle, handle.utilization)
        return pynvml.c_nvmlUtilization_t(gpu=busy, memory=0)

    def nvmlDeviceGetPersistenceMode(self, handle: FakeGpu) -> int:
        return self._health("nvmlDeviceGetPersistenceMode", handle, handle.persistence)

    def nvmlDeviceGetDisplayActive(self, handle: FakeGpu) -> int:
        return self._health("nvmlDeviceGetDisplayActive", handle, handle.display_active)

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: FakeGpu) -> int:
        return self._health("nvmlDeviceGetCurrentClocksEventReasons", handle, handle.clock_reasons)

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle: FakeGpu) -> int:
        return self._health("nvmlDeviceGetCurrentClocksThrottleReasons", handle, handle.clock_reasons)

    def nvmlDeviceGetPowerManagementLimit(self, handle: FakeGpu) -> int:
        return self._health("nvmlDeviceGetPowerManagementLimit", handle, handle.power_limit_mw)

    def nvmlDeviceGetPowerManagementDefaultLimit(self, handle: FakeGpu) -> int:
        return self._health("nvmlDeviceGetPowerManagementDefaultLimit", handle, handle.power_default_mw)

    def nvmlDeviceGetRetiredPages(self, device: FakeGpu, sourceFilter: int) -> list[int]:
        pages = self._health("nvmlDeviceGetRetiredPages", device, device.retired_pages)
        return list(pages.get(sourceFilter, []))

    def nvmlDeviceGetRetiredPagesPendingStatus(self, device: FakeGpu) -> int:
        return self._health("nvmlDeviceGetRetiredPagesPendingStatus", device, device.retired_pending)

    def nvmlDeviceGetRemappedRows(self, device: FakeGpu) -> tuple[int, int, int, int]:
        return self._health("nvmlDeviceGetRemappedRows", device, device.remapped_rows)

    def nvmlDeviceGetNvLinkState(self, device: FakeGpu, link: int) -> int:
        states = self._health("nvmlDeviceGetNvLinkState", device, device.nvlink_states)
        if link >= len(states):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)  # no such link on this GPU
        return states[link]

    def nvmlDeviceGetGpuFabricInfo(self, device: FakeGpu, gpuFabricInfo: Any) -> int:
        state = self._health("nvmlDeviceGetGpuFabricInfo", device, device.fabric_state)
        gpuFabricInfo._obj.state = state  # pynvml passes the caller's byref(c_nvmlGpuFabricInfo_t()) to NVML
        return pynvml.NVML_SUCCESS


# -- scenarios ---------------------------------------------------------------------------------------------------


def healthy_rtx_4090() -> FakeNvml:
    """One GeForce RTX 4090 on driver 570.124.04 (CUDA 12.8): no ECC, no MIG, a visible and an invisible process."""
    gpu = FakeGpu(
        compute_processes=[(os.getpid(), 20000 * MIB), (INVISIBLE_PID, 1024 * MIB)],
        graphics_processes=[(os.getpid(), 20000 * MIB)],  # a C+G process is listed twice
    )
    return FakeNvml([gpu])


def two_a100s_one_with_mig() -> FakeNvml:
    """Two A100-SXM4-80GB on driver 535.54.03 (CUDA 12.2): the first in MIG mode, the second with ECC errors."""
    mig = FakeGpu(
        name="NVIDIA A100-SXM4-80GB",
        uuid="GPU-513536b6-7d19-9063-b049-1e69664bb298",
        bus_id="00000000:07:00.0",
        compute_capability=(8, 0),
        memory_total=81920 * MIB,
        memory_used=50 * MIB,
        mig_mode=(1, 1),
        ecc_uncorrected=0,
        # In MIG mode NVML cannot attribute memory to a process: NVML_VALUE_NOT_AVAILABLE, which pynvml makes None.
        compute_processes=[(INVISIBLE_PID, None)],
    )
    plain = FakeGpu(
        name="NVIDIA A100-SXM4-80GB",
        uuid="GPU-1f0a6a42-1b5e-2c47-93a0-6d8de1c6ab20",
        bus_id="00000000:0F:00.0",
        compute_capability=(8, 0),
        memory_total=81920 * MIB,
        memory_used=0,
        pcie=(4, 4, 8, 16),
        mig_mode=(0, 0),
        ecc_uncorrected=2,
    )
    return FakeNvml([mig, plain], driver_version="535.54.03", cuda_version=12020)


def failing_init(code: int) -> FakeNvml:
    """nvmlInit raising the real exception for ``code``, built the way pynvml builds it (NVMLError(code))."""
    return FakeNvml(init_error=pynvml.NVMLError(code))
