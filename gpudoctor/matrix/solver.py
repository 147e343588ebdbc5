"""Target machine -> the newest framework build it can really run, with the reason for every decision.

The rules (all data comes from the Matrix):
- a release must have a wheel for the Python version (and OS);
- the driver must run the build's CUDA: natively (the driver's CUDA >= the build's) or through minor-version
  compatibility (same major, driver at or above that major's floor; 10.x and older have none);
- the build's compiled architectures must cover every GPU: SASS of the same major and an equal or lower minor,
  or PTX of an equal or lower compute capability (slow first start; the driver's JIT must be new enough);
- among the variants that fit: SASS before PTX, confirmed arch lists before unconfirmed ones, the release's default
  variant, then the newest CUDA.
No GPU (or cpu=True) -> the CPU build. TensorFlow on native Windows with a GPU -> the 2.10 route (conda
cudatoolkit 11.2 + cuDNN 8.1), with a note that suggests WSL2.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..errors import GpuDoctorError
from .model import Matrix, TfRelease, TorchRelease, TorchVariant, arch_support, cc_tuple, series, try_vtuple, version_ge, vtuple

if TYPE_CHECKING:
    from ..model import Facts

__all__ = [
    "Target",
    "Choice",
    "NoFit",
    "DriverVerdict",
    "solve",
    "target_from_facts",
    "gpu_compute_capability",
    "driver_verdict",
    "install_commands",
    "DEFAULT_PYTHON_CAP",
]

# When no Python is asked for, choose the newest one a release has wheels for, but not newer than this (brand-new
# Pythons lack wheels of many other packages). A policy, not a compatibility fact: --python overrides it.
DEFAULT_PYTHON_CAP = "3.13"


@dataclass(frozen=True)
class Target:
    """The machine to solve for."""

    os: str  # "linux" | "windows" | "darwin"
    python: str | None  # "3.11"; None = choose one
    driver_version: str | None  # "550.54.15"; None = no NVIDIA driver (or unknown)
    driver_cuda: str | None  # "12.4" as nvidia-smi prints; None = derive from driver_version via the CUDA table
    compute_capabilities: tuple[str, ...]  # ("8.9",); empty = no GPU
    wsl: bool = False
    arch: str = "x86_64"


@dataclass(frozen=True)
class Choice:
    framework: str  # "torch" | "tensorflow"
    version: str  # "2.14.1" (exact release)
    variant: str  # "cu130" | "cu126" | "cpu" | "and-cuda" | "cuda-11.2-conda" | "cuda-11.8-system"
    index_url: str | None  # PyTorch's index for torch; None = the default package index suffices
    packages: tuple[str, ...]  # exact pip requirement strings
    python: str  # the Python to use, e.g. "3.12"
    cuda: str | None  # CUDA of the chosen build, None for CPU builds
    conda_packages: tuple[str, ...] = ()  # e.g. ("cudatoolkit=11.2", "cudnn=8.1.0") for native-Windows TF 2.10
    reasons: tuple[str, ...] = ()  # one sentence per decision
    notes: tuple[str, ...] = ()  # caveats

    @property
    def label(self) -> str:
        """"torch 2.14.1+cu126", "tensorflow 2.21.0 (and-cuda)"."""
        if self.framework == "torch":
            return f"torch {self.version}+{self.variant}"
        return f"tensorflow {self.version} ({self.variant})"


class NoFit(GpuDoctorError):
    """No release fits the target (or the pinned version cannot run on it)."""

    def __init__(self, message: str, reasons: tuple[str, ...] = (), suggestion: str | None = None):
        super().__init__(message)
        self.reasons = tuple(reasons)
        self.suggestion = suggestion


@dataclass(frozen=True)
class DriverVerdict:
    ok: bool | None  # None: cannot tell (no driver facts, or a CUDA major the matrix does not know)
    mode: str | None  # "native" (driver CUDA >= build CUDA) | "minor-version compatibility" | None
    driver_cuda: str | None  # the CUDA the driver supports (given or derived)
    need: str | None  # the minimum driver for this build (the major's floor, or the toolkit's own driver for <= 10.x)
    full: str | None  # the driver shipped with that CUDA release (full feature set, PTX JIT of its code)

    @property
    def native(self) -> bool:
        return self.mode == "native"


def driver_os(os: str | None, wsl: bool | int | None = False) -> str:
    """Which driver table applies: WSL2 runs the Windows driver."""
    return "windows" if os == "windows" or wsl else "linux"


def driver_verdict(matrix: Matrix, cuda: str, driver_version: str | None, driver_cuda: str | None, os: str = "linux") -> DriverVerdict:
    """Can this driver run a build made with CUDA ``cuda``? ``os`` is the driver's OS ("windows" for WSL2)."""
    want = vtuple(cuda)[:2]
    major = want[0]
    dcuda = driver_cuda or (matrix.driver_cuda(driver_version, os) if driver_version else None)
    full = matrix.min_driver(cuda, os)
    have_cuda = try_vtuple(dcuda)
    if major >= 11:
        need = matrix.mvc_floor(major, os)
    else:
        need = full
    if have_cuda is not None and have_cuda[:2] >= want:
        # Before CUDA 11 there is no minor-version compatibility: an exact toolkit (8.0.61, 9.2.148) needs its own
        # driver even where an earlier release of the same minor (8.0.44) is satisfied.
        if major < 11 and need and try_vtuple(driver_version) is not None and not version_ge(driver_version, need):
            return DriverVerdict(False, None, dcuda, need, full)
        return DriverVerdict(True, "native", dcuda, need, full)
    if need is None:
        return DriverVerdict(None, None, dcuda, None, full)
    if try_vtuple(driver_version) is not None:
        ok = version_ge(driver_version, need)
    elif have_cuda is not None:
        ok = major >= 11 and have_cuda[0] == major
    else:
        return DriverVerdict(None, None, dcuda, need, full)
    mode = ("minor-version compatibility" if major >= 11 else "native") if ok else None
    return DriverVerdict(ok, mode, dcuda, need, full)


