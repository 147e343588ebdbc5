"""Which JAX to install on a target: the newest release (or the asked one) whose CUDA plugin wheel this driver and
these GPUs can run, or the CPU build where there is no NVIDIA GPU. Pure: matrix data in, a choice out, with reasons.
The same shape as _solve_torch / _solve_tf, small because JAX has one index (PyPI) and two plugin majors."""

from __future__ import annotations

from typing import NamedTuple

from ..tables.jax_table import JaxRelease, JaxTable
from ..tables.versions import try_vtuple

INSTALL_URL = "https://docs.jax.dev/en/latest/installation.html"


class JaxChoice(NamedTuple):
    """The jax release and CUDA plugin the solver picked, as a pip requirement with the reasons."""
    version: str  # "0.10.2"
    plugin: str | None  # "cuda13" | "cuda12" | None (the CPU build)
    requirement: str  # 'jax[cuda13]==0.10.2' or 'jax==0.10.2'
    reasons: tuple[str, ...]


def plugin_ok(table: JaxTable, plugin: str, driver: str | None, driver_cuda: str | None, ccs: tuple[str, ...]) -> str | None:
    """None when a plugin of this CUDA major can run on this driver and GPUs, else why not. Unknown driver/GPUs
    pass (unknown is not a failure): the check for the installed build says what is unknown."""
    major = table.major(plugin)
    have, need = try_vtuple(driver), try_vtuple(major.driver_min)
    if have is not None and have[:1] < need[:1]:
        return f"{plugin} needs NVIDIA driver >= {major.driver_min} (installed: {driver})"
    cuda, cuda_need = try_vtuple(driver_cuda), try_vtuple(major.cuda_min)
    if have is None and cuda is not None and cuda[:1] < cuda_need[:1]:
        return f"{plugin} needs a driver for CUDA {major.cuda_min}+ (this driver supports CUDA {driver_cuda})"
    floor = try_vtuple(major.cc_min)
    old = [cc for cc in ccs if try_vtuple(cc) is not None and try_vtuple(cc) < floor]
    if old:
        return f"{plugin} needs compute capability >= {major.cc_min} (this GPU: {', '.join(old)})"
    return None


def choose_jax(table: JaxTable, gpu: bool, driver: str | None = None, driver_cuda: str | None = None,
               ccs: tuple[str, ...] = (), python: str | None = None, version: str | None = None) -> JaxChoice | None:
    """The release to install (``version``: that exact release or series) and its plugin; None when no release fits
    this Python. ``gpu`` False: the CPU build (plain ``jax``)."""
    rows: tuple[JaxRelease, ...] = table.series(version) if version else table.releases
    reasons: list[str] = []
    for row in reversed(rows):
        if python and row.python and python not in row.python:
            reasons.append(f"jax {row.series}: no wheel for Python {python} (has {', '.join(row.python)})")
            continue
        wanted = [v for v in row.versions if not version or v == version or v.startswith(version + ".")]
        if not wanted:
            continue
        release = wanted[-1]
        if not gpu:
            return JaxChoice(release, None, f"jax=={release}", tuple(reasons) + ("no NVIDIA GPU: the CPU build",))
        for plugin in reversed(row.plugins):
            why = plugin_ok(table, plugin, driver, driver_cuda, ccs)
            if why is None:
                return JaxChoice(release, plugin, f"jax[{plugin}]=={release}", tuple(reasons) + (f"jax[{plugin}] runs on this driver and GPU",))
            reasons.append(f"jax {release}: {why}")
    return None


def solve_jax(matrix, target, version: str | None, cpu: bool):
    """The solver's entry (solver._attempt): (Choice or None, every rejection in order), like solve_torch/solve_tf.
    JAX's CUDA wheels are Linux-only (x86_64, aarch64; WSL2 experimental): native Windows and macOS get the CPU
    build, with a note."""
    from ._solve_core import Choice, UnknownPinnedRelease, pick_python, py_range

    table = matrix.jax
    rejects: list[str] = []
    if table is None:
        return None, ["the matrix has no JAX table (matrices/jax.toml)"]
    rows = table.series(version) if version else table.releases
    if version and not rows:
        raise UnknownPinnedRelease(f"jax {version} is not in the compatibility matrix (it knows {', '.join(table.known())})")
    gpu = target.wants_gpu_build(cpu) and target.os == "linux"
    notes: tuple[str, ...] = ()
    if target.wants_gpu_build(cpu) and target.os != "linux":
        notes = (f"JAX publishes CUDA wheels for Linux only (WSL2 experimental): on {target.os} the CPU build is installed",)
    for row in reversed(rows):
        wanted = [v for v in row.versions if not version or v == version or v.startswith(version + ".")]
        if not wanted:
            continue
        release = wanted[-1]
        py = pick_python(row.python, target.python)
        if py is None:
            rejects.append(f"jax {release} has no wheel for Python {target.python} (it has {py_range(row.python)})")
            continue
        py_reason = f"Python {py}: jax {release} has jaxlib wheels for Python {py_range(row.python)}"
        if not gpu:
            why = "--cpu asked for the CPU build" if cpu else "no NVIDIA GPU on a Linux machine: the CPU build (plain jax)"
            return Choice("jax", release, "cpu", None, (f"jax=={release}",), py, None, reasons=(py_reason, why),
                          notes=notes, skipped=tuple(rejects)), rejects
        for plugin in reversed(row.plugins):
            why = plugin_ok(table, plugin, target.driver_version, target.driver_cuda, target.compute_capabilities)
            if why is not None:
                rejects.append(f"jax {release}: {why}")
                continue
            major = table.major(plugin)
            reasons = (py_reason, f"jax[{plugin}]: the plugin wheel and the CUDA {major.cuda_min}+ / cuDNN {row.cudnn_min[plugin]}+ "
                                  f"nvidia-* wheels it pulls need driver >= {major.driver_min} and compute capability >= {major.cc_min}")
            unchecked = ("the GPU model is unknown: its compute capability was not checked",) if target.gpu_unknown else ()
            return Choice("jax", release, plugin, None, (f"jax[{plugin}]=={release}",), py, major.cuda_min,
                          reasons=reasons, notes=notes + unchecked, skipped=tuple(rejects)), rejects
    return None, rejects


def jax_driver_needed(matrix, target) -> str | None:
    """The lowest driver branch whose JAX CUDA plugin supports every one of the target's GPUs (CUDA 12's, else 13's)."""
    table = matrix.jax
    if table is None or target.os != "linux":
        return None
    for major in table.majors:
        floor = try_vtuple(major.cc_min)
        if all(try_vtuple(cc) is not None and try_vtuple(cc) >= floor for cc in target.compute_capabilities):
            return major.driver_min
    return None
