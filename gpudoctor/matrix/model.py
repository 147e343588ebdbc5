"""Typed, frozen rows of the compatibility matrix (matrices/*.toml) and the questions gpudoctor asks of it.

Everything here is data and pure lookups: no I/O (loading is gpudoctor.matrix.load_matrix), no printing. Versions
stay strings as the tools print them; ``vtuple`` turns them into comparable tuples.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping

if TYPE_CHECKING:
    from .broken import BrokenRule
    from .keras import KerasTable
    from .wheels import WheelOverlay, WheelRelease
    from .platforms import Platforms

_VERSION_RE = re.compile(r"\d+(?:\.\d+)*")


@functools.lru_cache(maxsize=4096)  # the same few hundred version strings are compared thousands of times a run
def vtuple(text: str) -> tuple[int, ...]:
    """"570.124.04" -> (570, 124, 4); "2.7.1+cu128" -> (2, 7, 1); "12.8" -> (12, 8). ValueError if not a version."""
    m = _VERSION_RE.match(text.strip()) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"not a version: {text!r}")
    return tuple(int(part) for part in m.group(0).split("."))


def try_vtuple(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        return vtuple(text)
    except ValueError:
        return None


def series(text: str, parts: int = 2) -> str:
    """"2.7.1+cu128" -> "2.7"; "12.8.1" -> "12.8"."""
    return ".".join(str(p) for p in vtuple(text)[:parts])


def version_ge(a: str, b: str) -> bool:
    """a >= b, padding the shorter with zeros ("580" >= "580.0.0")."""
    return _ge(vtuple(a), vtuple(b))


def _padded(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)), b + (0,) * (n - len(b))


def python_span(pythons: Iterable[str]) -> str:
    """("2.7", "3.3", "3.4", "3.5") -> "2.7, 3.3–3.5": consecutive minors of one major as a range, majors apart."""
    ordered = sorted(set(pythons), key=vtuple)
    if not ordered:
        return "none"
    groups: list[list[str]] = []
    for p in ordered:
        last = groups[-1][-1] if groups else None
        if last and vtuple(last)[0] == vtuple(p)[0] and vtuple(p)[1:2] == (vtuple(last)[1] + 1,):
            groups[-1].append(p)
        else:
            groups.append([p])
    return ", ".join(g[0] if len(g) == 1 else f"{g[0]}–{g[-1]}" for g in groups)


def local_tag(version: str) -> str | None:
    """"2.7.1+cu128" -> "cu128"; "2.6.0" -> None."""
    return version.split("+", 1)[1].strip() if "+" in version else None


def cuda_tag(cuda: str) -> str:
    """"12.8" -> "cu128"; "11.8" -> "cu118"."""
    major, minor = vtuple(cuda)[:2]
    return f"cu{major}{minor}"


# ---------------------------------------------------------------------------------------------------------------
# GPU architectures: "sm_86" (SASS), "compute_90" (PTX), "sm_90a" (arch-specific), "sm_100f" (family),
# and TORCH_CUDA_ARCH_LIST style "8.6" / "8.6+PTX".

_ARCH_RE = re.compile(r"^(sm|compute)_(\d{1,6})([af]?)$")  # bounded: int() of 4,300+ digits raises
_CC_RE = re.compile(r"^(\d{1,4})\.(\d{1,4})(\+ptx)?$")


@dataclass(frozen=True)
class ArchEntry:
    kind: str  # "sass" | "ptx"
    cc: tuple[int, int]
    suffix: str = ""  # "" | "a" (this exact CC only) | "f" (family: same major, equal or higher minor)

    @property
    def label(self) -> str:
        prefix = "sm" if self.kind == "sass" else "compute"
        return f"{prefix}_{self.cc[0]}{self.cc[1]}{self.suffix}"


def parse_arch(entry: str) -> tuple[ArchEntry, ...]:
    """One arch-list entry -> its SASS/PTX targets (empty for an entry it cannot read)."""
    text = entry.strip().lower()
    m = _ARCH_RE.match(text)
    if m:
        digits = m.group(2)
        if len(digits) < 2:
            return ()
        cc = (int(digits[:-1]), int(digits[-1]))
        return (ArchEntry("sass" if m.group(1) == "sm" else "ptx", cc, m.group(3)),)
    m = _CC_RE.match(text)
    if m:
        cc = (int(m.group(1)), int(m.group(2)))
        return (ArchEntry("sass", cc),) + ((ArchEntry("ptx", cc),) if m.group(3) else ())
    return ()


def cc_tuple(cc: str) -> tuple[int, int]:
    parts = vtuple(cc)
    return (parts[0], parts[1] if len(parts) > 1 else 0)


# Integrated (Tegra) GPUs: Jetson TK1 3.2, Nano/TX1 5.3, TX2 6.2, Xavier 7.2, Orin 8.7. CUDA C++ Programming Guide,
# "Binary Compatibility": a cubin for X.y runs on X.z with z >= y, but "Binary compatibility is supported only for the
# desktop. It is not supported for Tegra. Also, the binary compatibility between desktop and Tegra is not supported."
# So a Tegra GPU runs only SASS of its own compute capability (PTX still JIT-compiles). Reviewed 2026-11-24.
TEGRA_CCS = frozenset({(3, 2), (5, 3), (6, 2), (7, 2), (8, 7)})


def arch_support(arch_list: Iterable[str], cc: str) -> str | None:
    """How a build with ``arch_list`` runs on a GPU of compute capability ``cc``: "sass" (native code), "ptx"
    (JIT-compiled from PTX on first start) or None (no kernel image for it)."""
    gpu = cc_tuple(cc)
    tegra = gpu in TEGRA_CCS
    ptx = False
    for raw in arch_list:
        for entry in parse_arch(raw):
            if entry.kind == "sass":
                if entry.suffix == "a" or tegra:
                    if entry.cc == gpu:
                        return "sass"
                elif entry.cc[0] == gpu[0] and entry.cc[1] <= gpu[1] and entry.cc not in TEGRA_CCS:
                    return "sass"
            elif entry.suffix == "a":
                ptx = ptx or entry.cc == gpu
            elif entry.cc <= gpu:
                ptx = True
    return "ptx" if ptx else None


def arch_summary(arch_list: Iterable[str]) -> str:
    return " ".join(arch_list)


# ---------------------------------------------------------------------------------------------------------------
# Rows


@dataclass(frozen=True)
class CudaMajor:
    major: int
    linux_floor: str | None
    windows_floor: str | None
    sources: tuple[str, ...] = ()

    def floor(self, os: str) -> str | None:
        return self.windows_floor if os == "windows" else self.linux_floor


@dataclass(frozen=True)
class CudaRelease:
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
    since: str
    min_cc: str
    max_cc: str
    note: str | None = None


@dataclass(frozen=True)
class TorchVariant:
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
class TorchRelease:
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

    @property
    def series(self) -> str:
        return series(self.versions[-1])

    @property
    def latest(self) -> str:
        return self.versions[-1]

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
class TfRelease:
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
    def series(self) -> str:
        return series(self.versions[-1])

    @property
    def latest(self) -> str:
        return self.versions[-1]

    @property
    def has_and_cuda(self) -> bool:
        return bool(self.and_cuda)

    def and_cuda_pin(self, prefix: str) -> str | None:
        """The and-cuda requirement of a distribution: and_cuda_pin("nvidia-cudnn-cu") -> "nvidia-cudnn-cu12==8.9.7.29"."""
        return next((r for r in self.and_cuda if r.startswith(prefix)), None)


@dataclass(frozen=True)
class CudnnRelease:
    version: str
    first: str | None = None  # first release of the row's range ("8.9.5" for the 8.9.5/8.9.6 row)
    cuda: tuple[tuple[str, str], ...] = ()
    cc_min: str | None = None
    cc_max: str | None = None
    note: str | None = None
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class GpuModel:
    cc: str
    architecture: str
    names: tuple[str, ...]


_VENDOR_WORDS = {"nvidia", "geforce", "tesla", "quadro"}


def name_tokens(name: str) -> tuple[str, ...]:
    words = re.split(r"[\s\-_/]+", name.strip().lower())
    return tuple(w for w in words if w and w not in _VENDOR_WORDS)


# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Matrix:
    reviewed: str  # the oldest "reviewed" date of the files: "2026-11-21"
    sources: Mapping[str, tuple[str, ...]]  # file name -> its top-level source URLs
    cuda_majors: tuple[CudaMajor, ...]
    cuda_releases: tuple[CudaRelease, ...]  # oldest first
    cuda_targets: tuple[CudaTargets, ...]  # oldest first
    torch: tuple[TorchRelease, ...]  # oldest first
    torch_index_url: str
    torch_default_windows: str
    tensorflow: tuple[TfRelease, ...]  # oldest first
    tf_windows_gpu_last: str
    tf_windows_gpu_conda: tuple[str, ...]
    tf_wsl_min_windows: str
    cudnn: tuple[CudnnRelease, ...]  # oldest first
    gpus: tuple[GpuModel, ...]
    torch_numpy2_since: str = "2.3.0"  # the first release built against NumPy 2 (matrices/torch.toml)
    tf_numpy2_since: str = "2.18.0"
    reviewed_by_file: Mapping[str, str] = field(default_factory=dict)
    platforms: "Platforms | None" = None  # matrices/platforms.toml (None: a hand-built matrix without it)
    wheels: "WheelOverlay | None" = None  # what the published wheels say (matrices/wheels.toml)
    known_broken: tuple["BrokenRule", ...] = ()  # matrices/known_broken.toml
    keras: "KerasTable | None" = None  # matrices/keras.toml (gpudoctor.matrix.keras)

    # -- published wheels ---------------------------------------------------------------------------------------

    def wheel(self, package: str, version: str) -> "WheelRelease | None":
        """What the published wheel of an exact release says (None where the overlay has not audited it)."""
        return self.wheels.get(package, version) if self.wheels is not None else None

    def framework_wheel(self, framework: str, version: str) -> "WheelRelease | None":
        if framework == "torch":
            return self.wheel("torch", version)
        release = self.tf_release(version)
        package = release.package if release else "tensorflow"
        return self.wheel(package, version) or self.wheel("tensorflow", version) or self.wheel("tensorflow-gpu", version)

    def python_for(self, framework: str, version: str, and_cuda: bool = False) -> tuple[str, ...] | None:
        """The Pythons that have a Linux wheel of this exact release: the wheel's truth where it was audited, else
        the table's row (already corrected by the wheels of its other releases). ``and_cuda``: only those on which
        TensorFlow's and-cuda extra can install. None when the matrix does not know the release."""
        release = self.torch_release(version) if framework == "torch" else self.tf_release(version)
        pythons = release.python if release else None
        wheel = self.framework_wheel(framework, version)
        if wheel is not None and wheel.python is not None:
            pythons = wheel.python
        if and_cuda and wheel is not None and pythons is not None:
            pythons = tuple(p for p in pythons if p not in wheel.and_cuda_no_wheel)
        return pythons

    # -- CUDA ---------------------------------------------------------------------------------------------------

    def cuda_major(self, major: int) -> CudaMajor | None:
        return next((m for m in self.cuda_majors if m.major == major), None)

    def mvc_floor(self, major: int, os: str = "linux") -> str | None:
        """Minimum driver for every CUDA ``major``.x toolkit through minor-version compatibility (11 and newer)."""
        m = self.cuda_major(major)
        return m.floor(os) if m else None

    def driver_floor(self, cuda: str, os: str = "linux") -> str | None:
        """The lowest driver that runs a build made with CUDA ``cuda``: the major's minor-version-compatibility floor
        from CUDA 11 on; before 11 there is no minor-version compatibility, so the toolkit's own driver (NV-MVC)."""
        major = vtuple(cuda)[0]
        return self.mvc_floor(major, os) if major >= 11 else self.min_driver(cuda, os)

    def cuda_minor_releases(self, cuda: str) -> tuple[CudaRelease, ...]:
        want = vtuple(cuda)[:2]
        return tuple(r for r in self.cuda_releases if vtuple(r.version)[:2] == want)

    def knows_cuda(self, cuda: str) -> bool:
        return bool(self.cuda_minor_releases(cuda))

    def min_driver(self, cuda: str, os: str = "linux") -> str | None:
        """The driver of the first release of CUDA ``cuda`` (x.y, or an exact x.y.z): its full feature set."""
        parts = vtuple(cuda)
        releases = self.cuda_minor_releases(cuda)
        if len(parts) >= 3:
            exact = [r for r in releases if vtuple(r.version) == parts[:3]]
            releases = tuple(exact) or releases
        drivers = [d for d in (r.driver(os) for r in releases) if d]
        return min(drivers, key=vtuple) if drivers else None

    def driver_cuda(self, driver_version: str, os: str = "linux") -> str | None:
        """The newest CUDA (x.y) whose first release this driver satisfies, as nvidia-smi's "CUDA Version" says."""
        have = try_vtuple(driver_version)
        if have is None:
            return None
        minors = sorted({r.minor for r in self.cuda_releases}, key=vtuple, reverse=True)
        for minor in minors:
            need = self.min_driver(minor, os)
            if need and _ge(have, vtuple(need)):
                return minor
        return None

    def newest_cuda(self) -> str:
        return self.cuda_releases[-1].minor if self.cuda_releases else "0.0"

    def cuda_targets_for(self, cuda: str) -> CudaTargets | None:
        want = vtuple(cuda)
        rows = [t for t in self.cuda_targets if _ge(want, vtuple(t.since))]
        return rows[-1] if rows else None

    # -- PyTorch ------------------------------------------------------------------------------------------------

    def torch_release(self, version: str) -> TorchRelease | None:
        try:
            want = series(version)
        except ValueError:
            return None
        return next((r for r in self.torch if r.series == want), None)

    def torch_build(self, version: str, cuda: str | None = None) -> tuple[TorchRelease, TorchVariant] | None:
        """The release and variant of an installed torch: "2.7.1+cu128" (or "2.6.0" with cuda "12.4")."""
        release = self.torch_release(version)
        if release is None:
            return None
        tag = local_tag(version)
        variant = release.variant(tag) if tag else None
        if variant is None and cuda:
            variant = release.variant_for_cuda(cuda)
        if variant is None and not tag and not cuda:
            return None
        return (release, variant) if variant else None

    def newest_torch(self) -> TorchRelease:
        return self.torch[-1]

    def torch_index(self, tag: str) -> str:
        return self.torch_index_url.format(tag=tag)

    # -- TensorFlow ---------------------------------------------------------------------------------------------

    def tf_release(self, version: str) -> TfRelease | None:
        try:
            want = series(version)
        except ValueError:
            return None
        return next((r for r in self.tensorflow if r.series == want), None)

    def newest_tf(self) -> TfRelease:
        return self.tensorflow[-1]

    # -- cuDNN --------------------------------------------------------------------------------------------------

    def cudnn_release(self, version: str) -> CudnnRelease | None:
        """The row that covers ``version`` (the newest row whose first release is not newer)."""
        have = try_vtuple(version)
        if have is None:
            return None
        rows = [r for r in self.cudnn if _ge(have, vtuple(r.first or r.version))]
        return rows[-1] if rows else None

    def cudnn_cc_min(self, version: str) -> str | None:
        """The lowest compute capability a cuDNN release supports (9.11+ -> "7.5")."""
        row = self.cudnn_release(version)
        return row.cc_min if row else None

    # -- GPUs ---------------------------------------------------------------------------------------------------

    def gpu_by_name(self, name: str) -> GpuModel | None:
        """nvidia-smi-style product name -> its row: "NVIDIA GeForce RTX 4090", "Tesla V100-SXM2-16GB", "RTX 4090"."""
        tokens = name_tokens(name)
        if not tokens:
            return None
        best: tuple[int, GpuModel] | None = None
        for model in self.gpus:
            for candidate in model.names:
                cand = name_tokens(candidate)
                if cand and tokens[: len(cand)] == cand and (best is None or len(cand) > best[0]):
                    best = (len(cand), model)
        return best[1] if best else None

    def gpu_compute_capability(self, name: str) -> str | None:
        model = self.gpu_by_name(name)
        return model.cc if model else None


def _ge(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    pa, pb = _padded(a, b)
    return pa >= pb
