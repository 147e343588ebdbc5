"""Questions answered from the compatibility matrix, one function per table, each returning a frozen dataclass.

``gpudoctor matrix`` parses, calls one of these, renders the answer (text, or ``dataclasses.asdict`` as JSON) and
exits; ``env`` can ask ``keras_for_tf``. A release the matrix does not hold raises UnknownRelease, whose message
says which releases it knows. The driver a build needs is the solver's rule (``driver_verdict``), not a copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...digits import ascii_int
from ...errors import UnknownRelease
from ..tables.gpu_specs import GpuSpec
from .keras_queries import KerasPin
from .keras_queries import KerasInfo, keras_for_tf, keras_info
from ..tables.model import GpuModel, Matrix, arch_support, local_tag, try_vtuple, version_ge, vtuple
from ..solver.solve import Choice, driver_verdict, install_commands
from .tf_queries import TfInfo, tf_info  # noqa: F401 - TfInfo is part of this module's answers
from ..tables.versions import exact_release as _exact

__all__ = ["UnknownRelease", "summary", "torch_info", "tf_info", "cuda_info", "cudnn_info", "gpu_info", "driver_info",
           "keras_info", "keras_for_tf", "KerasInfo", "KerasPin", "newest_torch_for", "newest_tf_for"]


def _known(items) -> str:
    return ", ".join(dict.fromkeys(items))


def _driver_need(m: Matrix, cuda: str, os: str) -> str | None:
    return driver_verdict(m, cuda, None, None, os).need  # the solver's rule: the major's MVC floor, or the toolkit's own


@dataclass(frozen=True)
class Summary:
    """`gpudoctor matrix` with no question: each data file's review date and sources, the releases each table holds."""

    files: dict[str, dict[str, Any]]
    torch: tuple[str, ...]
    tensorflow: tuple[str, ...]
    cuda: tuple[str, ...]
    cudnn: tuple[str, ...]
    gpus: dict[str, tuple[str, ...]]
    keras: dict[str, Any]


def summary(m: Matrix) -> Summary:
    files = {name: {"reviewed": m.reviewed_by_file.get(name), "sources": urls} for name, urls in m.sources.items()}
    keras = {"standalone": tuple(r.series for r in m.keras.standalone), "tensorflow": tuple(r.series for r in m.keras.tensorflow),
             "bundled_until": m.keras.bundled_until, "keras3_since": m.keras.keras3_since} if m.keras else {}
    return Summary(files, tuple(r.latest for r in m.torch), tuple(r.latest for r in m.tensorflow),
                   tuple(sorted({r.minor for r in m.cuda_releases}, key=vtuple)), tuple(r.version for r in m.cudnn),
                   {g.cc: g.names for g in m.gpus}, keras)


# -- torch -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TorchVariantInfo:
    """One build of a torch release (cu126, cpu): its CUDA, index, driver floors, GPU architectures, install command."""

    tag: str
    cuda: str | None
    index_url: str
    default_linux: bool
    min_driver_linux: str | None
    min_driver_windows: str | None
    full_driver_linux: str | None
    arch: tuple[str, ...] | None
    arch_confirmed: bool | None
    ptx_linux_only: bool
    cudnn: str | None
    install: str


@dataclass(frozen=True)
class TorchInfo:
    """`gpudoctor matrix torch X.Y`: the series' releases, Pythons, default builds, companion packages, variants."""

    framework: str
    series: str
    versions: tuple[str, ...]
    released: str | None
    python: tuple[str, ...]
    python_experimental: tuple[str, ...]
    default_linux: str
    default_windows: str
    torchvision: str | None
    torchaudio: str | None
    rocm: str | None
    variants: tuple[TorchVariantInfo, ...]
    sources: tuple[str, ...]


