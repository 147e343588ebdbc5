"""``gpudoctor matrix rocm 6.4``: which official torch wheels were built for a ROCm release, the gfx targets they
carry and the AMD GPUs (amd_gpus.toml) with those targets. Pure: answers from the loaded matrix only."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import UnknownRelease
from ..tables.model import Matrix


@dataclass(frozen=True)
class RocmWheelInfo:
    """One torch wheel for a ROCm release: its index and the AMD GPU targets (gfx) it carries."""

    torch: str
    rocm: str  # the index tag's version: "6.4"
    index_url: str
    arch: tuple[str, ...]
    arch_confirmed: bool
    wheels_confirmed: bool
    sources: tuple[str, ...]


@dataclass(frozen=True)
class RocmInfo:
    """`gpudoctor matrix rocm X.Y`: the torch wheels for a ROCm release and which AMD GPUs they do and do not carry."""

    rocm: str
    wheels: tuple[RocmWheelInfo, ...]
    gfx: tuple[str, ...]  # every target carried by at least one of the wheels
    gpus: tuple[tuple[str, str], ...]  # (GPU name, gfx) whose target at least one wheel carries
    gpus_without_wheel: tuple[tuple[str, str], ...]  # known AMD GPUs none of these wheels carries
    sources: tuple[str, ...]


def rocm_info(m: Matrix, version: str) -> RocmInfo:
    table = m.rocm
    if table is None:
        raise UnknownRelease("ROCm", version, "no ROCm releases: rocm.toml is missing")
    rows = table.for_rocm(version)
    if not rows:
        raise UnknownRelease("ROCm", version, ", ".join(table.known_rocm()))
    want = ".".join(version.split(".")[:2])
    wheels = []
    for row in rows:
        for rocm in row.rocm:
            if ".".join(rocm.split(".")[:2]) == want:
                wheels.append(RocmWheelInfo(row.torch, rocm, f"{table.index_url}rocm{rocm}", row.arch, row.arch_confirmed,
                                            row.wheels_confirmed, row.sources))
    gfx = tuple(dict.fromkeys(g for w in wheels for g in w.arch))
    named = [(name, model.gfx) for model in table.gpus for name in model.names]
    return RocmInfo(version, tuple(wheels), gfx, tuple(n for n in named if n[1] in gfx),
                    tuple(n for n in named if n[1] not in gfx), table.sources)
