"""matrices/rocm.toml (torch release -> the ROCm versions of its official wheels -> the gfx targets they carry) and
matrices/amd_gpus.toml (AMD GPU names -> gfx target). Pure data and queries; loaded with the rest of the matrix."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .reader import Reader, read_toml
from .versions import vtuple

ROCM_FILE = "rocm.toml"
AMD_GPUS_FILE = "amd_gpus.toml"
_GFX = re.compile(r"gfx[0-9]{1,2}[0-9a-f]{2}")


@dataclass(frozen=True)
class RocmWheel:
    """A torch release series' ROCm wheels: the ROCm indexes and the gfx targets compiled in."""
    torch: str  # release series: "2.8"
    rocm: tuple[str, ...]  # ("6.3", "6.4"): the download.pytorch.org/whl/rocmX.Y indexes it was published to
    arch: tuple[str, ...]  # gfx targets compiled in
    arch_confirmed: bool  # False: the list was not read from the wheel itself; never the ground for an error
    wheels_confirmed: bool
    sources: tuple[str, ...]
    reviewed: str

    def tag(self, rocm: str) -> str:
        return f"rocm{rocm}"


@dataclass(frozen=True)
class AmdGpuModel:
    """AMD GPU product names and the gfx target they share."""
    names: tuple[str, ...]
    gfx: str


@dataclass(frozen=True)
class RocmImage:
    """A rocm/dev-ubuntu Docker image for one ROCm release of the wheel index."""
    rocm: str  # "6.4": the wheel index's ROCm release it serves
    image: str  # "rocm/dev-ubuntu-22.04:6.4.4"
    python: str  # the image's apt python3
    sources: tuple[str, ...]
    status: str = "unconfirmed"  # "available" (seen in a dated source) / "deleted" / "unconfirmed"
    status_seen: str = ""


@dataclass(frozen=True)
class RocmTable:
    """The ROCm matrix: torch wheels, AMD GPUs, the wheel index and its sources."""
    wheels: tuple[RocmWheel, ...]  # oldest first
    gpus: tuple[AmdGpuModel, ...]
    index_url: str
    override_docs: str
    sources: tuple[str, ...]
    reviewed: str
    images: tuple[RocmImage, ...] = ()  # base images for the ROCm route's Dockerfile

    def image_for(self, rocm: str) -> RocmImage | None:
        """The base image a Dockerfile may start from: only an "available" one."""
        return next((i for i in self.images if i.rocm == _minor(rocm) and i.status == "available"), None)

    def for_torch(self, series: str) -> RocmWheel | None:
        return next((w for w in self.wheels if w.torch == series), None)

    def for_rocm(self, rocm: str) -> tuple[RocmWheel, ...]:
        """Wheels published for this ROCm: "6.4" matches rocm6.4; "6.2" also matches rocm6.2.4 (same minor)."""
        want = _minor(rocm)
        return tuple(w for w in self.wheels if any(_minor(r) == want for r in w.rocm))

    def known_rocm(self) -> tuple[str, ...]:
        return tuple(sorted({r for w in self.wheels for r in w.rocm}, key=vtuple))

    def gfx_for(self, gpu_name: str) -> str | None:
        """The gfx target of a GPU named as people write it ("Radeon RX 7900 XTX", "MI300X", "amd radeon pro w7900")."""
        want = _words(gpu_name)
        if not want:
            return None
        best = None
        for model in self.gpus:
            for name in model.names:
                words = _words(name)
                if want == words or want == [w for w in words if w not in ("amd", "radeon", "instinct")]:
                    return model.gfx
                stripped = [w for w in words if w not in ("amd",)]
                if want == stripped:
                    best = model.gfx
        return best

    def newest_with(self, gfx: str, confirmed_only: bool = False) -> RocmWheel | None:
        for wheel in reversed(self.wheels):
            if gfx in wheel.arch and (wheel.arch_confirmed or not confirmed_only):
                return wheel
        return None


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]


def load_rocm(directory: Path, tomllib: Any) -> RocmTable | None:
    """Both files, validated; None when rocm.toml is absent (a hand-built matrix directory)."""
    docs = {}
    for name in (ROCM_FILE, AMD_GPUS_FILE):
        doc = read_toml(Path(directory) / name, tomllib, required=False)
        if doc is None:
            return None
        docs[name] = doc
    top = Reader(ROCM_FILE, docs[ROCM_FILE], "")
    wheels = tuple(sorted((_wheel(t) for t in top.tables("wheel")), key=lambda w: vtuple(w.torch)))
    gpus_doc = Reader(AMD_GPUS_FILE, docs[AMD_GPUS_FILE], "")
    gpus = tuple(AmdGpuModel(t.strs("names"), _gfx(t, "gfx")) for t in gpus_doc.tables("gpu"))
    gpus_doc.urls("sources", required=True)
    images = tuple(
        RocmImage(t.version("rocm"), t.str("image"), t.version("python"), t.urls("sources", required=True), _image_status(t), t.date("status_seen"))
        for t in (top.tables("image") if top.has("image") else ())
    )
    return RocmTable(wheels, gpus, top.str("index_url"), top.str("override_docs"), top.urls("sources", required=True),
                     min(top.date("reviewed"), gpus_doc.date("reviewed")), images)


def _image_status(t: Reader) -> str:
    status = t.str("status")
    if status not in ("available", "deleted", "unconfirmed"):
        raise t.fail("status", f"{status!r} is not available, deleted or unconfirmed")
    return status


def _wheel(t: Reader) -> RocmWheel:
    arch = t.strs("arch")
    for gfx in arch:
        if not _GFX.fullmatch(gfx):
            raise t.fail("arch", f"not a gfx target: {gfx!r}")
    return RocmWheel(t.version("torch"), t.versions("rocm"), arch, t.bool("arch_confirmed", True),
                     t.bool("wheels_confirmed", True), t.urls("sources", required=True), t.date("reviewed"))


def _gfx(t: Reader, key: str) -> str:
    value = t.str(key)
    if not _GFX.fullmatch(value):
        raise t.fail(key, f"not a gfx target: {value!r}")
    return value