def gpu_compute_capability(matrix: Matrix, name: str) -> str | None:
    """nvidia-smi-style product name -> "8.9" ("RTX 4090", "NVIDIA GeForce RTX 4090", "Tesla V100-SXM2-16GB")."""
    return matrix.gpu_compute_capability(name)


def target_from_facts(facts: "Facts", python: str | None = None, matrix: Matrix | None = None) -> Target:
    """The Target a Facts snapshot describes. GPUs without a known compute capability are looked up by name."""
    host = facts.host
    os = (host.os if host and host.os else "linux").lower()
    py = python or (host.python if host else None)
    if py:
        parts = try_vtuple(py)
        py = f"{parts[0]}.{parts[1]}" if parts and len(parts) >= 2 else None
    driver = facts.driver
    ccs: list[str] = []
    for gpu in facts.gpus or ():
        cc = gpu.compute_capability
        if not cc and gpu.name:
            if matrix is None:
                from . import load_matrix

                matrix = load_matrix()
            cc = matrix.gpu_compute_capability(gpu.name)
        if cc:
            ccs.append(cc)
    return Target(
        os=os,
        python=py,
        driver_version=driver.version if driver else None,
        driver_cuda=driver.cuda_version if driver else None,
        compute_capabilities=tuple(ccs),
        wsl=bool(host and host.wsl),
        arch=(host.arch if host and host.arch else "x86_64"),
    )


def solve(matrix: Matrix, target: Target, framework: str, version: str | None = None, cpu: bool = False) -> Choice:
    """The newest release of ``framework`` ("torch" | "tensorflow") this target can run; ``version`` pins a release
    ("2.7", "2.7.1"). Raises NoFit with the reasons when nothing fits."""
    fw = {"torch": "torch", "pytorch": "torch", "tensorflow": "tensorflow", "tf": "tensorflow"}.get(framework.lower())
    if fw is None:
        raise NoFit(f"unknown framework {framework!r} (torch or tensorflow)")
    attempt = _solve_torch if fw == "torch" else _solve_tf
    try:
        return attempt(matrix, target, version, cpu)
    except NoFit as first:
        if target.python is None:
            raise
        try:
            choice = attempt(matrix, replace(target, python=None), version, cpu)
        except NoFit:
            raise first from None
        why = f"Python {target.python} has no wheel of a {_fw_name(fw)} build that fits this machine: use Python {choice.python}"
        return replace(choice, reasons=(why,) + choice.reasons)


