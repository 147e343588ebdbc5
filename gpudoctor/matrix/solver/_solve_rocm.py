"""AMD GPUs: the newest torch release whose official ROCm wheels (download.pytorch.org/whl/rocmX.Y) carry every GPU's
gfx target, from matrices/rocm.toml. No I/O: the Matrix is always passed in.

A gfx target that no official wheel carries (RX 5700 XT: gfx1010) is refused with the reason, and the
HSA_OVERRIDE_GFX_VERSION workaround is named for what it is. TensorFlow is refused: the package index's
tensorflow-rocm stops at 2.14 and gpudoctor has no sourced table of the targets its wheels carry.
"""

from __future__ import annotations

from ..tables.model import Matrix, TorchRelease, vtuple
from ._solve_core import Choice, NoFit, Target, pick_python, py_range, select

OVERRIDE = (
    "HSA_OVERRIDE_GFX_VERSION makes the ROCm runtime load kernels built for another target on this GPU: a workaround "
    "AMD does not support, which works only where the two targets share an instruction set and otherwise crashes or "
    "computes wrong results"
)


def solve_rocm(matrix: Matrix, target: Target, fw: str, version: str | None) -> Choice:
    """The ROCm Choice for a target with AMD GPUs (``target.gfx``); NoFit with the reasons when none fits."""
    table = matrix.rocm
    gfx = tuple(dict.fromkeys(target.gfx))
    if fw != "torch":
        raise NoFit(
            "gpudoctor cannot target TensorFlow on an AMD GPU",
            reasons=(
                "the package index's tensorflow-rocm stops at 2.14.0.600 (ROCm 6.0) and gpudoctor has no sourced table of "
                "the gfx targets its wheels carry or of the ROCm they need",
            ),
            suggestion="follow AMD's TensorFlow-on-ROCm install page (https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/3rd-party/tensorflow-install.html), or use --framework torch",
        )
    if table is None:
        raise NoFit("gpudoctor has no ROCm table (matrices/rocm.toml is missing)")
    if target.os != "linux" or target.arch != "x86_64":
        where = "macOS" if target.os == "darwin" else ("native Windows" if target.os == "windows" else f"Linux {target.arch}")
        raise NoFit(
            f"no official PyTorch ROCm build runs on {where}",
            reasons=("PyTorch publishes its ROCm wheels for Linux x86_64 only",),
            suggestion="use Linux x86_64 for the AMD GPU, or --cpu for the CPU build",
        )
    unknown = [g for g in gfx if table.newest_with(g) is None]
    if unknown:
        raise NoFit(
            f"no official PyTorch ROCm wheel carries {', '.join(unknown)}",
            reasons=(
                f"the ROCm wheels of every torch release gpudoctor knows ({table.wheels[0].torch}–{table.wheels[-1].torch}) are compiled "
                f"for {', '.join(_all_targets(table))}: not for {', '.join(unknown)}, so torch fails with \"HIP error: invalid device function\"",
                OVERRIDE + f" ({table.override_docs})",
            ),
            suggestion=f"build PyTorch from source with PYTORCH_ROCM_ARCH={';'.join(unknown)}, use a GPU whose target the wheels carry (`gpudoctor matrix rocm 6.4` lists them), or --cpu",
        )
    rejects: list[str] = []
    for release, exact in select(matrix.torch, version, "torch", matrix):
        assert isinstance(release, TorchRelease)
        choice = _try_release(matrix, target, release, exact, gfx, rejects)
        if choice is not None:
            return choice
    raise NoFit(f"no ROCm build of {'torch ' + version if version else 'any torch release'} fits this machine", reasons=tuple(dict.fromkeys(rejects)),
                suggestion=f"torch {table.newest_with(gfx[0]).torch} is the newest with ROCm wheels for {gfx[0]}" if version else None)


def _try_release(matrix: Matrix, target: Target, release: TorchRelease, exact: str, gfx: tuple[str, ...], rejects: list[str]) -> Choice | None:
    table = matrix.rocm
    row = table.for_torch(release.series)
    if row is None:
        rejects.append(f"torch {exact}: gpudoctor's ROCm table (rocm.toml) has no row for its ROCm wheels")
        return None
    rocm = max(row.rocm, key=vtuple)
    missing = [g for g in gfx if g not in row.arch]
    if missing:
        rejects.append(f"torch {exact}+rocm{rocm} carries no code for {', '.join(missing)} (its targets: {', '.join(row.arch)})")
        return None
    pythons = matrix.python_for("torch", exact) or release.python
    py = pick_python(pythons, target.python, release.python_experimental)
    if py is None:
        rejects.append(f"torch {exact} has no wheel for Python {target.python} (it has {py_range(pythons)})")
        return None
    packages = [f"torch=={exact}"]
    tv = release.torchvision_requirement(exact)
    if tv:
        packages.append(tv)
    reasons = [
        f"Python {py}: torch {exact} has wheels for Python {py_range(pythons)}",
        f"{', '.join(gfx)} {'is' if len(gfx) == 1 else 'are'} among the gfx targets of torch {release.series}'s ROCm wheels",
        f"ROCm {rocm}: the newest ROCm torch {release.series} was published for ({table.index_url}rocm{rocm})",
    ]
    notes = [
        "the ROCm wheels bring the ROCm libraries they use: the host needs the amdgpu kernel driver, and the user access to "
        "/dev/kfd and /dev/dri (the render and video groups)",
        "conda-forge's pytorch packages are not PyTorch's official ROCm route: environment.yml takes only Python from "
        "conda-forge and installs these wheels with pip",
        "on ROCm, torch's \"cuda\" device is the AMD GPU (torch.version.hip names the HIP version)",
    ]
    if not row.arch_confirmed:
        notes.append(
            f"the gfx list of torch {release.series}'s ROCm wheels is unconfirmed (taken from PyTorch's build scripts, not read "
            f"from the wheel): if torch fails with \"invalid device function\", pin --framework-version of a release whose list is confirmed"
        )
    if not row.wheels_confirmed:
        notes.append(f"the rocm{rocm} index for torch {release.series} comes from PyTorch's RELEASE.md; the index itself was not read")
    if not tv:
        notes.append(f"no torchvision release is confirmed for torch {release.series}")
    return Choice(
        framework="torch", version=exact, variant=f"rocm{rocm}", index_url=f"{table.index_url}rocm{rocm}", packages=tuple(packages),
        python=py, cuda=None, reasons=tuple(reasons), notes=tuple(notes), accelerator="rocm",
        skipped=tuple(dict.fromkeys(r for r in rejects if f" {exact}" not in r)),
    )


def _all_targets(table) -> list[str]:
    return list(dict.fromkeys(g for w in table.wheels for g in w.arch))
