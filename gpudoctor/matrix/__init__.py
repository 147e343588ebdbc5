"""The compatibility matrix: matrices/*.toml loaded, validated and turned into typed rows (gpudoctor.matrix.model).

``load_matrix()`` is the one way in. It parses with tomllib and validates by hand (fast: no schema library at
runtime); a file that does not validate raises MatrixError naming the file and the key. The result is cached.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import MatrixError
from .keras import load_keras_table
from .model import (
    CudaMajor,
    CudaRelease,
    CudaTargets,
    CudnnRelease,
    GpuModel,
    Matrix,
    TfRelease,
    TorchRelease,
    TorchVariant,
    parse_arch,
    vtuple,
)

__all__ = ["Matrix", "MatrixError", "load_matrix", "MATRIX_FILES"]

MATRIX_FILES = ("cuda.toml", "torch.toml", "tensorflow.toml", "cudnn.toml", "gpus.toml", "keras.toml")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


from .platforms import load_platforms  # noqa: E402  (platforms.toml: macOS, aarch64, Jetson, base images)


def load_matrix(directory: Path | None = None) -> Matrix:
    """Load matrices/*.toml from ``directory`` (default: the packaged matrices). Cached per directory."""
    if directory is None:
        from ..resources import matrices_dir

        directory = matrices_dir()
    return _load(Path(directory).resolve())


@lru_cache(maxsize=8)
def _load(directory: Path) -> Matrix:
    from .cache import cached

    return cached(directory, _parse_and_validate)


def _parse_and_validate(directory: Path) -> Matrix:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    docs: dict[str, dict[str, Any]] = {}
    for name in MATRIX_FILES:
        path = directory / name
        try:
            with path.open("rb") as fh:
                docs[name] = tomllib.load(fh)
        except FileNotFoundError:
            raise MatrixError(f"{path}: matrix file missing") from None
        except tomllib.TOMLDecodeError as exc:
            raise MatrixError(f"{path}: not valid TOML ({exc})") from None
    reviewed: dict[str, str] = {}
    sources: dict[str, tuple[str, ...]] = {}
    for name, doc in docs.items():
        r = _Reader(name, doc, "")
        reviewed[name] = r.date("reviewed")
        sources[name] = r.urls("sources", required=True)
    cuda = _Reader("cuda.toml", docs["cuda.toml"], "")
    torch = _Reader("torch.toml", docs["torch.toml"], "")
    tf = _Reader("tensorflow.toml", docs["tensorflow.toml"], "")
    cudnn = _Reader("cudnn.toml", docs["cudnn.toml"], "")
    gpus = _Reader("gpus.toml", docs["gpus.toml"], "")
    matrix = Matrix(
        reviewed=min(reviewed.values()),
        sources=sources,
        cuda_majors=tuple(_cuda_major(t) for t in cuda.tables("major")),
        cuda_releases=tuple(sorted((_cuda_release(t) for t in cuda.tables("release")), key=lambda r: vtuple(r.version))),
        cuda_targets=tuple(sorted((_cuda_targets(t) for t in cuda.tables("targets")), key=lambda r: vtuple(r.since))),
        torch=tuple(sorted((_torch_release(t) for t in torch.tables("release")), key=lambda r: vtuple(r.latest))),
        torch_index_url=torch.str("index_url"),
        torch_default_windows=torch.str("default_windows"),
        torch_numpy2_since=torch.version("numpy2_since"),
        tf_numpy2_since=tf.version("numpy2_since"),
        tensorflow=tuple(sorted((_tf_release(t) for t in tf.tables("release")), key=lambda r: vtuple(r.latest))),
        tf_windows_gpu_last=tf.version("windows_gpu_last"),
        tf_windows_gpu_conda=tf.strs("windows_gpu_conda"),
        tf_wsl_min_windows=tf.str("wsl_min_windows"),
        cudnn=tuple(sorted((_cudnn_release(t) for t in cudnn.tables("release")), key=lambda r: vtuple(r.version))),
        gpus=tuple(_gpu(t) for t in gpus.tables("cc")),
        reviewed_by_file=reviewed,
        keras=load_keras_table(_Reader("keras.toml", docs["keras.toml"], "")),
        platforms=load_platforms(directory, tomllib),
    )
    _cross_check(matrix)
    return _with_wheels_and_rules(matrix, directory, tomllib)


def _with_wheels_and_rules(matrix: Matrix, directory: Path, tomllib) -> Matrix:
    """Add matrices/wheels.toml (what the published wheels say: the rows' Pythons become the wheels' where they
    differ, the table's stay in ``python_documented``) and matrices/known_broken.toml. Both files are optional."""
    import dataclasses

    from .broken import BROKEN_FILE, parse_rules
    from .wheels import WHEELS_FILE, check_consistent, effective_python, parse_overlay

    docs = {}
    for name in (WHEELS_FILE, BROKEN_FILE):
        path = directory / name
        if not path.exists():
            continue
        try:
            with path.open("rb") as fh:
                docs[name] = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise MatrixError(f"{path}: not valid TOML ({exc})") from None
    changes: dict[str, Any] = {}
    if WHEELS_FILE in docs:
        overlay = parse_overlay(docs[WHEELS_FILE], lambda data, where: _Reader(WHEELS_FILE, data, where))
        check_consistent(overlay)

        def corrected(release, package: str):
            python = effective_python(overlay, package, release.versions, release.python)
            if python == release.python:
                return release
            return dataclasses.replace(release, python=python, python_documented=release.python)

        changes["wheels"] = overlay
        changes["torch"] = tuple(corrected(r, "torch") for r in matrix.torch)
        changes["tensorflow"] = tuple(corrected(r, r.package) for r in matrix.tensorflow)
    if BROKEN_FILE in docs:
        changes["known_broken"] = parse_rules(docs[BROKEN_FILE], lambda data, where: _Reader(BROKEN_FILE, data, where))
    return dataclasses.replace(matrix, **changes) if changes else matrix


# ---------------------------------------------------------------------------------------------------------------


class _Reader:
    """Typed access to one TOML table; every failure names the file and the key path."""

    def __init__(self, file: str, data: dict[str, Any], where: str):
        self.file, self.data, self.where = file, data, where

    def _path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def fail(self, key: str, message: str) -> MatrixError:
        return MatrixError(f"matrices/{self.file}: key '{self._path(key)}': {message}")

    def has(self, key: str) -> bool:
        return key in self.data

    def _get(self, key: str, required: bool) -> Any:
        if key not in self.data:
            if required:
                raise self.fail(key, "missing")
            return None
        return self.data[key]

    def str(self, key: str, required: bool = True) -> str | None:
        value = self._get(key, required)
        if value is not None and not isinstance(value, str):
            raise self.fail(key, f"must be a string, got {type(value).__name__}")
        return value

    def version(self, key: str, required: bool = True) -> str | None:
        value = self.str(key, required)
        if value is not None:
            try:
                vtuple(value)
            except ValueError:
                raise self.fail(key, f"not a version: {value!r}") from None
            if not re.fullmatch(r"\d+(\.\d+)*", value):
                raise self.fail(key, f"not a plain version: {value!r}")
        return value

    def bool(self, key: str, default: bool) -> bool:
        value = self._get(key, False)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(key, "must be true or false")
        return value

    def int(self, key: str, required: bool = True) -> int | None:
        value = self._get(key, required)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise self.fail(key, "must be an integer")
        return value

    def strs(self, key: str, required: bool = True) -> tuple[str, ...]:
        value = self._get(key, required)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, "must be a list of strings")
        return tuple(value)

    def versions(self, key: str, required: bool = True) -> tuple[str, ...]:
        values = self.strs(key, required)
        for v in values:
            if not re.fullmatch(r"\d+(\.\d+)*", v):
                raise self.fail(key, f"not a plain version: {v!r}")
        return values

    def urls(self, key: str, required: bool = False) -> tuple[str, ...]:
        values = self.strs(key, required)
        if required and not values:
            raise self.fail(key, "must list at least one source URL")
        for v in values:
            if not v.startswith(("https://", "http://")):
                raise self.fail(key, f"not a URL: {v!r}")
        return values

    def date(self, key: str) -> str:
        value = self.str(key)
        if not _DATE_RE.match(value):
            raise self.fail(key, f"must be a date YYYY-MM-DD, got {value!r}")
        return value

    def pins(self, key: str) -> dict[str, str]:
        value = self._get(key, False)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise self.fail(key, "must be a table of version = version")
        return dict(value)

    def arch(self, key: str) -> tuple[str, ...] | None:
        if not self.has(key):
            return None
        values = self.strs(key)
        for v in values:
            if not parse_arch(v):
                raise self.fail(key, f"not an architecture (sm_XY / compute_XY): {v!r}")
        return values

    def sub(self, key: str, index: int | None = None) -> _Reader:
        value = self.data[key] if index is None else self.data[key][index]
        where = self._path(key) + (f"[{index}]" if index is not None else "")
        if not isinstance(value, dict):
            raise MatrixError(f"matrices/{self.file}: key '{where}': must be a table")
        return _Reader(self.file, value, where)

    def tables(self, key: str) -> list[_Reader]:
        value = self._get(key, True)
        if not isinstance(value, list) or not value:
            raise self.fail(key, "must be a non-empty array of tables ([[...]])")
        return [self.sub(key, i) for i in range(len(value))]


def _cuda_major(t: _Reader) -> CudaMajor:
    return CudaMajor(t.int("major"), t.version("linux_floor"), t.version("windows_floor", False), t.urls("sources"))


def _cuda_release(t: _Reader) -> CudaRelease:
    release = CudaRelease(t.version("version"), t.str("label"), t.version("linux"), t.version("windows", False), t.int("branch", False))
    if release.windows is None and release.branch is None and vtuple(release.version)[0] < 13:
        raise t.fail("windows", "missing (a release before 13.x has a Windows driver)")
    return release


def _cuda_targets(t: _Reader) -> CudaTargets:
    return CudaTargets(t.version("since"), t.version("min_cc"), t.version("max_cc"), t.str("note", False))


def _torch_release(t: _Reader) -> TorchRelease:
    versions = t.versions("versions")
    if not versions:
        raise t.fail("versions", "must list at least one release")
    variants = []
    for v in t.tables("variant"):
        tag = v.str("tag")
        cuda = v.version("cuda", False)
        if cuda and tag != f"cu{vtuple(cuda)[0]}{vtuple(cuda)[1]}":
            raise v.fail("tag", f"{tag!r} does not match cuda {cuda!r}")
        variants.append(
            TorchVariant(tag, cuda, v.arch("arch"), v.bool("arch_confirmed", True), v.bool("ptx_linux_only", False), v.version("cudnn", False), v.urls("sources"))
        )
    release = TorchRelease(
        versions=versions,
        released=t.str("released", False),
        python=t.versions("python"),
        python_experimental=t.versions("python_experimental", False),
        default_linux=t.str("default_linux"),
        variants=tuple(variants),
        rocm=t.version("rocm", False),
        torchvision=t.version("torchvision", False),
        torchvision_pins=t.pins("torchvision_pins"),
        torchaudio=t.version("torchaudio", False),
        torchaudio_pins=t.pins("torchaudio_pins"),
        sources=t.urls("sources"),
    )
    if release.variant(release.default_linux) is None:
        raise t.fail("default_linux", f"{release.default_linux!r} is not one of the release's variants")
    if len({vtuple(v)[:2] for v in versions}) != 1:
        raise t.fail("versions", "all versions of one row must be patch releases of one minor series")
    return release


def _tf_release(t: _Reader) -> TfRelease:
    pin = None
    if t.has("cudnn_pin_below_cc"):
        p = t.sub("cudnn_pin_below_cc")
        pin = (p.version("cc"), p.str("requirement"))
    versions = t.versions("versions")
    if not versions:
        raise t.fail("versions", "must list at least one release")
    arch_by_version: dict[str, tuple[str, ...]] = {}
    if t.has("arch_by_version"):
        table = t.sub("arch_by_version")
        arch_by_version = {version: table.arch(version) for version in table.data}
    release = TfRelease(
        versions=versions,
        python=t.versions("python"),
        cuda=t.version("cuda"),
        cudnn=t.version("cudnn"),
        arch=t.arch("arch"),
        arch_confirmed=t.bool("arch_confirmed", True),
        package=t.str("package", False) or "tensorflow",
        windows_gpu=t.bool("windows_gpu", False),
        windows_python=t.versions("windows_python", False),
        windows_cuda=t.version("windows_cuda", False),
        windows_cudnn=t.version("windows_cudnn", False),
        and_cuda=t.strs("and_cuda", False),
        cudnn_pin_below_cc=pin,
        sources=t.urls("sources"),
        tensorflow_gpu_versions=t.versions("tensorflow_gpu_versions") if t.has("tensorflow_gpu_versions") else None,
        arch_by_version=arch_by_version,
        arch_note=t.str("arch_note", False),
        reviewed=_optional_date(t, "reviewed"),
    )
    listed_keys = (("arch_by_version", tuple(arch_by_version)), ("tensorflow_gpu_versions", release.tensorflow_gpu_versions or ()))
    for key, listed in listed_keys:
        stray = [v for v in listed if v not in versions]
        if stray:
            raise t.fail(key, f"{', '.join(stray)} not in this row's versions")
    return release


def _optional_date(t: _Reader, key: str) -> str | None:
    return t.date(key) if t.has(key) else None


def _cudnn_release(t: _Reader) -> CudnnRelease:
    ranges = []
    for item in t.strs("cuda", False):
        lo, sep, hi = item.partition("-")
        try:
            vtuple(lo), vtuple(hi)
        except ValueError:
            raise t.fail("cuda", f"not a range 'x.y-x.y': {item!r}") from None
        if not sep:
            raise t.fail("cuda", f"not a range 'x.y-x.y': {item!r}")
        ranges.append((lo, hi))
    return CudnnRelease(t.version("version"), t.version("first", False), tuple(ranges), t.version("cc_min", False), t.version("cc_max", False), t.str("note", False), t.urls("sources"))


def _gpu(t: _Reader) -> GpuModel:
    names = t.strs("names")
    if not names:
        raise t.fail("names", "must list at least one product name")
    return GpuModel(t.version("cc"), t.str("architecture"), names)


def _cross_check(m: Matrix) -> None:
    """Consistency between files: every CUDA a framework uses is in the CUDA table."""
    for r in m.torch:
        for v in r.variants:
            if v.cuda and not m.knows_cuda(v.cuda):
                raise MatrixError(f"matrices/torch.toml: torch {r.series} variant {v.tag}: CUDA {v.cuda} is not in cuda.toml")
    for tf in m.tensorflow:
        for cuda in filter(None, (tf.cuda, tf.windows_cuda)):
            if not m.knows_cuda(cuda):
                raise MatrixError(f"matrices/tensorflow.toml: tensorflow {tf.series}: CUDA {cuda} is not in cuda.toml")
    for major in {vtuple(r.version)[0] for r in m.cuda_releases if vtuple(r.version)[0] >= 11}:
        if m.cuda_major(major) is None:
            raise MatrixError(f"matrices/cuda.toml: key 'major': no minor-version floor for CUDA {major}.x")