def install_commands(choice: Choice) -> tuple[str, ...]:
    """The exact commands that install a Choice: conda packages first (if any), then pip."""
    commands = []
    if choice.conda_packages:
        commands.append("conda install -c conda-forge " + " ".join(choice.conda_packages))
    pip = "pip install " + " ".join(_quote(p) for p in choice.packages)
    if choice.index_url:
        pip += f" --index-url {choice.index_url}"
    commands.append(pip)
    return tuple(commands)


# ---------------------------------------------------------------------------------------------------------------


def _fw_name(fw: str) -> str:
    return "PyTorch" if fw == "torch" else "TensorFlow"


def _quote(requirement: str) -> str:
    return shlex.quote(requirement) if any(ch in requirement for ch in "[]<>*! ;") else requirement


def _pick_python(available: tuple[str, ...], wanted: str | None, experimental: tuple[str, ...] = ()) -> str | None:
    if wanted:
        return wanted if wanted in available else None
    if not available:
        return None
    cap = vtuple(DEFAULT_PYTHON_CAP)
    mature = [p for p in available if p not in experimental and vtuple(p) <= cap]
    return max(mature or list(available), key=vtuple)


def _py_range(pythons: tuple[str, ...]) -> str:
    ordered = sorted(pythons, key=vtuple)
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]}–{ordered[-1]}"


def _select(releases: tuple, version: str | None, name: str, matrix: Matrix) -> list[tuple[object, str]]:
    """(release, exact version) pairs to try, newest first."""
    if version is None:
        return [(r, r.latest) for r in reversed(releases)]
    try:
        want = series(version)
        parts = vtuple(version)
    except ValueError:
        raise NoFit(f"{name} {version!r} is not a version") from None
    found = [r for r in releases if r.series == want]
    if not found:
        newest = releases[-1].latest
        raise NoFit(
            f"{name} {version} is not in the compatibility matrix (reviewed {matrix.reviewed}; it knows up to {newest})",
            suggestion=f"choose a release the matrix knows, e.g. {newest}",
        )
    release = found[0]
    return [(release, version if len(parts) >= 3 else release.latest)]


@dataclass
class _Fit:
    rank: tuple
    reasons: list[str]
    notes: list[str]


def _gpu_fit(matrix: Matrix, target: Target, arch: tuple[str, ...] | None, confirmed: bool, cuda: str, label: str, rejects: list[str]) -> _Fit | None:
    """Whether a build (arch list, CUDA) runs on every GPU of the target with its driver; reasons if it does."""
    os = driver_os(target.os, target.wsl)
    dv = driver_verdict(matrix, cuda, target.driver_version, target.driver_cuda, os)
    if target.driver_version or target.driver_cuda:
        if dv.ok is False:
            rejects.append(f"{label} needs CUDA {cuda}: driver >= {dv.need}; driver {_driver_label(target, dv)} is older")
            return None
    if arch is None:
        rejects.append(f"{label}: its compiled GPU architectures are not known")
        return None
    covers = {cc: arch_support(arch, cc) for cc in target.compute_capabilities}
    missing = [cc for cc, how in covers.items() if how is None]
    if missing:
        rejects.append(f"{label} has no code for compute capability {', '.join(missing)} (it has {' '.join(arch)})")
        return None
    ptx = [cc for cc, how in covers.items() if how == "ptx"]
    reasons: list[str] = []
    notes: list[str] = []
    if ptx and dv.driver_cuda and try_vtuple(dv.driver_cuda)[:2] < vtuple(cuda)[:2]:
        rejects.append(
            f"{label} runs compute capability {', '.join(ptx)} only through PTX made by CUDA {cuda}, newer than the driver's CUDA {dv.driver_cuda} can JIT-compile"
        )
        return None
    if target.driver_version or target.driver_cuda:
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
    else:
        need = dv.need or dv.full
        notes.append(f"no NVIDIA driver known: {label} needs one >= {need}" if need else f"no NVIDIA driver known: {label} needs one for CUDA {cuda}")
    for cc, how in covers.items():
        kind = "native code (SASS)" if how == "sass" else "PTX only"
        reasons.append(f"compute capability {cc} -> {label} has {kind} for it ({_matching_arch(arch, cc)})")
    if ptx:
        notes.append(
            f"compute capability {', '.join(ptx)} runs {label} through PTX JIT: the first start compiles the kernels (slow, minutes); later starts use the cache"
        )
    if not confirmed:
        notes.append(f"the architecture list of {label} comes from conda packages or documentation, not from the wheel itself")
    rank = (not ptx, confirmed)
    return _Fit(rank, reasons, notes)


