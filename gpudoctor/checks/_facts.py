"""Small readers over Facts shared by the checks: they keep "unknown" (None) and "absent" apart in one place."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..digits import ascii_int
from ..model import CudaToolkit, Facts
from ..model import gpu_implied_by_driver
from ..model.inferred import torch_build_kind  # noqa: F401 - a derived fact the checks import from here

if TYPE_CHECKING:
    from ..model import Gpu, PciDevice, Symptom

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
    if gpu_implied_but_unlisted(facts):
        return True
    if facts.pci_devices == () and facts.gpus in ((), None):
        return False
    if facts.pci_devices is None and facts.gpus == ():
        return False
    return None


def gpu_implied_but_unlisted(facts: Facts) -> str | None:
    """Why an NVIDIA GPU must exist although no GPU list says so (the driver rule is model.gpu_implied_by_driver,
    shared with the solver); None when a GPU list already names one or the driver does not tell."""
    if facts.gpus or facts.pci_devices:
        return None
    reason = gpu_implied_by_driver(facts.driver)
    return f"{reason} (the GPU list is unknown)" if reason else None


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
    """Messages of this kind read from a pasted log (empty for a probed machine). The symptoms are grouped by kind
    once per facts, not scanned on every call (the checks ask some 80 times; a 1 MB paste has about 1,000)."""
    global _BY_KIND
    held, by_kind = _BY_KIND  # one tuple: read and replaced whole
    if held is not facts.symptoms:
        by_kind = {}
        for symptom in facts.symptoms or ():
            by_kind.setdefault(symptom.kind, []).append(symptom)
        _BY_KIND = (facts.symptoms, by_kind)  # holds the tuple: its id is not reused while it is compared
    return list(by_kind.get(kind, ()))


_BY_KIND: tuple[object, dict[str, list[Symptom]]] = (None, {})


def cudnn_version(text: str) -> str:
    """torch.backends.cudnn.version() integers as people read them: 90100 -> "9.1.0" (cuDNN 9), 8902 -> "8.9.2"
    (cuDNN 8); anything else as given (a dotted version already, or text no cuDNN reports)."""
    n = ascii_int(text, 9)  # longer is no cuDNN (and int() of 4,300+ digits raises)
    if n is not None:
        if n >= 10000:
            return f"{n // 10000}.{n // 100 % 100}.{n % 100}"
        return f"{n // 1000}.{n // 100 % 10}.{n % 100}"
    return text


def jetson(facts: Facts):
    """The Jetson facts when this is a Jetson (its GPU is integrated: no PCI device, NVML or nvidia-smi)."""
    return facts.jetson if facts.jetson and (facts.jetson.l4t or facts.jetson.l4t_core or facts.jetson.model) else None


def on_mac(facts: Facts) -> bool:
    return bool(facts.host and (facts.host.os == "darwin" or facts.host.apple is not None))


def extension_toolkit(facts: Facts) -> tuple[CudaToolkit, str] | None:
    """The CUDA toolkit torch.utils.cpp_extension would build with, and where it was found, in its own order:
    CUDA_HOME, then CUDA_PATH, then nvcc on PATH; a lone toolkit found elsewhere is the one it falls back to.
    None when the facts cannot tell which one it would take."""
    toolkits = facts.cuda_toolkits or ()
    env = (facts.host.env if facts.host else None) or {}
    var = next((name for name in ("CUDA_HOME", "CUDA_PATH") if env.get(name)), None)
    if var:
        home = env[var].rstrip("/\\")
        found = next((t for t in toolkits if t.path and t.path.rstrip("/\\") == home), None)
        # torch takes the variable's directory and nothing else: a directory no probe saw a toolkit in is unknown
        return (found, f"{var}={env[var]}") if found else None
    found = next((t for t in toolkits if t.on_path), None)
    if found:
        return found, "nvcc on PATH"
    if len(toolkits) == 1:
        where = "not on PATH, no CUDA_HOME" if toolkits[0].on_path is False else "whether nvcc is on PATH is unknown"
        return toolkits[0], f"the only CUDA toolkit found ({where})"
    return None


def accelerator_notes(matrix: object, name: str) -> dict[str, str]:
    """One table of matrices/accelerators.toml (directml, xpu, mxnet, cpu_variants, onnxruntime); {} without it."""
    tables = getattr(matrix, "platform_tables", None)
    notes = tables.accelerators if tables else None
    return dict(getattr(notes, name, None) or {}) if notes else {}
