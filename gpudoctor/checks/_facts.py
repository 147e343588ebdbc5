"""Small readers over Facts shared by the checks: they keep "unknown" (None) and "absent" apart in one place."""

from __future__ import annotations

from ..model import Facts, Gpu, PciDevice

NVIDIA_DRIVERS = ("nvidia",)
LIBRARY_NOT_FOUND = "NVML Shared Library Not Found"


def nvidia_pci_devices(facts: Facts) -> tuple[PciDevice, ...] | None:
    return facts.pci_devices


def gpus(facts: Facts) -> tuple[Gpu, ...]:
    """GPUs the driver reports; empty when none or unknown (use ``gpu_presence`` to tell them apart)."""
    return facts.gpus or ()


def gpu_presence(facts: Facts) -> bool | None:
    """True: an NVIDIA GPU is on the bus or reported by the driver. False: probed, none. None: cannot tell."""
    if facts.gpus:
        return True
    if facts.pci_devices:
        return True
    if facts.pci_devices == () and facts.gpus in ((), None):
        return False
    if facts.pci_devices is None and facts.gpus == ():
        return False
    return None


def driver_loaded(facts: Facts) -> bool:
    driver = facts.driver
    return bool(driver and (driver.version or driver.kernel_module == "nvidia"))


def env(facts: Facts, name: str) -> str | None:
    return facts.host.env.get(name) if facts.host and facts.host.env is not None else None


def package(facts: Facts, name: str) -> str | None:
    return (facts.python_packages or {}).get(name)


def gpu_label(gpu: Gpu) -> str:
    cc = f", compute capability {gpu.compute_capability}" if gpu.compute_capability else ""
    return f"GPU {gpu.index if gpu.index is not None else '?'}: {gpu.name or 'unknown model'}{cc}"