def _driver_label(target: Target, dv: DriverVerdict) -> str:
    return target.driver_version or f"(CUDA {dv.driver_cuda})"


def _matching_arch(arch: tuple[str, ...], cc: str) -> str:
    """The entry that serves compute capability ``cc``: the closest SASS, else the PTX."""
    sass = [a for a in arch if a.startswith("sm_") and arch_support((a,), cc) == "sass"]
    if sass:
        return sass[-1]
    ptx = [a for a in arch if arch_support((a,), cc) == "ptx"]
    return ptx[-1] if ptx else "?"


# -- PyTorch ----------------------------------------------------------------------------------------------------


def _solve_torch(matrix: Matrix, target: Target, version: str | None, cpu: bool) -> Choice:
    use_gpu = bool(target.compute_capabilities) and not cpu and target.os != "darwin"
    rejects: list[str] = []
    for release, exact in _select(matrix.torch, version, "torch", matrix):
        assert isinstance(release, TorchRelease)
        pythons = matrix.python_for("torch", exact) or release.python  # the published wheels' where they differ
        py = _pick_python(pythons, target.python, release.python_experimental)
        if py is None:
            rejects.append(f"torch {exact} has no wheel for Python {target.python} (it has {_py_range(pythons)})")
            continue
        py_reason = f"Python {py}: torch {exact} has wheels for Python {_py_range(pythons)}"
        if not use_gpu:
            return _torch_cpu(matrix, target, release, exact, py, py_reason, cpu)
        best: tuple[tuple, TorchVariant, _Fit] | None = None
        for variant in release.variants:
            if not variant.cuda:
                continue
            label = f"torch {exact}+{variant.tag}"
            fit = _gpu_fit(matrix, target, variant.arch_for(driver_os(target.os)), variant.arch_confirmed, variant.cuda, label, rejects)
            if fit is None:
                continue
            rank = fit.rank + (variant.tag == release.default_linux, vtuple(variant.cuda))
            if best is None or rank > best[0]:
                best = (rank, variant, fit)
        if best is None:
            continue
        _rank, variant, fit = best
        packages = [f"torch=={exact}"]
        tv = release.torchvision_requirement(exact)
        if tv:
            packages.append(tv)
        reasons = [py_reason] + fit.reasons
        if variant.tag == release.default_linux:
            reasons.append(f"{variant.tag} is the default CUDA variant of torch {release.series}")
        reasons.extend(f"skipped: {r}" for r in _newer_rejects(rejects, exact))
        notes = list(fit.notes)
        if target.os == "windows":
            notes.append("on Windows a plain `pip install torch` gets a CPU-only build: CUDA builds come only from PyTorch's index")
        if not tv:
            notes.append(f"no torchvision release is confirmed for torch {release.series}")
        return Choice(
            framework="torch",
            version=exact,
            variant=variant.tag,
            index_url=matrix.torch_index(variant.tag),
            packages=tuple(packages),
            python=py,
            cuda=variant.cuda,
            reasons=tuple(reasons),
            notes=tuple(notes),
        )
    raise _no_fit("torch", matrix, target, version, rejects)


