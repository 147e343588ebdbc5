"""Small readers over Facts shared by the checks: they keep "unknown" (None) and "absent" apart in one place."""

from __future__ import annotations

import re

from ..model import Facts, Gpu, PciDevice, Symptom, TorchBuild

NVIDIA_DRIVERS = ("nvidia",)
LIBRARY_NOT_FOUND = "NVML Shared Library Not Found"


def nvidia_pci_devices(facts: Facts) -> tuple[PciDevice, ...] | None:
    return facts.pci_devices


def gpus(facts: Facts) -> tuple[Gpu, ...]:
    """GPUs the driver reports; empty when none or unknown (use ``gpu_presence`` to tell them apart)."""
    return facts.gpus or ()


def gpu_presence(facts: Facts) -> bool | None:
    """True: an NVIDIA GPU is on the bus or reported by the driver. False: probed, none. None: cannot tell.

    Implied evidence counts (see ``gpu_presence_reason``): a driver that reports its version, or a loaded nvidia
    kernel module, exists only where an NVIDIA GPU does."""
    if facts.gpus:
        return True
    if facts.pci_devices:
        return True
    if gpu_implied_by_driver(facts):
        return True
    if facts.pci_devices == () and facts.gpus in ((), None):
        return False
    if facts.pci_devices is None and facts.gpus == ():
        return False
    return None


def gpu_implied_by_driver(facts: Facts) -> str | None:
    """Why an NVIDIA GPU must exist although no GPU list says so (a pasted report is often just a driver line)."""
    driver = facts.driver
    if facts.gpus or facts.pci_devices or driver is None:
        return None
    if driver.version:
        return f"NVIDIA driver {driver.version} reports its version, so an NVIDIA GPU is present (the GPU list is unknown)"
    if driver.kernel_module == "nvidia":
        return "the nvidia kernel module is loaded, so an NVIDIA GPU is present (the GPU list is unknown)"
    return None


def torch_build_kind(torch: TorchBuild) -> str | None:
    """"cuda" | "rocm" | "cpu" | "xpu" | None (unknown). A missing key is never read as CPU-only: only the build
    key, a CUDA/HIP version, the wheel's local tag or a compiled arch list tell."""
    if torch.build:
        return torch.build
    if torch.cuda:
        return "cuda"
    if torch.hip:
        return "rocm"
    tag = torch.version.split("+", 1)[1].lower() if torch.version and "+" in torch.version else ""
    if tag == "cpu" or tag.startswith("cpu."):
        return "cpu"
    if re.fullmatch(r"cu\d{2,4}.*", tag):
        return "cuda"
    if tag.startswith("rocm"):
        return "rocm"
    if tag.startswith("xpu"):
        return "xpu"
    if torch.arch_list and any(a.startswith(("sm_", "compute_")) for a in torch.arch_list):
        return "cuda"
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


def symptoms(facts: Facts, kind: str) -> list[Symptom]:
    """Messages of this kind read from a pasted log (empty for a probed machine)."""
    return [s for s in facts.symptoms or () if s.kind == kind]


def cudnn_version(text: str) -> str:
    """torch.backends.cudnn.version() integers as people read them: 90100 -> "9.1.0" (cuDNN 9), 8902 -> "8.9.2"
    (cuDNN 8); anything else as given (a dotted version already, or text no cuDNN reports)."""
    if text.isdigit() and len(text) <= 9:  # longer is no cuDNN (and int() of 4,300+ digits raises)
        n = int(text)
        if n >= 10000:
            return f"{n // 10000}.{n // 100 % 100}.{n % 100}"
        return f"{n // 1000}.{n // 100 % 10}.{n % 100}"
    return text


def jetson(facts: Facts):
    """The Jetson facts when this is a Jetson (its GPU is integrated: no PCI device, NVML or nvidia-smi)."""
    return facts.jetson if facts.jetson and (facts.jetson.l4t or facts.jetson.l4t_core or facts.jetson.model) else None


def on_mac(facts: Facts) -> bool:
    return bool(facts.host and (facts.host.os == "darwin" or facts.host.apple is not None))
