"""What the facts imply beyond what was observed, in the one layer that both the checks and the matrix solver import:
the rule lives here once, so "is there an NVIDIA GPU?" gets the same answer from `check` and from `env --from`."""

from __future__ import annotations

import re

from .facts import Driver, TorchBuild


def gpu_implied_by_driver(driver: Driver | None) -> str | None:
    """Why an NVIDIA GPU must be on this machine although no GPU list may say so, or None when the driver does not
    tell. A pasted report is often just a driver line: the NVIDIA driver reports its version or the CUDA it supports,
    and its kernel module loads, only where an NVIDIA GPU is."""
    if driver is None:
        return None
    if driver.version:
        return f"NVIDIA driver {driver.version} reports its version, so an NVIDIA GPU is present"
    if driver.cuda_version:
        return f"the NVIDIA driver reports CUDA {driver.cuda_version}, so an NVIDIA GPU is present"
    if driver.kernel_module == "nvidia":
        return "the nvidia kernel module is loaded, so an NVIDIA GPU is present"
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
