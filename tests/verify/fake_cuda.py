"""Fakes of the CUDA APIs verify calls, with the real names and signatures, so the GPU branch runs on a machine
without a GPU: FakeTorchCuda stands for ``torch.cuda`` (is_available, device_count, get_device_name,
get_device_capability, is_bf16_supported(including_emulation=...), reset_peak_memory_stats, max_memory_allocated,
synchronize), FakeTf for the ``tensorflow`` module's tf.config / tf.test calls (list_physical_devices,
experimental.set_memory_growth / get_device_details / reset_memory_stats / get_memory_info, is_built_with_cuda)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any


@dataclass(frozen=True)
class Gpu:
    name: str
    capability: tuple[int, int]


H100 = Gpu("NVIDIA H100 80GB HBM3", (9, 0))
T4 = Gpu("Tesla T4", (7, 5))
P100 = Gpu("Tesla P100-PCIE-16GB", (6, 0))


def _index(device: Any) -> int:
    """torch.cuda accepts a torch.device, "cuda:N", an int or None (the current device, 0 here)."""
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    index = getattr(device, "index", None)
    if index is not None or hasattr(device, "type"):
        return index or 0
    return int(str(device).split(":")[1]) if ":" in str(device) else 0


@dataclass
class FakeTorchCuda:
    gpus: list[Gpu] = field(default_factory=list)
    allocated_mib: float = 0.0  # what "training" allocated since the last reset
    calls: list[str] = field(default_factory=list)

    def is_available(self) -> bool:
        return bool(self.gpus)

    def device_count(self) -> int:
        return len(self.gpus)

    def get_device_name(self, device: Any = None) -> str:
        return self.gpus[_index(device)].name

    def get_device_capability(self, device: Any = None) -> tuple[int, int]:
        return self.gpus[_index(device)].capability

    def is_bf16_supported(self, including_emulation: bool = True) -> bool:
        return including_emulation or self.gpus[0].capability >= (8, 0)

    def synchronize(self, device: Any = None) -> None:
        self.calls.append(f"synchronize {_index(device)}")

    def reset_peak_memory_stats(self, device: Any = None) -> None:
        self.calls.append(f"reset_peak_memory_stats {_index(device)}")
        self.allocated_mib = 0.0

    def max_memory_allocated(self, device: Any = None) -> int:
        return int(self.allocated_mib * 2**20)


@dataclass(frozen=True)
class PhysicalDevice:  # tf.config.PhysicalDevice's fields
    name: str
    device_type: str


class FakeTf:
    def __init__(self, gpus: list[Gpu], cuda_build: bool = True, peak_mib: float = 0.0):
        self.__version__ = "2.21.0"
        self.gpus = gpus
        self.peak_mib = peak_mib
        self.calls: list[str] = []
        physical = [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(len(gpus))]
        self.config = SimpleNamespace(
            list_physical_devices=lambda kind=None: list(physical) if kind == "GPU" else [],
            experimental=SimpleNamespace(
                set_memory_growth=lambda device, enable: self.calls.append(f"set_memory_growth {device.name} {enable}"),
                get_device_details=self._details,
                reset_memory_stats=lambda name: self.calls.append(f"reset_memory_stats {name}"),
                get_memory_info=lambda name: {"current": 0, "peak": int(self.peak_mib * 2**20)},
            ),
        )
        self.test = SimpleNamespace(is_built_with_cuda=lambda: cuda_build)

    def _details(self, device: PhysicalDevice) -> dict[str, Any]:
        gpu = self.gpus[int(device.name.rsplit(":", 1)[1])]
        return {"device_name": gpu.name, "compute_capability": gpu.capability}
