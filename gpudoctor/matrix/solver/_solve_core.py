"""The solver's types and the rules every framework shares: Python choice, release selection, the driver verdict and
whether a build's code, cuDNN and CUDA fit every GPU of a target. No I/O: the Matrix is always passed in."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ...errors import GpuDoctorError
from .driver import DriverVerdict, driver_os, driver_verdict, is_branch
from ..tables.model import Framework, Matrix, arch_support, cc_tuple, series, try_vtuple, vtuple

# When no Python is asked for, choose the newest one a release has wheels for, but not newer than this (brand-new
# Pythons lack wheels of many other packages). A policy, not a compatibility fact: --python overrides it.
DEFAULT_PYTHON_CAP = "3.13"


@dataclass(frozen=True)
class Target:
    """The machine to solve for."""

    os: str  # "linux" | "windows" | "darwin"
    python: str | None  # "3.11"; None = choose one
    driver_version: str | None  # "550.54.15", or a branch "550"; None = no NVIDIA driver (or unknown)
    driver_cuda: str | None  # "12.4" as nvidia-smi prints; None = derive from driver_version via the CUDA table
    compute_capabilities: tuple[str, ...]  # ("8.9",); empty = no GPU
    wsl: bool = False
    arch: str = "x86_64"  # "x86_64" | "aarch64" (Linux) | "arm64" (macOS)
    # An NVIDIA GPU is known to be there (a driver reports its version, a device is on the bus) but not its compute
    # capability: solve for a CUDA build that fits the driver, and say that its architectures were not checked.
    gpu_unknown: bool = False
    gfx: tuple[str, ...] = ()  # AMD GPUs' LLVM targets ("gfx1100"): solved on the ROCm route (_solve_rocm)
    jetpack: str | None = None  # a Jetson's JetPack release ("6.2"): solved on the JetPack route (_solve_jetson)

    def wants_gpu_build(self, cpu: bool = False) -> bool:
        """A CUDA build is the goal: an NVIDIA GPU is there (known or implied), no CPU build was asked for, not macOS."""
        return bool(self.compute_capabilities or self.gpu_unknown) and not cpu and self.os != "darwin"


@dataclass(frozen=True)
class Choice:
    """A framework build chosen for a target: exact version, variant, packages, index, and why each was chosen."""

    framework: str  # "torch" | "tensorflow" | "jax"
    version: str  # "2.14.1" (exact release)
    variant: str  # "cu130" | "cu126" | "cpu" | "and-cuda" | "cuda-11.2-conda" | "cuda-10.0-system"
    index_url: str | None  # PyTorch's index for torch; None = the default package index suffices
    packages: tuple[str, ...]  # exact pip requirement strings
    python: str  # the Python to use, e.g. "3.12"
    cuda: str | None  # CUDA the environment runs (for and-cuda ranges: what pip resolves), None for CPU builds
    conda_packages: tuple[str, ...] = ()  # e.g. ("cudatoolkit=11.2", "cudnn=8.1.0")
    reasons: tuple[str, ...] = ()  # one sentence per decision
    notes: tuple[str, ...] = ()  # caveats
    skipped: tuple[str, ...] = ()  # why each newer release (or build) was not chosen, newest first
    env: tuple[tuple[str, str], ...] = ()  # variables the environment needs, e.g. (("LD_LIBRARY_PATH", "$CONDA_PREFIX/lib/"),)
    pins: tuple[str, ...] = ()  # caps on the framework's own dependencies that its metadata lacks, e.g. ("protobuf<3.21",)
    # what the build runs on besides NVIDIA's CUDA wheels: "rocm" (AMD), "jetson" (JetPack), "mps" (Apple's Metal)
    accelerator: str | None = None

    @property
    def label(self) -> str:
        """"torch 2.14.1+cu126", "tensorflow 2.21.0 (and-cuda)"."""
        if self.framework == "torch":
            return f"torch {self.version}+{self.variant}"
        return f"{self.framework} {self.version} ({self.variant})"


class NoFit(GpuDoctorError):
    """No release fits the target (or the pinned version cannot run on it)."""

    def __init__(self, message: str, reasons: tuple[str, ...] = (), suggestion: str | None = None):
        super().__init__(message)
        self.reasons = tuple(reasons)
        self.suggestion = suggestion


class UnknownPinnedRelease(NoFit):
    """A pinned release the matrix does not know: a usage error, not a machine limitation."""


# -- helpers ----------------------------------------------------------------------------------------------------


def fw_name(fw: str) -> str:
    return Framework.parse(fw).label


def quote(requirement: str) -> str:
    return shlex.quote(requirement) if any(ch in requirement for ch in "[]<>*! ;") else requirement


def pick_python(available: tuple[str, ...], wanted: str | None, experimental: tuple[str, ...] = ()) -> str | None:
    if wanted:
        return wanted if wanted in available else None
    if not available:
        return None
    cap = vtuple(DEFAULT_PYTHON_CAP)
    mature = [p for p in available if p not in experimental and vtuple(p) <= cap]
    return max(mature or list(available), key=vtuple)


def py_range(pythons: tuple[str, ...]) -> str:
    ordered = sorted(pythons, key=vtuple)
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]}–{ordered[-1]}"


def select(releases: tuple, version: str | None, name: str, matrix: Matrix) -> list[tuple[object, str]]:
    """(release, exact version) pairs to try, newest first. UnknownPinnedRelease for a release the matrix lacks."""
    if version is None:
        return [(r, r.latest) for r in reversed(releases)]
    try:
        want = series(version)
        parts = vtuple(version)
    except ValueError:
        raise UnknownPinnedRelease(f"{name} {version!r} is not a version") from None
    found = [r for r in releases if r.series == want]
    if not found:
        known = ", ".join(r.series for r in releases)
        raise UnknownPinnedRelease(
            f"{name} {version} is not in the compatibility matrix (reviewed {matrix.reviewed}; it knows {known})",
            suggestion=f"choose a release the matrix knows, e.g. {releases[-1].latest}",
        )
    release = found[0]
    return [(release, version if len(parts) >= 3 else release.latest)]


# -- does a build fit the GPUs? ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    """How well a build fits a target's GPUs: a rank to prefer native code and confirmed arch lists, and why."""

    rank: tuple
    reasons: tuple[str, ...]
    notes: tuple[str, ...]


