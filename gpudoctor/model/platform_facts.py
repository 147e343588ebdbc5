"""The facts of platforms other than a PC: a Mac (host.apple), a hosted notebook (host.notebook), a Jetson. Split
out of facts.py (gpudoctor.model exports them; the same snapshot keys, docs/facts-format.md) so that a run elsewhere
never creates their classes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Apple:
    """A Mac (host.apple; only on darwin): what decides whether PyTorch's MPS and tensorflow-metal can run."""

    macos: str | None = None  # platform.mac_ver(): "14.5"
    python_arch: str | None = None  # this Python's architecture: "arm64" | "x86_64"
    rosetta: bool | None = None  # sysctl.proc_translated == 1: an x86_64 Python translated on Apple silicon
    chip: str | None = None  # "Apple M2 Pro" (machdep.cpu.brand_string or system_profiler's "Chipset Model")


@dataclass(frozen=True)
class Notebook:
    """A hosted notebook (host.notebook): Google Colab or Kaggle, and what its runtime says about accelerators."""

    kind: str | None = None  # "colab" | "kaggle"
    env: dict[str, str] | None = None  # the variables that told (COLAB_GPU, COLAB_RELEASE_TAG, KAGGLE_KERNEL_RUN_TYPE...)


@dataclass(frozen=True)
class Jetson:
    """An NVIDIA Jetson module (L4T): its GPU is integrated, so there is no PCI device, NVML or nvidia-smi."""

    l4t: str | None = None  # "36.4.3", from /etc/nv_tegra_release ("# R36 (release), REVISION: 4.3, ...")
    l4t_core: str | None = None  # the nvidia-l4t-core package version: "36.4.3-20250107174145"
    board: str | None = None  # nv_tegra_release's BOARD: "t186ref" (Xavier/Orin), "t210ref" (Nano/TX1)
    model: str | None = None  # /proc/device-tree/model: "NVIDIA Jetson AGX Orin Developer Kit"