def torch_info(m: Matrix, version: str) -> TorchInfo:
    release = m.torch_release(version)
    if release is None:
        raise UnknownRelease("torch", version, _known(r.series for r in m.torch))
    tag = local_tag(version)
    variants = [v for v in release.variants if tag is None or v.tag == tag]
    if not variants:
        raise UnknownRelease(f"torch {release.series} variant", tag or "", ", ".join(v.tag for v in release.variants))
    exact = _exact(version, release.latest)
    extra = tuple(filter(None, (release.torchvision_requirement(exact),)))
    rows = tuple(
        TorchVariantInfo(
            v.tag, v.cuda, m.torch_index(v.tag), v.tag == release.default_linux,
            _driver_need(m, v.cuda, "linux") if v.cuda else None, _driver_need(m, v.cuda, "windows") if v.cuda else None,
            m.min_driver(v.cuda, "linux") if v.cuda else None, v.arch, v.arch_confirmed if v.arch is not None else None,
            v.ptx_linux_only, v.cudnn,
            install_commands(Choice("torch", exact, v.tag, m.torch_index(v.tag), (f"torch=={exact}",) + extra, "", v.cuda))[-1],
        )
        for v in variants
    )
    return TorchInfo("torch", release.series, release.versions, release.released, release.python, release.python_experimental,
                     release.default_linux, m.torch_default_windows, release.torchvision_requirement(exact),
                     release.torchaudio_requirement(exact), release.rocm, rows, tuple(m.sources["torch.toml"]) + release.sources)


# -- tensorflow ---------------------------------------------------------------------------------------------------


# -- cuda ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CudaInfo:
    """`gpudoctor matrix cuda X.Y`: its driver floors, compute capabilities, and the framework builds that use it."""

    cuda: str
    major: int
    releases: tuple[dict[str, Any], ...]
    min_driver_linux: str | None
    min_driver_windows: str | None
    minor_version_floor: dict[str, str | None] | None
    compute_capabilities: dict[str, str | None] | None
    torch_builds: tuple[str, ...]
    tensorflow_builds: tuple[str, ...]
    sources: tuple[str, ...]


def cuda_info(m: Matrix, version: str) -> CudaInfo:
    parts = try_vtuple(version)
    if parts is None or not m.knows_cuda(version):
        raise UnknownRelease("CUDA", version, _known(dict.fromkeys(r.minor for r in m.cuda_releases)))
    minor = f"{parts[0]}.{parts[1] if len(parts) > 1 else 0}"
    want = vtuple(minor)[:2]
    floor = m.cuda_major(parts[0])
    targets = m.cuda_targets_for(minor)
    return CudaInfo(
        minor, parts[0],
        tuple({"version": r.version, "label": r.label, "linux": r.linux, "windows": r.windows, "branch": r.branch} for r in m.cuda_minor_releases(minor)),
        m.min_driver(minor, "linux"), m.min_driver(minor, "windows"),
        {"linux": floor.linux_floor, "windows": floor.windows_floor} if floor else None,
        {"min": targets.min_cc, "max": targets.max_cc, "note": targets.note} if targets else None,
        tuple(f"{r.latest}+{v.tag}" for r in m.torch for v in r.variants if v.cuda and vtuple(v.cuda)[:2] == want),
        tuple(r.latest for r in m.tensorflow if vtuple(r.cuda)[:2] == want),
        tuple(m.sources["cuda.toml"]),
    )


# -- cudnn --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CudnnInfo:
    """`gpudoctor matrix cudnn X.Y`: the CUDA releases and compute capabilities a cuDNN release supports."""

    cudnn: str
    row: str
    cuda: tuple[str, ...]
    cc_min: str | None
    cc_max: str | None
    note: str | None
    sources: tuple[str, ...]


def cudnn_info(m: Matrix, version: str) -> CudnnInfo:
    row = m.cudnn_release(version)
    if row is None:
        raise UnknownRelease("cuDNN", version, f"{m.cudnn[0].first or m.cudnn[0].version} and newer: rows {_known(r.version for r in m.cudnn)}")
    return CudnnInfo(version, row.version, tuple(f"{lo}-{hi}" for lo, hi in row.cuda), row.cc_min, row.cc_max, row.note,
                     tuple(m.sources["cudnn.toml"]) + row.sources)


# -- gpu ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GpuInfo:
    """`gpudoctor matrix gpu NAME`: a GPU's compute capability, the CUDAs that build for it, the newest frameworks."""

    query: str
    compute_capability: str
    architecture: str
    names: tuple[str, ...]
    cuda_toolkits: str | None  # "9.0+": the first CUDA that compiles for it
    cuda_toolkits_until: str | None  # the first CUDA that no longer does (None: still supported)
    newest_torch: dict[str, str | None] | None
    newest_tensorflow: dict[str, str | None] | None
    sources: tuple[str, ...]
    specs: tuple[GpuSpec, ...] = ()  # data-sheet figures of the boards this name covers (gpus.toml [[spec]])


