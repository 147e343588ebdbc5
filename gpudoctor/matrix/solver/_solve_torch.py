"""PyTorch: the newest release and CUDA variant a target runs (Linux x86_64 and aarch64, Windows, macOS)."""

from __future__ import annotations

from ..tables.model import Matrix, TorchRelease, TorchVariant, vtuple
from ._solve_core import Choice, Fit, Target, gpu_fit, pick_python, py_range, select
from .driver import driver_os


def solve_torch(matrix: Matrix, target: Target, version: str | None, cpu: bool) -> tuple[Choice | None, list[str]]:
    """(the choice, or None, and every rejection in order)."""
    use_gpu = target.wants_gpu_build(cpu)
    rejects: list[str] = []
    for release, exact in select(matrix.torch, version, "torch", matrix):
        assert isinstance(release, TorchRelease)
        blocked = _platform_block(matrix, target, release, exact)
        if blocked:
            rejects.append(blocked)
            continue
        pythons = matrix.python_for("torch", exact) or release.python  # the published wheels' where they differ
        py = pick_python(pythons, target.python, release.python_experimental)
        if py is None:
            rejects.append(f"torch {exact} has no wheel for Python {target.python} (it has {py_range(pythons)})")
            continue
        py_reason = f"Python {py}: torch {exact} has wheels for Python {py_range(pythons)}"
        if not use_gpu:
            return _torch_cpu(matrix, target, release, exact, py, py_reason, cpu, rejects), rejects
        best = _best_variant(matrix, target, release, exact, rejects)
        if best is None:
            continue
        variant, fit = best
        packages = [f"torch=={exact}"]
        tv = release.torchvision_requirement(exact)
        if tv:
            packages.append(tv)
        reasons = [py_reason, *fit.reasons]
        notes = list(fit.notes)
        index_url: str | None = matrix.torch_index(variant.tag)
        if target.arch == "aarch64":
            index_url = None
            reasons.append(
                f"Linux aarch64: the package index's torch {exact} wheel is the {variant.tag} build (CUDA {variant.cuda}); "
                f"its aarch64 GPU list comes from PyTorch's release notes"
            )
        elif variant.tag == release.default_linux:
            reasons.append(f"{variant.tag} is the default CUDA variant of torch {release.series}")
        if target.os == "windows":
            notes.append("on Windows a plain `pip install torch` gets a CPU-only build: CUDA builds come only from PyTorch's index")
        if not tv:
            notes.append(f"no torchvision release is confirmed for torch {release.series}")
        choice = Choice(
            framework="torch",
            version=exact,
            variant=variant.tag,
            index_url=index_url,
            packages=tuple(packages),
            python=py,
            cuda=variant.cuda,
            reasons=tuple(reasons),
            notes=tuple(notes),
            skipped=_skipped(rejects, exact),
        )
        return choice, rejects
    return None, rejects


def _platform_block(matrix: Matrix, target: Target, release: TorchRelease, exact: str) -> str | None:
    plat = matrix.platforms
    if target.os == "darwin" and target.arch == "x86_64":
        last = plat.torch_macos_x86_64_last if plat else None
        if last is None or vtuple(release.series) > vtuple(last):
            return f"torch {exact} has no macOS x86_64 wheel (Intel Macs stop at torch {last or '?'})"
    return None


def _best_variant(matrix: Matrix, target: Target, release: TorchRelease, exact: str, rejects: list[str]) -> tuple[TorchVariant, Fit] | None:
    if target.arch == "aarch64":
        plat = matrix.platforms
        since = plat.torch_linux_aarch64_cuda_since if plat else None
        variant = release.variant(release.default_linux)
        if since is None or vtuple(release.series) < vtuple(since) or variant is None or not variant.cuda:
            rejects.append(
                f"torch {exact} has no CUDA build for Linux aarch64 on the package index (its aarch64 wheels are CPU-only; CUDA ones from {since or '?'})"
            )
            return None
        label = f"torch {exact}+{variant.tag} (aarch64)"
        fit = gpu_fit(matrix, target, plat.torch_linux_aarch64_arch, False, variant.cuda, label, rejects, cudnn=variant.cudnn)
        return (variant, fit) if fit else None
    best: tuple[tuple, TorchVariant, Fit] | None = None
    for variant in release.variants:
        if not variant.cuda:
            continue
        label = f"torch {exact}+{variant.tag}"
        fit = gpu_fit(
            matrix, target, variant.arch_for(driver_os(target.os)), variant.arch_confirmed, variant.cuda, label, rejects, cudnn=variant.cudnn
        )
        if fit is None:
            continue
        rank = fit.rank + (variant.tag == release.default_linux, vtuple(variant.cuda))
        if best is None or rank > best[0]:
            best = (rank, variant, fit)
    return (best[1], best[2]) if best else None


def _torch_cpu(matrix: Matrix, target: Target, release: TorchRelease, exact: str, py: str, py_reason: str, cpu: bool, rejects: list[str]) -> Choice:
    packages = [f"torch=={exact}"]
    tv = release.torchvision_requirement(exact)
    if tv:
        packages.append(tv)
    if cpu:
        why = "a CPU build was asked for"
    elif target.os == "darwin":
        build = "CPU / Apple MPS build" if target.arch != "x86_64" else "CPU build"
        why = f"macOS {target.arch}: PyTorch has no CUDA builds there ({build} from the default index)"
    else:
        why = "no NVIDIA GPU: the CPU build (smaller, no CUDA libraries)"
    tables = matrix.platform_tables
    apple = tables.apple if tables else None
    mps = (not cpu and target.os == "darwin" and target.arch != "x86_64" and apple is not None
           and vtuple(release.series) >= vtuple(apple.mps_torch_since))
    return Choice(
        framework="torch",
        version=exact,
        variant="cpu",
        accelerator="mps" if mps else None,
        index_url=None if target.os == "darwin" else matrix.torch_index("cpu"),
        packages=tuple(packages),
        python=py,
        cuda=None,
        reasons=(py_reason, why),
        notes=(f"MPS needs macOS {apple.mps_min_macos} or later",) if mps else (),
        skipped=_skipped(rejects, exact),
    )


def _skipped(rejects: list[str], chosen: str) -> tuple[str, ...]:
    """The rejections of other releases (they explain why the chosen one is not the newest), without repeats."""
    return tuple(dict.fromkeys(r for r in rejects if f" {chosen}" not in r))