def gpu_fit(
    matrix: Matrix,
    target: Target,
    arch: tuple[str, ...] | None,
    confirmed: bool,
    cuda: str,
    label: str,
    rejects: list[str],
    *,
    cudnn: str | None = None,
    ptx_cuda: str | None = None,
) -> Fit | None:
    """Whether a build (arch list, cuDNN, CUDA) runs on every GPU of the target with its driver. The checks run in
    the order of what no driver upgrade can fix: the GPU architecture, then cuDNN's compute-capability floor, then
    the driver. ``ptx_cuda``: the CUDA that made the build's PTX, when it differs from the runtime ``cuda``."""
    if arch is None:
        rejects.append(f"{label}: its compiled GPU architectures are not known")
        return None
    covers = {cc: arch_support(arch, cc) for cc in dict.fromkeys(target.compute_capabilities)}  # each cc once
    missing = [cc for cc, how in covers.items() if how is None]
    if missing:
        rejects.append(f"{label} has no code for compute capability {', '.join(missing)} (it has {' '.join(arch)})")
        return None
    old = _ptx_on_newer_arch(matrix, covers, cuda)
    if old:
        rejects.append(f"{label} {old}")
        return None
    floor = matrix.cudnn_cc_min(cudnn) if cudnn else None
    below = [cc for cc in target.compute_capabilities if floor and cc_tuple(cc) < cc_tuple(floor)]
    if below:
        rejects.append(
            f"{label} ships cuDNN {cudnn}, which supports compute capability >= {floor} only ({', '.join(below)} is older): "
            f"its convolutions would fail on this GPU"
        )
        return None
    os = driver_os(target.os, target.wsl)
    dv = driver_verdict(matrix, cuda, target.driver_version, target.driver_cuda, os)
    described = bool(target.driver_version or target.driver_cuda)
    if described and dv.ok is False:
        rejects.append(f"{label} needs CUDA {cuda}: driver >= {dv.need}; driver {_driver_label(target, dv)} is older")
        return None
    ptx = [cc for cc, how in covers.items() if how == "ptx"]
    made_by = ptx_cuda or cuda
    have = try_vtuple(dv.driver_cuda) if dv.driver_cuda else None  # None: unreadable ("1.999…" past int's limit)
    if ptx and have is not None and have[:2] < vtuple(made_by)[:2]:
        rejects.append(
            f"{label} runs compute capability {', '.join(ptx)} only through PTX made by CUDA {made_by}, newer than the driver's CUDA {dv.driver_cuda} can JIT-compile"
        )
        return None
    reasons: list[str] = []
    notes: list[str] = []
    if described:
        if dv.mode == "native":
            reasons.append(f"driver {_driver_label(target, dv)} supports CUDA {dv.driver_cuda or '?'} -> {label} (CUDA {cuda})")
        elif dv.mode:
            reasons.append(
                f"driver {_driver_label(target, dv)} supports CUDA {dv.driver_cuda or '?'} -> {label} (CUDA {cuda}, minor-version compatibility within {vtuple(cuda)[0]}.x, driver >= {dv.need})"
            )
            if dv.full:
                notes.append(
                    f"CUDA {cuda} runs on this driver through minor-version compatibility (limited feature set); the full feature set needs driver >= {dv.full}"
                )
        if is_branch(target.driver_version):
            notes.append(f"driver branch R{target.driver_version}: judged by the branch's first release; `nvidia-smi` shows the exact version")
    else:
        need = dv.need or dv.full
        notes.append(f"no NVIDIA driver known: {label} needs one >= {need}" if need else f"no NVIDIA driver known: {label} needs one for CUDA {cuda}")
    if cudnn and floor:
        reasons.append(f"{label} ships cuDNN {cudnn} (compute capability >= {floor}): it supports this GPU")
    for cc, how in covers.items():
        kind = "native code (SASS)" if how == "sass" else "PTX only"
        reasons.append(f"compute capability {cc} -> {label} has {kind} for it ({_matching_arch(arch, cc)})")
    if ptx:
        notes.append(
            f"compute capability {', '.join(ptx)} runs {label} through PTX JIT: the first start compiles the kernels (slow, minutes); later starts use the cache"
        )
    if not confirmed:
        notes.append(f"the architecture list of {label} comes from conda packages or documentation, not from the wheel itself")
    return Fit((not ptx, confirmed), tuple(reasons), tuple(notes))


