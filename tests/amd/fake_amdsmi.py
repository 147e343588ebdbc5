"""A fake of AMD's ``amdsmi`` Python package with its real names: amdsmi_init / amdsmi_shut_down /
amdsmi_get_processor_handles / amdsmi_get_gpu_asic_info / amdsmi_get_gpu_device_bdf / amdsmi_get_gpu_vram_usage,
and its exception classes AmdSmiException > AmdSmiLibraryException (err_code, err_info), as in
https://github.com/ROCm/amdsmi/blob/0ceca28f4139dced5e9b5739a3f393780d7add48/py-interface/amdsmi_interface.py and
amdsmi_exception.py. Return values have the keys and formats of the real functions (target_graphics_version is
"gfx" + the number; vram in MB; "N/A" for an empty market name)."""

from __future__ import annotations


class AmdSmiException(Exception):
    """Base smi exception class (amdsmi_exception.py)."""


class AmdSmiLibraryException(AmdSmiException):
    def __init__(self, err_code: int, err_info: str = ""):
        super().__init__(err_code)
        self.err_code, self.err_info = err_code, err_info

    def __str__(self) -> str:
        return f"An error occurred with code: {self.err_code}({self.err_info})"


# amdsmi_wrapper.AMDSMI_STATUS_* values used here
AMDSMI_STATUS_NOT_SUPPORTED = 2
AMDSMI_STATUS_DRIVER_NOT_LOADED = 48


class amdsmi_processor_handle:  # noqa: N801 - the real ctypes type's name
    def __init__(self, index: int):
        self.index = index


class FakeAmdSmi:
    """Serves ``gpus``: dicts with market_name, gfx (the number after "gfx"), bdf, vram_total (MB). ``init_error``
    makes amdsmi_init raise; ``failing`` names functions that raise NOT_SUPPORTED for every GPU."""

    AmdSmiException = AmdSmiException
    AmdSmiLibraryException = AmdSmiLibraryException

    def __init__(self, gpus: list[dict], init_error: int | None = None, failing: tuple[str, ...] = ()):
        self.gpus, self.init_error, self.failing = gpus, init_error, failing
        self.initialised = self.shut_down = False

    def _check(self, name: str) -> None:
        if not self.initialised:
            raise AmdSmiLibraryException(32, "AMDSMI_STATUS_NOT_INIT")
        if name in self.failing:
            raise AmdSmiLibraryException(AMDSMI_STATUS_NOT_SUPPORTED, "AMDSMI_STATUS_NOT_SUPPORTED")

    def amdsmi_init(self, flags: int = 2) -> None:
        if self.init_error is not None:
            raise AmdSmiLibraryException(self.init_error, "AMDSMI_STATUS_DRIVER_NOT_LOADED")
        self.initialised = True

    def amdsmi_shut_down(self) -> None:
        self.shut_down = True

    def amdsmi_get_processor_handles(self) -> list[amdsmi_processor_handle]:
        self._check("amdsmi_get_processor_handles")
        return [amdsmi_processor_handle(i) for i in range(len(self.gpus))]

    def amdsmi_get_gpu_asic_info(self, handle: amdsmi_processor_handle) -> dict:
        self._check("amdsmi_get_gpu_asic_info")
        gpu = self.gpus[handle.index]
        return {"market_name": gpu.get("market_name") or "N/A", "vendor_id": "0x1002", "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
                "subvendor_id": "0x1002", "device_id": gpu.get("device_id", "0x74a1"), "rev_id": "0x00", "asic_serial": "N/A",
                "oam_id": "N/A", "num_compute_units": 304, "target_graphics_version": "gfx" + str(gpu["gfx"])}

    def amdsmi_get_gpu_device_bdf(self, handle: amdsmi_processor_handle) -> str:
        self._check("amdsmi_get_gpu_device_bdf")
        return self.gpus[handle.index]["bdf"]

    def amdsmi_get_gpu_vram_usage(self, handle: amdsmi_processor_handle) -> dict:
        self._check("amdsmi_get_gpu_vram_usage")
        return {"vram_total": self.gpus[handle.index]["vram_total"], "vram_used": 0}
