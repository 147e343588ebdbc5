"""``gpudoctor matrix tf``: one TensorFlow release series, as the tables and the published wheels describe it."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import UnknownRelease
from .keras_queries import KerasPin, pin_for_tf
from ..tables.model import Matrix
from ..solver.solve import Choice, driver_verdict, install_commands
from ..tables.versions import exact_release as _exact


@dataclass(frozen=True)
class TfInfo:
    """`gpudoctor matrix tensorflow X.Y`: tested CUDA and cuDNN, Pythons, driver floors, GPU architectures, install."""

    framework: str
    series: str
    versions: tuple[str, ...]
    python: tuple[str, ...]
    cuda: str
    cudnn: str
    min_driver_linux: str | None
    min_driver_windows: str | None
    arch: tuple[str, ...] | None
    arch_confirmed: bool | None
    windows_native_gpu: bool
    windows_python: tuple[str, ...]
    and_cuda: tuple[str, ...]
    install: str
    keras: KerasPin | None
    sources: tuple[str, ...]
    # what the wheels add to the tested-build table (matrices/wheels.toml): per-release Pythons, the package split
    python_by_version: dict[str, tuple[str, ...]]
    python_documented: tuple[str, ...] | None
    gpu_package: str
    cpu_only_tensorflow: tuple[str, ...]  # releases whose plain `tensorflow` wheel has no CUDA
    arch_by_version: dict[str, tuple[str, ...]]
    arch_note: str | None
    windows_cuda: str | None
    windows_cudnn: str | None


def tf_info(m: Matrix, version: str) -> TfInfo:
    release = m.tf_release(version)
    if release is None:
        raise UnknownRelease("tensorflow", version, _known(r.series for r in m.tensorflow))
    exact = _exact(version, release.latest)
    package = f"tensorflow[and-cuda]=={exact}" if release.has_and_cuda else f"{release.package}=={exact}"
    install = install_commands(Choice("tensorflow", exact, "", None, (package,), "", release.cuda))[-1]
    keras = pin_for_tf(m.keras, exact) if m.keras else None
    return TfInfo("tensorflow", release.series, release.versions, release.python, release.cuda, release.cudnn,
                  _driver_need(m, release.cuda, "linux"), _driver_need(m, release.cuda, "windows"), release.arch,
                  release.arch_confirmed if release.arch is not None else None, release.windows_gpu, release.windows_python,
                  release.and_cuda, install, keras, tuple(m.sources["tensorflow.toml"]) + release.sources,
                  {v: tuple(m.python_for("tensorflow", v) or release.python) for v in release.versions},
                  tuple(release.python_documented) or None, release.package,
                  tuple(v for v in release.versions if release.tensorflow_has_gpu(v) is False),
                  {v: tuple(a) for v, a in release.arch_by_version.items()}, release.arch_note,
                  release.windows_cuda, release.windows_cudnn)




def _known(items) -> str:
    return ", ".join(dict.fromkeys(items))


def _driver_need(m: Matrix, cuda: str, os: str) -> str | None:
    return driver_verdict(m, cuda, None, None, os).need
