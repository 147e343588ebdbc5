"""Target machine -> the newest framework build it can really run, with the reason for every decision.

The rules (all data comes from the Matrix, which is always passed in):
- a release must have a wheel for the Python version, OS and CPU architecture (macOS x86_64 and Linux aarch64 have
  fewer; Jetson modules have none on the package indexes);
- the build's compiled architectures must cover every GPU: SASS of the same major and an equal or lower minor, or PTX
  of an equal or lower compute capability (slow first start; the driver's JIT must be new enough);
- the cuDNN a build ships must support every GPU's compute capability (cuDNN >= 8.9 needs 5.0, >= 9.11 needs 7.5);
- the driver must run the build's CUDA: natively or through minor-version compatibility (same major, driver at or
  above that major's floor; 10.x and older have none). A driver branch ("550") counts as its first release;
- among the variants that fit: SASS before PTX, confirmed arch lists before unconfirmed ones, the release's default
  variant, then the newest CUDA.
Rejections name what no driver upgrade can fix first (the architecture, then cuDNN), then the driver.
No GPU (or cpu=True) -> the CPU build. TensorFlow on native Windows with a GPU -> the 2.10 route (conda cudatoolkit
11.2 + cuDNN 8.1), with a note that suggests WSL2; TensorFlow 2.10-2.13 on Linux -> TensorFlow's conda recipe.
The work is split: _solve_core (types, the fit rules), the routes _solve_torch, _solve_tf, _solve_jax, _solve_rocm,
_solve_jetson, and driver.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ._solve_core import DEFAULT_PYTHON_CAP, Choice, NoFit, Target, UnknownPinnedRelease, fw_name, quote
from .driver import DriverVerdict, driver_os, driver_verdict
from ._solve_jax import solve_jax
from ._solve_jetson import jetson_capabilities, solve_jetson
from ._solve_rocm import solve_rocm
from ._solve_tf import solve_tf
from ._solve_torch import solve_torch
from ..tables.model import Framework, Matrix, arch_support, try_vtuple, vtuple

if TYPE_CHECKING:
    from ...model import Facts

__all__ = [
    "Target",
    "Choice",
    "NoFit",
    "UnknownPinnedRelease",
    "DriverVerdict",
    "solve",
    "target_from_facts",
    "gpu_compute_capability",
    "driver_verdict",
    "driver_os",
    "install_commands",
    "normalize_arch",
    "DEFAULT_PYTHON_CAP",
]

def gpu_compute_capability(matrix: Matrix, name: str) -> str | None:
    """nvidia-smi-style product name -> "8.9" ("RTX 4090", "NVIDIA GeForce RTX 4090", "Tesla V100-SXM2-16GB")."""
    return matrix.gpu_compute_capability(name)


def normalize_arch(arch: str | None, os: str) -> str:
    """The CPU architecture as the solver names it: "x86_64" (amd64 too), "aarch64" on Linux, "arm64" on macOS."""
    text = (arch or "").strip().lower()
    if text in ("", "none"):
        return "arm64" if os == "darwin" else "x86_64"
    if text in ("x86_64", "amd64", "x64"):
        return "x86_64"
    if text in ("aarch64", "arm64"):
        return "arm64" if os == "darwin" else "aarch64"
    return text


def target_from_facts(facts: "Facts", matrix: Matrix, *, python: str | None = None) -> Target:
    """The Target a Facts snapshot describes. GPUs without a known compute capability are looked up by name in
    ``matrix`` (required: the solver never loads one itself)."""
    from ...model.inferred import gpu_implied_by_driver  # loaded already: the caller holds a Facts

    host = facts.host
    os = (host.os if host and host.os else "linux").lower()
    py = python or (host.python if host else None)
    if py:
        parts = try_vtuple(py)
        py = f"{parts[0]}.{parts[1]}" if parts and len(parts) >= 2 else None
    driver = facts.driver
    ccs: list[str] = []
    for gpu in facts.gpus or ():
        cc = gpu.compute_capability or (matrix.gpu_compute_capability(gpu.name) if gpu.name else None)
        if cc:
            ccs.append(cc)
    return Target(
        os=os,
        python=py,
        driver_version=driver.version if driver else None,
        driver_cuda=driver.cuda_version if driver else None,
        compute_capabilities=tuple(ccs),
        wsl=bool(host and host.wsl),
        arch=normalize_arch(host.arch if host else None, os),
        # A driver that implies a GPU and works (no NVML error): its model may be unknown (a pasted nvidia-smi
        # banner), the build it can run is not. A device without a working driver is left to the driver findings.
        gpu_unknown=not ccs and gpu_implied_by_driver(driver) is not None and not (driver and driver.nvml_error),
        gfx=tuple(g.gfx_target for g in facts.amd_gpus or () if g.gfx_target) if not ccs else (),
        jetpack=_jetpack(facts, matrix),
    )


def _jetpack(facts: "Facts", matrix: Matrix) -> str | None:
    """The JetPack release of a Jetson snapshot's L4T release (/etc/nv_tegra_release), where jetpack.toml knows it."""
    jetson = facts.jetson
    tables = matrix.platform_tables
    row = tables.jetpack_by_l4t(jetson.l4t) if jetson and jetson.l4t and tables else None
    return row.jetpack if row else None


