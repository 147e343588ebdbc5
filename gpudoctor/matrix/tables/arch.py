"""GPU architectures: "sm_86" (SASS), "compute_90" (PTX), "sm_90a" (arch-specific), "sm_100f" (family), and
TORCH_CUDA_ARCH_LIST style "8.6" / "8.6+PTX"; and whether a build's list runs on a GPU of a compute capability.

Pure functions, no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, NamedTuple

from .versions import vtuple

_ARCH_RE = re.compile(r"^(sm|compute)_(\d{1,6})([af]?)$")  # bounded: int() of 4,300+ digits raises
_CC_RE = re.compile(r"^(\d{1,4})\.(\d{1,4})(\+ptx)?$")


class ArchEntry(NamedTuple):
    """One compiled GPU target of a build: SASS or PTX for a compute capability."""
    kind: str  # "sass" | "ptx"
    cc: tuple[int, int]
    suffix: str = ""  # "" | "a" (this exact CC only) | "f" (family: same major, equal or higher minor)

    @property
    def label(self) -> str:
        prefix = "sm" if self.kind == "sass" else "compute"
        return f"{prefix}_{self.cc[0]}{self.cc[1]}{self.suffix}"


@lru_cache(maxsize=1024)  # a build's few entries are read for every GPU and every candidate build: read each once
def parse_arch(entry: str) -> tuple[ArchEntry, ...]:
    """One arch-list entry -> its SASS/PTX targets (empty for an entry it cannot read)."""
    text = entry.strip().lower()
    m = _ARCH_RE.match(text)
    if m:
        digits = m.group(2)
        if len(digits) < 2:
            return ()
        cc = (int(digits[:-1]), int(digits[-1]))
        return (ArchEntry("sass" if m.group(1) == "sm" else "ptx", cc, m.group(3)),)
    m = _CC_RE.match(text)
    if m:
        cc = (int(m.group(1)), int(m.group(2)))
        return (ArchEntry("sass", cc),) + ((ArchEntry("ptx", cc),) if m.group(3) else ())
    return ()


def cc_tuple(cc: str) -> tuple[int, int]:
    parts = vtuple(cc)
    return (parts[0], parts[1] if len(parts) > 1 else 0)


# Integrated (Tegra) GPUs: Jetson TK1 3.2, Nano/TX1 5.3, TX2 6.2, Xavier 7.2, Orin 8.7. CUDA C++ Programming Guide,
# "Binary Compatibility": a cubin for X.y runs on X.z with z >= y, but "Binary compatibility is supported only for the
# desktop. It is not supported for Tegra. Also, the binary compatibility between desktop and Tegra is not supported."
# So a Tegra GPU runs only SASS of its own compute capability (PTX still JIT-compiles). Reviewed 2026-11-24.
TEGRA_CCS = frozenset({(3, 2), (5, 3), (6, 2), (7, 2), (8, 7)})


def arch_support(arch_list: Iterable[str], cc: str) -> str | None:
    """How a build with ``arch_list`` runs on a GPU of compute capability ``cc``: "sass" (native code), "ptx"
    (JIT-compiled from PTX on first start) or None (no kernel image for it)."""
    gpu = cc_tuple(cc)
    tegra = gpu in TEGRA_CCS
    ptx = False
    for raw in arch_list:
        for entry in parse_arch(raw):
            if entry.kind == "sass":
                if entry.suffix == "a" or tegra:
                    if entry.cc == gpu:
                        return "sass"
                elif entry.cc[0] == gpu[0] and entry.cc[1] <= gpu[1] and entry.cc not in TEGRA_CCS:
                    return "sass"
            elif entry.suffix == "a":
                ptx = ptx or entry.cc == gpu
            elif entry.cc <= gpu:
                ptx = True
    return "ptx" if ptx else None


def arch_summary(arch_list: Iterable[str]) -> str:
    return " ".join(arch_list)