def gpu_model(m: Matrix, name: str) -> GpuModel:
    model = m.gpu_by_name(name) or (next((g for g in m.gpus if g.cc == name), None) if "." in name and try_vtuple(name) else None)
    if model is None:
        ccs = sorted({g.cc for g in m.gpus}, key=vtuple)
        raise UnknownRelease("GPU", repr(name), f"product names of compute capability {_known(ccs)}; try one, e.g. 8.9")
    return model


def newest_torch_for(m: Matrix, cc: str) -> dict[str, str | None] | None:
    """The newest torch release with a confirmed build that has code for compute capability ``cc``."""
    for r in reversed(m.torch):
        hits = [v for v in r.variants if v.arch and v.arch_confirmed and arch_support(v.arch, cc)]
        if hits:
            best = max(hits, key=lambda v: (arch_support(v.arch, cc) == "sass", v.tag == r.default_linux))
            return {"version": r.latest, "variant": best.tag, "cuda": best.cuda, "code": arch_support(best.arch, cc)}
    return None


def newest_tf_for(m: Matrix, cc: str) -> dict[str, str | None] | None:
    for r in reversed(m.tensorflow):
        if r.arch and r.arch_confirmed and arch_support(r.arch, cc):
            return {"version": r.latest, "cuda": r.cuda, "code": arch_support(r.arch, cc)}
    return None


def gpu_info(m: Matrix, name: str) -> GpuInfo:
    model = gpu_model(m, name)
    cc = vtuple(model.cc)
    rows = [i for i, t in enumerate(m.cuda_targets) if vtuple(t.min_cc) <= cc <= vtuple(t.max_cc)]
    until = m.cuda_targets[rows[-1] + 1].since if rows and rows[-1] + 1 < len(m.cuda_targets) else None
    return GpuInfo(name, model.cc, model.architecture, model.names, f"{m.cuda_targets[rows[0]].since}+" if rows else None, until,
                   newest_torch_for(m, model.cc), newest_tf_for(m, model.cc), tuple(m.sources["gpus.toml"]),
                   m.gpu_specs.matching(name) if m.gpu_specs else ())


# -- driver -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DriverInfo:
    """`gpudoctor matrix driver X`: the newest CUDA a driver (or a branch) supports natively, and the CUDA majors it
    runs by minor-version compatibility."""

    driver: str
    os: str
    branch: int | None  # set when a driver branch ("535", "R535") was asked about
    cuda: str | None  # the newest CUDA it supports natively
    from_driver: str | None  # for a branch: the first driver of the branch with that support (None: all of it)
    minor_version_compatible: tuple[str, ...]
    sources: tuple[str, ...]


def driver_info(m: Matrix, version: str, os: str = "linux") -> DriverInfo:
    text = version.strip()
    branch = text[1:] if text[:1] in "Rr" else text
    sources = tuple(m.sources["cuda.toml"])
    if branch.isdigit():
        number = ascii_int(branch, 6)
        if number is None:  # "²", or 5,000 digits: no driver branch
            raise UnknownRelease("driver", repr(version[:40]), "versions such as 535.104.05, or a branch such as 535 or R535")
        return _branch_info(m, number, os, sources)
    if try_vtuple(text) is None:
        raise UnknownRelease("driver", repr(version), "versions such as 535.104.05, or a branch such as 535 or R535")
    mvc = tuple(sorted(f"{c.major}.x" for c in m.cuda_majors if c.floor(os) and version_ge(text, c.floor(os))))
    return DriverInfo(text, os, None, m.driver_cuda(text, os), None, mvc, sources)


def _branch_info(m: Matrix, branch: int, os: str, sources: tuple[str, ...]) -> DriverInfo:
    minors = sorted({r.minor for r in m.cuda_releases}, key=vtuple, reverse=True)
    needs = [(c, m.min_driver(c, os)) for c in minors]
    cuda, need = next(((c, d) for c, d in needs if d and vtuple(d)[0] <= branch), (None, None))
    mvc = tuple(sorted(f"{c.major}.x" for c in m.cuda_majors if c.floor(os) and vtuple(c.floor(os))[0] <= branch))
    return DriverInfo(f"R{branch}", os, branch, cuda, need if need and vtuple(need)[0] == branch else None, mvc, sources)