def _torch_cpu(matrix: Matrix, target: Target, release: TorchRelease, exact: str, py: str, py_reason: str, cpu: bool) -> Choice:
    packages = [f"torch=={exact}"]
    tv = release.torchvision_requirement(exact)
    if tv:
        packages.append(tv)
    if cpu:
        why = "a CPU build was asked for"
    elif target.os == "darwin":
        why = "macOS: PyTorch has no CUDA builds there (CPU / Apple MPS build from the default index)"
    else:
        why = "no NVIDIA GPU: the CPU build (smaller, no CUDA libraries)"
    return Choice(
        framework="torch",
        version=exact,
        variant="cpu",
        index_url=None if target.os == "darwin" else matrix.torch_index("cpu"),
        packages=tuple(packages),
        python=py,
        cuda=None,
        reasons=(py_reason, why),
    )


def _newer_rejects(rejects: list[str], chosen: str) -> list[str]:
    """The rejections of releases newer than the chosen one (they explain why it is not the newest), at most 4."""
    out = []
    for r in rejects:
        if chosen not in r:
            out.append(r)
    return out[:4]


# -- TensorFlow -------------------------------------------------------------------------------------------------


def _solve_tf(matrix: Matrix, target: Target, version: str | None, cpu: bool) -> Choice:
    use_gpu = bool(target.compute_capabilities) and not cpu and target.os != "darwin"
    if use_gpu and target.os == "windows" and not target.wsl:
        return _tf_windows(matrix, target, version)
    rejects: list[str] = []
    for release, exact in _select(matrix.tensorflow, version, "tensorflow", matrix):
        assert isinstance(release, TfRelease)
        # the published wheels' Pythons where they differ; on the GPU route only those the and-cuda extra installs on
        pythons = matrix.python_for("tensorflow", exact, and_cuda=use_gpu and release.has_and_cuda) or release.python
        py = _pick_python(pythons, target.python)
        if py is None:
            extra = "[and-cuda]" if use_gpu and release.has_and_cuda else ""
            rejects.append(f"tensorflow{extra} {exact} has no wheel for Python {target.python} (it has {_py_range(pythons)})")
            continue
        py_reason = f"Python {py}: tensorflow {exact} has wheels for Python {_py_range(pythons)}"
        if not use_gpu:
            why = "a CPU build was asked for" if cpu else ("macOS: no CUDA build" if target.os == "darwin" else "no NVIDIA GPU: runs on the CPU")
            return Choice("tensorflow", exact, "cpu", None, (f"tensorflow=={exact}",), py, None, reasons=(py_reason, why))
        label = f"tensorflow {exact}"
        fit = _gpu_fit(matrix, target, release.arch, release.arch_confirmed, release.cuda, label, rejects)
        if fit is None:
            continue
        reasons = [py_reason] + fit.reasons + [f"skipped: {r}" for r in _newer_rejects(rejects, exact)]
        notes = list(fit.notes)
        if release.has_and_cuda:
            packages = [f"tensorflow[and-cuda]=={exact}"]
            variant = "and-cuda"
            reasons.append(f"tensorflow {release.series} installs its CUDA {release.cuda} / cuDNN libraries as nvidia-* wheels (`and-cuda` extra)")
            pin = release.cudnn_pin_below_cc
            if pin:
                low = [cc for cc in target.compute_capabilities if cc_tuple(cc) < cc_tuple(pin[0])]
                if low:
                    packages.append(pin[1])
                    notes.append(
                        f"{pin[1]} pinned: `and-cuda` lets pip take the newest cuDNN 9, and cuDNN >= 9.11 no longer supports compute capability < {pin[0]} ({', '.join(low)})"
                    )
        else:
            packages = [f"{release.package}=={exact}"]
            variant = f"cuda-{release.cuda}-system"
            notes.append(
                f"tensorflow {exact} needs CUDA {release.cuda} and cuDNN {release.cudnn} libraries on the loader path (it has no `and-cuda` extra; that came with 2.14)"
            )
        return Choice("tensorflow", exact, variant, None, tuple(packages), py, release.cuda, reasons=tuple(reasons), notes=tuple(notes))
    raise _no_fit("tensorflow", matrix, target, version, rejects)


