"""Typed, frozen rows of the compatibility matrix (matrices/*.toml): CUDA, PyTorch, TensorFlow, cuDNN and GPU rows.

Data and lookups within one row only (questions across rows are Matrix's, gpudoctor.matrix.tables.model). Versions stay
strings as the tools print them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping

from .versions import series, vtuple


class _Release:
    """What every framework row answers from its ``versions`` (known patch releases, oldest first)."""

    versions: tuple[str, ...]

    @property
    def series(self) -> str:
        return series(self.versions[-1])

    @property
    def latest(self) -> str:
        return self.versions[-1]



@dataclass(frozen=True)
class CudaMajor:
    """A CUDA major version and the oldest Linux and Windows drivers that run it."""
    major: int
    linux_floor: str | None
    windows_floor: str | None
    sources: tuple[str, ...] = ()

    def floor(self, os: str) -> str | None:
        return self.windows_floor if os == "windows" else self.linux_floor


@dataclass(frozen=True)
class CudaRelease:
    """One CUDA toolkit release and the drivers it needs and ships."""
    version: str  # "12.8.1"
    label: str  # "12.8 Update 1"
    linux: str | None  # minimum Linux driver
    windows: str | None  # minimum Windows driver (None: not published / not bundled)
    branch: int | None = None  # driver branch of this minor (13.x)

    @property
    def minor(self) -> str:
        return series(self.version)

    def driver(self, os: str) -> str | None:
        if os == "windows":
            if self.windows:
                return self.windows
            return str(self.branch) if self.branch else None
        return self.linux


@dataclass(frozen=True)
class CudaTargets:
    """The compute capabilities a CUDA release (and later ones) can compile for."""
    since: str
    min_cc: str
    max_cc: str
    note: str | None = None


@dataclass(frozen=True)
class TorchVariant:
    """One wheel variant of a torch release (cu126, cpu...): its CUDA and compiled architectures."""
    tag: str  # wheel index tag: "cu126", "cpu"
    cuda: str | None  # "12.6"; None for CPU
    arch: tuple[str, ...] | None = None  # torch.cuda.get_arch_list() of the wheel; None = unknown
    arch_confirmed: bool = True
    ptx_linux_only: bool = False
    cudnn: str | None = None  # the cuDNN this variant pins (where known)
    sources: tuple[str, ...] = ()

    def arch_for(self, os: str = "linux") -> tuple[str, ...] | None:
        if self.arch is None:
            return None
        if self.ptx_linux_only and os != "linux":
            return tuple(a for a in self.arch if not a.startswith("compute_"))
        return self.arch


@dataclass(frozen=True)
class TorchRelease(_Release):
    """A torch release series: patch versions, Pythons and wheel variants."""
    versions: tuple[str, ...]  # known patch releases, oldest first; the last is installed by the solver
    released: str | None
    python: tuple[str, ...]
    default_linux: str  # variant a plain `pip install torch` gets on Linux x86_64
    variants: tuple[TorchVariant, ...]
    python_experimental: tuple[str, ...] = ()
    rocm: str | None = None
    torchvision: str | None = None  # minor series, "0.22"
    torchvision_pins: Mapping[str, str] = field(default_factory=dict)
    torchaudio: str | None = None
    torchaudio_pins: Mapping[str, str] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    python_documented: tuple[str, ...] = ()  # the table's Pythons where the wheels (matrices/wheels.toml) differ

    def variant(self, tag: str) -> TorchVariant | None:
        return next((v for v in self.variants if v.tag == tag), None)

    def variant_for_cuda(self, cuda: str) -> TorchVariant | None:
        want = vtuple(cuda)[:2]
        return next((v for v in self.variants if v.cuda and vtuple(v.cuda)[:2] == want), None)

    def torchvision_requirement(self, version: str) -> str | None:
        return _companion("torchvision", self.torchvision_pins.get(version), self.torchvision)

    def torchaudio_requirement(self, version: str) -> str | None:
        return _companion("torchaudio", self.torchaudio_pins.get(version), self.torchaudio)


def _companion(name: str, pin: str | None, minor_series: str | None) -> str | None:
    """The exact companion release where the matrix knows it, else its minor series."""
    if pin:
        return f"{name}=={pin}"
    return f"{name}=={minor_series}.*" if minor_series else None


@dataclass(frozen=True)
class TfRelease(_Release):
    """A TensorFlow release series: patch versions, Pythons, and the CUDA and cuDNN it was built with."""
    versions: tuple[str, ...]
    python: tuple[str, ...]
    cuda: str
    cudnn: str
    arch: tuple[str, ...] | None = None  # SASS "sm_XY" and PTX "compute_XY" in the Linux wheel
    arch_confirmed: bool = True
    package: str = "tensorflow"
    windows_gpu: bool = False
    windows_python: tuple[str, ...] = ()
    windows_cuda: str | None = None
    windows_cudnn: str | None = None
    and_cuda: tuple[str, ...] = ()  # nvidia-* requirements of the `and-cuda` extra (from 2.14)
    cudnn_pin_below_cc: tuple[str, str] | None = None  # (cc, requirement): pin cuDNN for GPUs below cc
    sources: tuple[str, ...] = ()
    python_documented: tuple[str, ...] = ()  # the table's Pythons where the wheels (matrices/wheels.toml) differ
    # Versions whose plain `tensorflow` distribution carries CUDA; None: all of them. Before 1.15 (and again in 2.0)
    # `tensorflow` was CPU-only and the GPU build was `tensorflow-gpu` (`package`).
    tensorflow_gpu_versions: tuple[str, ...] | None = None
    arch_by_version: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # older patches built differently
    arch_note: str | None = None  # what the list does not say (e.g. SASS present for only some kernels)
    reviewed: str | None = None

    def arch_for(self, version: str | None) -> tuple[str, ...] | None:
        """The compiled architectures of this exact release (1.12.0 differs from 1.12.3)."""
        return self.arch_by_version.get(version or "", self.arch)

    def tensorflow_has_gpu(self, version: str) -> bool | None:
        """Whether the plain `tensorflow` distribution of ``version`` is a CUDA build (None: a patch release the row
        does not list, in a series where it differs between patches)."""
        gpu = self.tensorflow_gpu_versions
        if gpu is None:
            return True
        if version in self.versions:
            return version in gpu
        if not gpu:
            return False
        return True if set(gpu) == set(self.versions) else None

    @property
    def has_and_cuda(self) -> bool:
        return bool(self.and_cuda)

    def and_cuda_pin(self, prefix: str) -> str | None:
        """The and-cuda requirement of a distribution: and_cuda_pin("nvidia-cudnn-cu") -> "nvidia-cudnn-cu12==8.9.7.29"."""
        return next((r for r in self.and_cuda if r.startswith(prefix)), None)


@dataclass(frozen=True)
class CudnnRelease:
    """A cuDNN release and the CUDA versions and compute capabilities it supports."""
    version: str
    first: str | None = None  # first release of the row's range ("8.9.5" for the 8.9.5/8.9.6 row)
    cuda: tuple[tuple[str, str], ...] = ()
    cc_min: str | None = None
    cc_max: str | None = None
    note: str | None = None
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class GpuModel:
    """NVIDIA GPU product names with their compute capability and architecture."""
    cc: str
    architecture: str
    names: tuple[str, ...]


_VENDOR_WORDS = {"nvidia", "geforce", "tesla", "quadro"}


def name_tokens(name: str) -> tuple[str, ...]:
    # A dot before a letter starts a suffix word: the K10's two boards report "Tesla K10.G1.8GB" / "Tesla K10.G2.8GB"
    words = re.split(r"[\s\-_/]+|\.(?=[a-z])", name.strip().lower())
    return tuple(w for w in words if w and w not in _VENDOR_WORDS)

