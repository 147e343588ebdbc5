"""Whether an NVIDIA driver (a release such as 550.54.15, or a whole branch such as 550) can run a CUDA build: the
CUDA table's own driver before CUDA 11, the major's minor-version-compatibility floor from 11 on."""

from __future__ import annotations

from typing import NamedTuple

from ..tables.model import Matrix, try_vtuple, version_ge, vtuple


class DriverVerdict(NamedTuple):
    """Whether a driver can run a build's CUDA, and the driver versions that decide it."""
    ok: bool | None  # None: cannot tell (no driver facts, or a CUDA major the matrix does not know)
    mode: str | None  # "native" (driver CUDA >= build CUDA) | "minor-version compatibility" | None
    driver_cuda: str | None  # the CUDA the driver supports (given or derived)
    need: str | None  # the minimum driver for this build (the major's floor, or the toolkit's own driver for <= 10.x)
    full: str | None  # the driver shipped with that CUDA release (full feature set, PTX JIT of its code)

    @property
    def native(self) -> bool:
        return self.mode == "native"


def driver_os(os: str | None, wsl: bool | int | None = False) -> str:
    """Which driver table applies: WSL2 runs the Windows driver."""
    return "windows" if os == "windows" or wsl else "linux"


def is_branch(driver_version: str | None) -> bool:
    """ "550" names a driver branch (R550), not release 550.0.0."""
    parts = try_vtuple(driver_version)
    return parts is not None and len(parts) == 1


def driver_at_least(driver_version: str, need: str) -> bool:
    """A driver (or a whole branch) satisfies ``need``: every release of branch R550 is >= its first, 550.54.14."""
    if is_branch(driver_version):
        return vtuple(driver_version)[0] >= vtuple(need)[0]
    return version_ge(driver_version, need)


def driver_cuda_of(matrix: Matrix, driver_version: str, os: str = "linux") -> str | None:
    """The newest CUDA (x.y) a driver supports; for a branch, the newest one whose first driver is in that branch."""
    if not is_branch(driver_version):
        return matrix.driver_cuda(driver_version, os)
    minors = sorted({r.minor for r in matrix.cuda_releases}, key=vtuple, reverse=True)
    for minor in minors:
        need = matrix.min_driver(minor, os)
        if need and driver_at_least(driver_version, need):
            return minor
    return None


def driver_verdict(matrix: Matrix, cuda: str, driver_version: str | None, driver_cuda: str | None, os: str = "linux") -> DriverVerdict:
    """Can this driver run a build made with CUDA ``cuda``? ``os`` is the driver's OS ("windows" for WSL2)."""
    want = vtuple(cuda)[:2]
    major = want[0]
    dcuda = driver_cuda or (driver_cuda_of(matrix, driver_version, os) if driver_version else None)
    full = matrix.min_driver(cuda, os)
    have_cuda = try_vtuple(dcuda)
    need = matrix.mvc_floor(major, os) if major >= 11 else full
    if have_cuda is not None and have_cuda[:2] >= want:
        # Before CUDA 11 there is no minor-version compatibility: an exact toolkit (8.0.61, 9.2.148) needs its own
        # driver even where an earlier release of the same minor (8.0.44) is satisfied.
        if major < 11 and need and try_vtuple(driver_version) is not None and not driver_at_least(driver_version, need):
            return DriverVerdict(False, None, dcuda, need, full)
        return DriverVerdict(True, "native", dcuda, need, full)
    if need is None:
        return DriverVerdict(None, None, dcuda, None, full)
    if try_vtuple(driver_version) is not None:
        ok = driver_at_least(driver_version, need)
    elif have_cuda is not None:
        ok = major >= 11 and have_cuda[0] == major
    else:
        return DriverVerdict(None, None, dcuda, need, full)
    mode = ("minor-version compatibility" if major >= 11 else "native") if ok else None
    return DriverVerdict(ok, mode, dcuda, need, full)


