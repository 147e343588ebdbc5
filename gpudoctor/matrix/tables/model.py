"""The compatibility matrix as one frozen value (matrices/*.toml, loaded by gpudoctor.matrix.load_matrix) and the
questions gpudoctor asks across its rows.

Everything here is data and pure lookups: no I/O, no printing. The pieces live in their own modules and are
re-exported here, where the rest of gpudoctor imports them from: versions (vtuple, series, ...), arch (parse_arch,
arch_support, ...), rows (the release dataclasses) and framework (Framework).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping

from .lazy_tables import _PICKLED, _Table
from .arch import TEGRA_CCS, ArchEntry, arch_summary, arch_support, cc_tuple, parse_arch
from .framework import Framework
from .rows import (
    CudaMajor,
    CudaRelease,
    CudaTargets,
    CudnnRelease,
    GpuModel,
    TfRelease,
    TorchRelease,
    TorchVariant,
    name_tokens,
)
from .versions import cuda_tag, local_tag, python_span, series, try_vtuple, tuple_ge, version_ge, vtuple

if TYPE_CHECKING:
    from .broken import BrokenRule
    from .signatures import LogFinding
    from .gpu_specs import GpuSpecTable
    from .jax_table import JaxTable
    from .keras import KerasTable
    from .platform_tables import PlatformTables
    from .platforms import Platforms
    from .rocm import RocmTable
    from .xid import XidTable
    from .wheels import WheelOverlay, WheelRelease

__all__ = [
    "ArchEntry", "CudaMajor", "CudaRelease", "CudaTargets", "CudnnRelease", "Framework", "GpuModel", "Matrix",
    "TEGRA_CCS", "TfRelease", "TorchRelease", "TorchVariant", "arch_summary", "arch_support", "cc_tuple", "cuda_tag",
    "local_tag", "name_tokens", "parse_arch", "python_span", "series", "try_vtuple", "version_ge", "vtuple",
]


@dataclass(frozen=True)
class Matrix:
    """The whole compatibility matrix loaded from matrices/*.toml, with each file's sources."""
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
    # The tables below are _Table fields: from the disk cache each is unpickled (its module imported) on first use.
    platforms: "Platforms | None" = _Table()  # matrices/platforms.toml (None: a hand-built matrix without it)
    wheels: "WheelOverlay | None" = _Table()  # what the published wheels say (matrices/wheels.toml)
    known_broken: tuple["BrokenRule", ...] = ()  # matrices/known_broken.toml
    keras: "KerasTable | None" = _Table()  # matrices/keras.toml (gpudoctor.matrix.tables.keras)
    rocm: "RocmTable | None" = _Table()  # matrices/rocm.toml + amd_gpus.toml (gpudoctor.matrix.tables.rocm)
    gpu_specs: "GpuSpecTable | None" = _Table()  # gpus.toml's [[spec]] rows: peak FLOPS, bandwidth, link (bench)
    platform_tables: "PlatformTables | None" = _Table()  # jetpack / apple / accelerators.toml (matrix.platform_tables)
    xid: "XidTable | None" = _Table()  # matrices/xid.toml (gpudoctor.matrix.tables.xid)
    jax: "JaxTable | None" = _Table()  # matrices/jax.toml (gpudoctor.matrix.tables.jax_table; None: a hand-built matrix)
    log_findings: tuple["LogFinding", ...] = _Table(())  # signatures.toml's [[finding]]: symptoms that prove a finding
    tf_cudnn_same_minor_through: str | None = None  # TensorFlow's cuDNN check wanted the exact major.minor until this

    def __getstate__(self) -> dict[str, Any]:
        """What pickle stores (the disk cache, gpudoctor.matrix.tables.cache): each table pickled on its own, so that loading
        the matrix imports no table module until a check or query reads that table."""
        import pickle

        state = {k: v for k, v in self.__dict__.items() if k not in _CACHES}  # lookup caches are rebuilt, never pickled
        pickled = dict(state.pop(_PICKLED, {}))
        for name in _TABLES:
            if name in state:
                pickled[name] = pickle.dumps(state.pop(name), protocol=pickle.HIGHEST_PROTOCOL)
        state[_PICKLED] = pickled
        return state

    # -- published wheels ---------------------------------------------------------------------------------------

    def wheel(self, package: str, version: str) -> "WheelRelease | None":
        """What the published wheel of an exact release says (None where the overlay has not audited it)."""
        return self.wheels.get(package, version) if self.wheels is not None else None

    def framework_wheel(self, framework: Framework | str, version: str) -> "WheelRelease | None":
        """The audited wheel of a framework release; ``framework`` is any spelling Framework.parse accepts."""
        if Framework.parse(framework) is Framework.TORCH:
            return self.wheel("torch", version)
        release = self.tf_release(version)
        package = release.package if release else "tensorflow"
        return self.wheel(package, version) or self.wheel("tensorflow", version) or self.wheel("tensorflow-gpu", version)

    def python_for(self, framework: Framework | str, version: str, and_cuda: bool = False) -> tuple[str, ...] | None:
        """The Pythons that have a Linux wheel of this exact release: the wheel's truth where it was audited, else
        the table's row (already corrected by the wheels of its other releases). ``and_cuda``: only those on which
        TensorFlow's and-cuda extra can install. None when the matrix does not know the release."""
        release = self.framework_release(framework, version)
        pythons = release.python if release else None
        wheel = self.framework_wheel(framework, version)
        if wheel is not None and wheel.python is not None:
            pythons = wheel.python
        if and_cuda and wheel is not None and pythons is not None:
            pythons = tuple(p for p in pythons if p not in wheel.and_cuda_no_wheel)
        return pythons

    def framework_release(self, framework: Framework | str, version: str) -> "TorchRelease | TfRelease | None":
        """The row of a framework release ("torch" / "pytorch" / "tensorflow" / "tf" and "2.7.1" or "2.7")."""
        fw = Framework.parse(framework)
        return self.torch_release(version) if fw is Framework.TORCH else self.tf_release(version)

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
        return self._cuda_minor_index.get(vtuple(cuda)[:2], ())

    @cached_property
    def _cuda_minor_index(self) -> dict[tuple[int, ...], tuple[CudaRelease, ...]]:
        """(major, minor) -> its CUDA releases in the table's order, built once per Matrix (issue 23)."""
        index: dict[tuple[int, ...], list[CudaRelease]] = {}
        for r in self.cuda_releases:
            index.setdefault(vtuple(r.version)[:2], []).append(r)
        return {k: tuple(v) for k, v in index.items()}

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
            if need and tuple_ge(have, vtuple(need)):
                return minor
        return None

    def newest_cuda(self) -> str:
        return self.cuda_releases[-1].minor if self.cuda_releases else "0.0"

    def cuda_targets_for(self, cuda: str) -> CudaTargets | None:
        want = vtuple(cuda)
        rows = [t for t in self.cuda_targets if tuple_ge(want, vtuple(t.since))]
        return rows[-1] if rows else None

    # -- PyTorch ------------------------------------------------------------------------------------------------

    def torch_release(self, version: str) -> TorchRelease | None:
        try:
            want = series(version)
        except ValueError:
            return None
        return self._release_index[0].get(want)

    @cached_property
    def _release_index(self) -> tuple[dict[str, TorchRelease], dict[str, TfRelease]]:
        """Series -> the first torch and TensorFlow row of that series, built once per Matrix: every check of every
        node asks, and a fleet judges thousands of snapshots (issue 23)."""
        torch: dict[str, TorchRelease] = {}
        tf: dict[str, TfRelease] = {}
        for row in self.torch:
            torch.setdefault(row.series, row)
        for tf_row in self.tensorflow:
            tf.setdefault(tf_row.series, tf_row)
        return torch, tf

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
        return self._release_index[1].get(want)

    def newest_tf(self) -> TfRelease:
        return self.tensorflow[-1]

    # -- cuDNN --------------------------------------------------------------------------------------------------

    def cudnn_release(self, version: str) -> CudnnRelease | None:
        """The row that covers ``version`` (the newest row whose first release is not newer)."""
        have = try_vtuple(version)
        if have is None:
            return None
        rows = [r for r in self.cudnn if tuple_ge(have, vtuple(r.first or r.version))]
        return rows[-1] if rows else None

    def cudnn_cc_min(self, version: str) -> str | None:
        """The lowest compute capability a cuDNN release supports (9.11+ -> "7.5")."""
        row = self.cudnn_release(version)
        return row.cc_min if row else None

    # -- GPUs ---------------------------------------------------------------------------------------------------

    def gpu_by_name(self, name: str) -> GpuModel | None:
        """nvidia-smi-style product name -> its row: "NVIDIA GeForce RTX 4090", "Tesla V100-SXM2-16GB", "RTX 4090".

        The GPU table is tokenised once per Matrix and each asked name is remembered (up to _GPU_MEMO_SIZE names), so
        a snapshot of 1,000 GPUs asks in time linear in its GPUs, not in GPUs x table rows (issue 23)."""
        memo = self._gpu_memo
        if name in memo:
            return memo[name]
        found = _match_gpu(self._gpu_name_table, name)
        if len(memo) < _GPU_MEMO_SIZE:  # untrusted text may name many GPUs: the memo stays bounded
            memo[name] = found
        return found

    @cached_property
    def _gpu_name_table(self) -> tuple[tuple[tuple[str, ...], GpuModel], ...]:
        """Every (name tokens, row) of the GPU table, longest first, in the table's order within a length: the first
        whose tokens start the asked name's is the longest match, and the earliest row of that length, as before."""
        rows = [(name_tokens(candidate), model) for model in self.gpus for candidate in model.names]
        return tuple(sorted(((cand, model) for cand, model in rows if cand), key=lambda row: -len(row[0])))

    @cached_property
    def _gpu_memo(self) -> dict[str, GpuModel | None]:  # name -> row, up to _GPU_MEMO_SIZE names
        return {}

    def gpu_compute_capability(self, name: str) -> str | None:
        model = self.gpu_by_name(name)
        return model.cc if model else None


_GPU_MEMO_SIZE = 4096
_CACHES = ("_gpu_name_table", "_gpu_memo", "_release_index", "_cuda_minor_index")  # Matrix's cached lookups (never pickled)


def _match_gpu(table: tuple[tuple[tuple[str, ...], GpuModel], ...], name: str) -> GpuModel | None:
    """The row of the longest table name whose words start ``name``'s words (the first such row on a tie)."""
    tokens = name_tokens(name)
    return next((model for cand, model in table if tokens[: len(cand)] == cand), None) if tokens else None


_TABLES = tuple(name for name, value in vars(Matrix).items() if isinstance(value, _Table))  # pickled one by one