def _ptx_on_newer_arch(matrix: Matrix, covers: dict[str, str | None], cuda: str) -> str | None:
    """Why a build reaches a GPU only through PTX made before that GPU's architecture existed, or None.

    The rule: a build whose CUDA is older than the first CUDA that compiles for a GPU's compute capability (cuda.toml
    [[targets]]) cannot run on that GPU, PTX or not. The framework's own PTX might JIT-compile, but the CUDA libraries
    the build loads with it (cuBLAS, cuFFT, cuDNN of that CUDA) have no code for an architecture their CUDA did not
    know, so the first library call fails. SASS of the same major (sm_80 on an 8.6 GPU) is binary-compatible and is
    not affected."""
    known = matrix.cuda_targets_for(cuda)
    if known is None:
        return None
    late = [cc for cc, how in covers.items() if how == "ptx" and cc_tuple(cc) > cc_tuple(known.max_cc)]
    if not late:
        return None
    first = next((t.since for t in matrix.cuda_targets if cc_tuple(t.max_cc) >= cc_tuple(max(late, key=cc_tuple))), None)
    need = f"; compute capability {', '.join(late)} needs a build made with CUDA >= {first}" if first else ""
    return (
        f"reaches compute capability {', '.join(late)} only through PTX, and its CUDA {cuda} predates that architecture "
        f"(CUDA {cuda} compiles for compute capability <= {known.max_cc}): the CUDA {cuda} libraries it loads (cuBLAS, cuDNN) have no code for it{need}"
    )


def _driver_label(target: Target, dv: DriverVerdict) -> str:
    if is_branch(target.driver_version):
        return f"R{target.driver_version}"
    return target.driver_version or f"(CUDA {dv.driver_cuda})"


def _matching_arch(arch: tuple[str, ...], cc: str) -> str:
    """The entry that serves compute capability ``cc``: the closest SASS, else the PTX."""
    sass = [a for a in arch if a.startswith("sm_") and arch_support((a,), cc) == "sass"]
    if sass:
        return sass[-1]
    ptx = [a for a in arch if arch_support((a,), cc) == "ptx"]
    return ptx[-1] if ptx else "?"
