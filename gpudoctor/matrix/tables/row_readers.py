"""One reader per kind of row in the matrix files (cuda.toml, torch.toml, tensorflow.toml, cudnn.toml, gpus.toml):
a checked table in, a frozen row out, and the checks across files once the Matrix is built."""

from __future__ import annotations

from ...errors import MatrixError
from .model import Matrix
from .reader import Reader
from .rows import CudaMajor, CudaRelease, CudaTargets, CudnnRelease, GpuModel, TfRelease, TorchRelease, TorchVariant
from .versions import vtuple


def cuda_major(t: Reader) -> CudaMajor:
    return CudaMajor(t.int("major"), t.version("linux_floor"), t.version("windows_floor", False), t.urls("sources"))


def cuda_release(t: Reader) -> CudaRelease:
    release = CudaRelease(t.version("version"), t.str("label"), t.version("linux"), t.version("windows", False), t.int("branch", False))
    if release.windows is None and release.branch is None and vtuple(release.version)[0] < 13:
        raise t.fail("windows", "missing (a release before 13.x has a Windows driver)")
    return release


def cuda_targets(t: Reader) -> CudaTargets:
    return CudaTargets(t.version("since"), t.version("min_cc"), t.version("max_cc"), t.str("note", False))


def torch_release(t: Reader) -> TorchRelease:
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


def tf_release(t: Reader) -> TfRelease:
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


def _optional_date(t: Reader, key: str) -> str | None:
    return t.date(key) if t.has(key) else None


def cudnn_release(t: Reader) -> CudnnRelease:
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


def gpu(t: Reader) -> GpuModel:
    names = t.strs("names")
    if not names:
        raise t.fail("names", "must list at least one product name")
    return GpuModel(t.version("cc"), t.str("architecture"), names)


def cross_check(m: Matrix) -> None:
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
    if m.gpu_specs is not None:
        for spec in m.gpu_specs.specs:
            for name in spec.names:
                if m.gpu_by_name(name) is None:
                    raise MatrixError(f"matrices/gpus.toml: spec {spec.name!r}: {name!r} is in no compute-capability row")
