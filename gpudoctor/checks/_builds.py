"""The framework builds in a Facts snapshot, completed from the matrix where the snapshot is silent, plus the
fix helpers the version rules share. Pure: reads Facts and Matrix only."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from ..matrix.tables.versions import try_vtuple
from ..model import Facts, Fix, Section

if TYPE_CHECKING:
    from ..model import Gpu
    from ..matrix.tables.model import Matrix, TfRelease, TorchRelease, TorchVariant
    from ..matrix.solver.solve import Choice

TORCH_URL = "https://pytorch.org/get-started/locally/"
TORCH_PREVIOUS_URL = "https://pytorch.org/get-started/previous-versions/"
TF_PIP_URL = "https://www.tensorflow.org/install/pip"
DRIVER_URL = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#cuda-driver"
MVC_URL = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"


class Build(NamedTuple):
    """One installed framework build (torch or TensorFlow) as the build checks compare it with the GPU and driver."""
    framework: str  # "torch" | "tensorflow"
    version: str  # as installed: "2.7.1+cu128", "2.16.1"
    cuda: str | None  # CUDA of the build; None: CPU build or unknown
    cudnn: str | None  # the cuDNN it was built with / pins (where known)
    arch: tuple[str, ...] | None  # compiled GPU architectures
    arch_source: str | None  # "snapshot" | "matrix"
    arch_confirmed: bool
    known: bool  # the matrix knows this release (and variant)
    torch_release: "TorchRelease | None" = None
    torch_variant: "TorchVariant | None" = None
    tf_release: "TfRelease | None" = None

    @property
    def label(self) -> str:
        return f"{self.framework} {self.version}"

    @property
    def section(self) -> Section:
        return Section.TORCH if self.framework == "torch" else Section.TENSORFLOW

    @property
    def name(self) -> str:
        from ..matrix.tables.framework import Framework

        return Framework(self.framework).label

    @property
    def cuda_major(self) -> int | None:
        v = vt(self.cuda)
        return v[0] if v else None


def vt(text: str | None) -> tuple[int, ...] | None:
    return try_vtuple(text)


def host_os(facts: Facts) -> str | None:
    return facts.host.os.lower() if facts.host and facts.host.os else None


def is_wsl(facts: Facts) -> bool:
    return bool(facts.host and facts.host.wsl)


def python_minor(facts: Facts) -> str | None:
    v = vt(facts.host.python if facts.host else None)
    return f"{v[0]}.{v[1]}" if v and len(v) >= 2 else None


def gpu_cc(gpu: Gpu, matrix: "Matrix | None") -> str | None:
    if gpu.compute_capability:
        return gpu.compute_capability
    if gpu.name and matrix is not None:
        return matrix.gpu_compute_capability(gpu.name)
    return None


def gpu_name(gpu: Gpu) -> str:
    return f"GPU {gpu.index if gpu.index is not None else '?'} ({gpu.name or 'unknown model'})"


def builds(facts: Facts, matrix: "Matrix") -> list[Build]:
    """The installed builds, found once per facts (every build check asks; see _answers)."""
    answers = _answers(facts, matrix)
    if "builds" not in answers:
        answers["builds"] = tuple(_builds(facts, matrix))
    return list(answers["builds"])


def _builds(facts: Facts, matrix: "Matrix") -> list[Build]:
    out = []
    torch = _torch(facts, matrix)
    if torch:
        out.append(torch)
    tf = _tf(facts, matrix)
    if tf:
        out.append(tf)
    return out


def _torch(facts: Facts, matrix: "Matrix") -> Build | None:
    fw = facts.frameworks.torch if facts.frameworks else None
    version = (fw.version if fw else None) or (facts.python_packages or {}).get("torch")
    if not version or vt(version) is None:
        return None
    if fw and fw.hip:
        return None  # ROCm builds: not judged by the CUDA rules
    cuda = fw.cuda if fw else None
    tag = version.split("+", 1)[1] if "+" in version else None
    if cuda is None and tag and re.fullmatch(r"cu\d{3,}", tag):
        cuda = f"{tag[2:-1]}.{tag[-1]}"
    if tag == "cpu":
        cuda = None
    found = matrix.torch_build(version, cuda) if (cuda or tag) else None
    release = matrix.torch_release(version)
    variant = found[1] if found else None
    arch, source, confirmed = None, None, True
    if fw and fw.arch_list:
        arch, source = tuple(fw.arch_list), "snapshot"
    elif variant is not None and variant.arch is not None:
        arch, source, confirmed = variant.arch_for(host_os(facts) or "linux"), "matrix", variant.arch_confirmed
    cudnn = variant.cudnn if variant else None
    return Build("torch", version, cuda, cudnn, arch, source, confirmed, release is not None and (variant is not None or cuda is None), release, variant)


def _tf(facts: Facts, matrix: "Matrix") -> Build | None:
    fw = facts.frameworks.tensorflow if facts.frameworks else None
    packages = facts.python_packages or {}
    gpu_dist = packages.get("tensorflow-gpu")  # TF <= 2.0: the CUDA build is this distribution (1.x often has only it)
    version = (fw.version if fw else None) or packages.get("tensorflow") or gpu_dist
    if not version or vt(version) is None:
        return None
    release = matrix.tf_release(version)
    is_cuda = fw.is_cuda_build if fw else None
    if is_cuda is None and gpu_dist and gpu_dist == version:
        is_cuda = True
    cuda = fw.cuda if fw and fw.cuda else None
    if cuda is None and is_cuda and release is not None:
        cuda = release.cuda
    cudnn = fw.cudnn if fw and fw.cudnn else None
    if release is not None and is_cuda and (cudnn is None or (vt(cudnn) and len(vt(cudnn)) == 1 and vt(cudnn)[0] == vt(release.cudnn)[0])):
        cudnn = release.cudnn  # build_info often gives only the major ("8"): the tested minor is more precise
    arch, source, confirmed = None, None, True
    if fw and fw.compute_capabilities:
        arch, source = tuple(fw.compute_capabilities), "snapshot"
    elif release is not None and release.arch_for(version) is not None and is_cuda:
        arch, source, confirmed = release.arch_for(version), "matrix", release.arch_confirmed
    return Build("tensorflow", version, cuda if is_cuda else None, cudnn if is_cuda else None, arch, source, confirmed, release is not None, tf_release=release)


# -- fixes --------------------------------------------------------------------------------------------------------


def solve_for(facts: Facts, matrix: "Matrix", framework: str, version: str | None = None) -> "tuple[Choice | None, str | None]":
    """(the build to install on THIS machine, or None; the NoFit explanation when there is none)."""
    from ..matrix.solver.solve import NoFit, solve, target_from_facts

    # Every finding's fix asks this of the same facts: solve once per (facts, matrix, framework, version).
    answers = _answers(facts, matrix)
    if (framework, version) in answers:
        return answers[(framework, version)]
    target = target_from_facts(facts, matrix)
    try:
        answer: tuple[Choice | None, str | None] = (solve(matrix, target, framework, version), None)
    except NoFit as exc:
        text = str(exc)
        if exc.suggestion:
            text += f": {exc.suggestion}"
        answer = (None, text)
    answers[(framework, version)] = answer
    return answer


_SOLVED: dict = {}  # "memo" -> (facts, matrix, {question: answer}) of the facts judged last


def _answers(facts: Facts, matrix: "Matrix") -> dict:
    """The memo of what was worked out for these facts and this matrix (issue 23: a snapshot of 1,000 GPUs, and a
    fleet of 10,000 snapshots). It holds the last facts judged only, kept by identity (the same object, not an
    equal one), so nothing stale is ever answered."""
    memo = _SOLVED.get("memo")
    if memo is None or memo[0] is not facts or memo[1] is not matrix:
        memo = (facts, matrix, {})
        _SOLVED["memo"] = memo
    return memo[2]


def install_fix(facts: Facts, matrix: "Matrix | None", framework: str, summary: str, extra: str | None = None,
                prefer_version: str | None = None, first: tuple[str, ...] = (), gpu_build: bool = False) -> Fix:
    """The one fix builder: install the newest build that fits this machine (or ``prefer_version`` if it fits),
    after the ``first`` commands (e.g. uninstalling a wrong build). With no build that fits, the fix says why and
    offers no command rather than a guess. ``gpu_build``: the fix must be a CUDA build; where the machine's GPU and
    driver are unknown (the solver then fits a CPU build), it says how to pick the CUDA build instead."""
    from ..matrix.solver.solve import install_commands

    url = TORCH_PREVIOUS_URL if framework == "torch" else TF_PIP_URL
    if matrix is None:  # only unit tests judge without a matrix; there is nothing to solve against
        return Fix(summary, first, url)
    choice, why = (None, None)
    if prefer_version:
        choice, _ = solve_for(facts, matrix, framework, prefer_version)
    if choice is None:
        choice, why = solve_for(facts, matrix, framework)
    if choice is None:
        text = f"{summary}. No {framework} build fits this machine as it is ({why})"
        if extra:
            text += f"; {extra}"
        return Fix(text, (), url)
    if gpu_build and choice.cuda is None and framework == "torch":
        newest = max(matrix.torch, key=lambda r: vt(r.series) or ())
        tags = ", ".join(f"{v.tag} (CUDA {v.cuda})" for v in newest.variants)
        return Fix(f"{summary}: install torch from PyTorch's index with a CUDA tag the driver runs (nvidia-smi's 'CUDA "
                   f"Version' is the newest it runs; torch {newest.series} has {tags}, an older driver needs an older torch)"
                   + (f"; {extra}" if extra else ""),
                   (*first, "nvidia-smi   # 'CUDA Version': the newest CUDA this driver runs",
                    f"pip install torch torchvision --index-url https://download.pytorch.org/whl/{newest.default_linux}   # or the tag of that CUDA"), url)
    py = python_minor(facts)
    text = f"{summary}: install {choice.label}"
    if py and choice.python != py:
        text += f" in a Python {choice.python} environment (this Python {py} has no wheel of it)"
    driver = facts.driver
    if choice.cuda and not (driver and (driver.version or driver.cuda_version)):
        # the solver fitted the GPU, not a driver it does not know: say what the build needs of it
        os = "windows" if facts.host and facts.host.os == "windows" else "linux"
        floor = matrix.driver_floor(choice.cuda, os) if hasattr(matrix, "driver_floor") else None
        if floor:
            text += f" (a CUDA {choice.cuda} build: it needs NVIDIA driver {floor} or newer; an older driver needs an older CUDA tag)"
    if extra:
        text += f"; {extra}"
    return Fix(text, (*first, *install_commands(choice)), url)


def older_cuda(driver_cuda: str | None, build_cuda: str | None) -> bool:
    """The driver's CUDA (major.minor) is older than the build's; False when either cannot be read."""
    have, need = vt(driver_cuda), vt(build_cuda)
    return have is not None and need is not None and have[:2] < need[:2]