def _tf_windows(matrix: Matrix, target: Target, version: str | None) -> Choice:
    last = matrix.tf_release(matrix.tf_windows_gpu_last)
    assert last is not None
    wsl = (
        f"TensorFlow newer than {last.series} has no GPU support on native Windows: for a current release use WSL2 "
        f"({matrix.tf_wsl_min_windows} or later) and `pip install 'tensorflow[and-cuda]'` there"
    )
    if version is not None:
        pinned = matrix.tf_release(version)
        if pinned is None or not pinned.windows_gpu:
            raise NoFit(
                f"tensorflow {version} has no GPU support on native Windows (the last release with it is {last.latest})",
                reasons=(wsl,),
                suggestion=f"use WSL2, or tensorflow=={last.latest} with Python {_py_range(last.windows_python)}",
            )
        release, exact = pinned, (version if len(vtuple(version)) >= 3 else pinned.latest)
    else:
        release, exact = last, last.latest
    pythons = release.windows_python or release.python
    reasons = []
    if target.python and target.python in pythons:
        py = target.python
    else:
        py = _pick_python(pythons, None)
        if target.python:
            reasons.append(
                f"Python {target.python} has no tensorflow {exact} wheel: the native-Windows GPU route needs Python {_py_range(pythons)} (a separate environment with Python {py})"
            )
    reasons.append(f"native Windows: tensorflow {exact} is the last release with GPU support there (CUDA {release.windows_cuda}, cuDNN {release.windows_cudnn})")
    cuda = release.windows_cuda or release.cuda
    rejects: list[str] = []
    fit = _gpu_fit(matrix, target, release.arch, release.arch_confirmed, cuda, f"tensorflow {exact}", rejects)
    if fit is None:
        raise NoFit(f"tensorflow {exact} cannot use this GPU on native Windows", reasons=tuple(rejects) + (wsl,), suggestion="use WSL2 with a current TensorFlow")
    conda = matrix.tf_windows_gpu_conda if release.series == last.series else (f"cudatoolkit={release.windows_cuda}", f"cudnn={release.windows_cudnn}")
    return Choice(
        framework="tensorflow",
        version=exact,
        variant=f"cuda-{cuda}-conda",
        index_url=None,
        packages=(f"tensorflow=={exact}",),
        python=py,
        cuda=cuda,
        conda_packages=tuple(conda),
        reasons=tuple(reasons + fit.reasons),
        notes=tuple(fit.notes) + (wsl,),
    )


# -- NoFit ------------------------------------------------------------------------------------------------------


def _no_fit(fw: str, matrix: Matrix, target: Target, version: str | None, rejects: list[str]) -> NoFit:
    what = f"{fw} {version}" if version else f"any {fw} release"
    suggestion = None
    if version is not None:
        try:
            alt = solve(matrix, target, fw)
            suggestion = f"the newest {fw} this machine runs is {alt.label}"
        except NoFit:
            alt = None
        need = _driver_needed(matrix, target, fw, version)
        if need:
            suggestion = f"{suggestion}; for {fw} {version} " if suggestion else f"for {fw} {version} "
            suggestion += f"upgrade the driver to >= {need}"
    else:
        need = _driver_needed(matrix, target, fw, None)
        if need:
            suggestion = f"upgrade the driver to >= {need}"
    reasons = tuple(dict.fromkeys(rejects))[:8]
    return NoFit(f"no build of {what} fits this machine", reasons=reasons, suggestion=suggestion)


def _driver_needed(matrix: Matrix, target: Target, fw: str, version: str | None) -> str | None:
    """The lowest driver with which some build of the (pinned or newest) release runs on the target's GPUs."""
    if not (target.driver_version or target.driver_cuda):
        return None
    os = driver_os(target.os, target.wsl)
    if fw == "torch":
        rel = matrix.torch_release(version) if version else matrix.newest_torch()
        builds = [(v.arch_for(os), v.cuda) for v in rel.variants if v.cuda] if rel else []
    else:
        rel = matrix.tf_release(version) if version else matrix.newest_tf()
        builds = [(rel.arch, rel.cuda)] if rel else []
    needs = []
    for arch, cuda in builds:
        if arch is None or any(arch_support(arch, cc) is None for cc in target.compute_capabilities):
            continue
        dv = driver_verdict(matrix, cuda, None, None, os)
        if dv.need:
            needs.append(dv.need)
    return min(needs, key=vtuple) if needs else None