def solve(matrix: Matrix, target: Target, framework: str, version: str | None = None, cpu: bool = False) -> Choice:
    """The newest release of ``framework`` ("torch" | "tensorflow") this target can run; ``version`` pins a release
    ("2.7", "2.7.1"). Raises NoFit with the reasons when nothing fits (UnknownPinnedRelease for a release the matrix lacks)."""
    try:
        fw = Framework.parse(framework).value
    except ValueError as exc:
        raise NoFit(str(exc)) from None
    if not cpu and target.gfx:
        return solve_rocm(matrix, target, fw, version)
    if not cpu and jetson_capabilities(matrix, target):
        return solve_jetson(matrix, target, fw, version)
    try:
        return _attempt(matrix, target, fw, version, cpu)
    except UnknownPinnedRelease:
        raise
    except NoFit as first:
        if target.python is None:
            raise
        try:
            choice = _attempt(matrix, replace(target, python=None), fw, version, cpu)
        except NoFit:
            raise first from None
        why = f"Python {target.python} has no wheel of a {fw_name(fw)} build that fits this machine: use Python {choice.python}"
        return replace(choice, reasons=(why,) + choice.reasons)


def install_commands(choice: Choice) -> tuple[str, ...]:
    """The exact commands that install a Choice: conda packages first (if any), then pip."""
    commands = []
    if choice.conda_packages:
        commands.append("conda install -c conda-forge " + " ".join(choice.conda_packages))
    pip = "pip install " + " ".join(quote(p) for p in choice.packages + choice.pins)
    if choice.index_url:
        pip += f" --index-url {choice.index_url}"
    commands.append(pip)
    return tuple(commands)


# ---------------------------------------------------------------------------------------------------------------


def _attempt(matrix: Matrix, target: Target, fw: str, version: str | None, cpu: bool) -> Choice:
    if fw == "tensorflow" and target.arch == "aarch64" and target.compute_capabilities and not cpu:
        plat = matrix.platforms
        if plat is None or not plat.tf_linux_aarch64_gpu:
            raise NoFit(
                "gpudoctor cannot target TensorFlow on a Linux aarch64 GPU machine",
                reasons=("TensorFlow documents GPU pip installs for Linux x86_64 and WSL2 only; no TensorFlow page says its aarch64 wheels are CUDA builds",),
                suggestion="use NVIDIA's NGC TensorFlow container for Arm64, or --cpu for the CPU build",
            )
    solver = solve_torch if fw == "torch" else solve_jax if fw == "jax" else solve_tf
    choice, rejects = solver(matrix, target, version, cpu)
    if choice is None:
        raise _no_fit(fw, matrix, target, version, rejects)
    return choice


def _no_fit(fw: str, matrix: Matrix, target: Target, version: str | None, rejects: list[str]) -> NoFit:
    what = f"{fw} {version}" if version else f"any {fw} release"
    suggestion = None
    need = _driver_needed(matrix, target, fw, version)
    if version is not None:
        try:
            alt = solve(matrix, target, fw)
            suggestion = f"the newest {fw} this machine runs is {alt.label}"
        except NoFit:
            alt = None
        if need:
            suggestion = f"{suggestion}; for {fw} {version} " if suggestion else f"for {fw} {version} "
            suggestion += f"upgrade the driver to >= {need}"
    elif need:
        suggestion = f"upgrade the driver to >= {need}"
    return NoFit(f"no build of {what} fits this machine", reasons=tuple(dict.fromkeys(rejects)), suggestion=suggestion)


def _driver_needed(matrix: Matrix, target: Target, fw: str, version: str | None) -> str | None:
    """The lowest driver with which some build of the (pinned or newest) release runs on the target's GPUs."""
    if not (target.driver_version or target.driver_cuda) or target.arch != "x86_64":
        return None
    os = driver_os(target.os, target.wsl)
    if fw == "jax":
        from ._solve_jax import jax_driver_needed

        return jax_driver_needed(matrix, target)
    if fw == "torch":
        rel = matrix.torch_release(version) if version else matrix.newest_torch()
        builds = [(v.arch_for(os), v.cuda, v.cudnn) for v in rel.variants if v.cuda] if rel else []
    else:
        rel = matrix.tf_release(version) if version else matrix.newest_tf()
        builds = [(rel.arch, rel.cuda, None)] if rel else []
    needs = []
    for arch, cuda, cudnn in builds:
        if arch is None or any(arch_support(arch, cc) is None for cc in target.compute_capabilities):
            continue
        floor = matrix.cudnn_cc_min(cudnn) if cudnn else None
        if floor and any(vtuple(cc) < vtuple(floor) for cc in target.compute_capabilities):
            continue
        if driver_verdict(matrix, cuda, target.driver_version, target.driver_cuda, os).ok:
            return None  # the driver already runs a build: it is not what blocks this release
        dv = driver_verdict(matrix, cuda, None, None, os)
        if dv.need:
            needs.append(dv.need)
    return min(needs, key=vtuple) if needs else None
