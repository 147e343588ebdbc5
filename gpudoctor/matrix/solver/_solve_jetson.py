"""Jetson modules: NVIDIA's torch builds for the board's JetPack release (matrices/jetpack.toml), from the wheel index
the row names, and only where the row confirms that index. The package indexes' torch wheels are built for discrete
GPUs and do not run on a Jetson's integrated one. No I/O: the Matrix is always passed in."""

from __future__ import annotations

from ..tables.model import Matrix, vtuple
from ._solve_core import Choice, NoFit, Target, fw_name


def jetson_capabilities(matrix: Matrix, target: Target) -> list[str]:
    plat = matrix.platforms
    return [cc for cc in target.compute_capabilities if plat and plat.is_jetson(cc)]


def solve_jetson(matrix: Matrix, target: Target, fw: str, version: str | None) -> Choice:
    """The JetPack Choice; NoFit (with what to do instead) for TensorFlow, an unknown JetPack, or a row whose wheel
    index is unconfirmed."""
    plat = matrix.platforms
    jetson = jetson_capabilities(matrix, target)
    tables = matrix.platform_tables
    known = ", ".join(r.jetpack for r in tables.jetpack) if tables and tables.jetpack else "none"
    intro = (
        f"a Jetson's GPU is integrated and its CUDA comes with JetPack (L4T): the {fw_name(fw)} wheels on the package "
        f"indexes are built for discrete GPUs and do not run on it"
    )
    container = plat.jetson_container(fw)
    if fw != "torch" or target.jetpack is None:
        how = (f"describe the board's JetPack release with --jetpack (gpudoctor knows {known}; `cat /etc/nv_tegra_release` "
               f"prints its L4T release and `gpudoctor matrix jetpack r36.4.3` maps one to the other)") if fw == "torch" else (
               f"install NVIDIA's {fw_name(fw)} build for your JetPack release (`cat /etc/nv_tegra_release` shows it)")
        raise NoFit(
            f"gpudoctor cannot target a Jetson module (compute capability {', '.join(jetson)}) with package-index wheels"
            + ("" if fw != "torch" else " without its JetPack release"),
            reasons=(intro, f"NVIDIA builds {fw_name(fw)} for each JetPack release: {plat.jetson_wheels_url}"),
            suggestion=f"{how}, or use the {container} container whose rNN.N tag matches that L4T release",
        )
    row = tables.jetpack_release(target.jetpack) if tables else None
    if row is None:
        raise NoFit(f"gpudoctor does not know JetPack {target.jetpack}", reasons=(f"matrices/jetpack.toml knows {known}",),
                    suggestion="give one of those releases with --jetpack")
    if "torch_index" in row.unconfirmed or not row.torch_index or row.torch_index.endswith("/pytorch/"):
        raise NoFit(
            f"gpudoctor writes no files for JetPack {row.jetpack}: the source of its torch wheels is unconfirmed",
            reasons=(intro, f"the torch wheel index of JetPack {row.jetpack} (L4T {row.l4t}) is unconfirmed: jetpack.toml names {row.torch_index}, "
                            f"but no source read on its reviewed date confirms it as a pip index of torch {', '.join(row.torch)}, "
                            f"so gpudoctor writes no files for it"),
            suggestion=f"pick the torch wheel for JetPack {row.jetpack} from {plat.jetson_wheels_url}, or use the {container} container "
                       f"whose tag starts r{row.l4t}",
        )
    if target.python is not None and target.python != row.python:
        raise NoFit(f"NVIDIA's torch wheels for JetPack {row.jetpack} are built for Python {row.python} (Ubuntu {row.ubuntu}'s), not {target.python}",
                    suggestion=f"use --python {row.python}, the board's system Python")
    series = list(row.torch)
    if version is not None:
        want = ".".join(version.split(".")[:2])
        if want not in series:
            raise NoFit(f"NVIDIA publishes no torch {want} for JetPack {row.jetpack}", reasons=(f"it publishes torch {', '.join(series)}",),
                        suggestion=f"--framework-version {series[-1]}")
        series = [want]
    low, high = min(series, key=vtuple), max(series, key=vtuple)
    major, minor = vtuple(high)[:2]
    requirement = f"torch=={high}.*" if low == high else f"torch>={low},<{major}.{minor + 1}"
    notes = [
        f"the wheels use JetPack {row.jetpack}'s own CUDA {row.cuda}" + (f" and cuDNN {row.cudnn}" if row.cudnn else "") + ": install them "
        f"on the board (or in a venv of its Python {row.python}); no Dockerfile, conda or uv file is written for this route",
        "torchvision comes from the same index, unpinned (pip takes the one built for that torch), as `gpudoctor matrix jetpack` installs it",
    ]
    unconfirmed = [field for field in row.unconfirmed if field != "torch_index"]
    if unconfirmed:
        notes.append(f"jetpack.toml marks {', '.join(unconfirmed)} of JetPack {row.jetpack} as unconfirmed")
    return Choice(
        framework="torch", version=high, variant=f"jp{row.jetpack}", index_url=row.torch_index,
        packages=(requirement, "torchvision"), python=row.python, cuda=row.cuda, accelerator="jetson",
        reasons=(
            intro,
            f"JetPack {row.jetpack} (L4T {row.l4t}): NVIDIA publishes torch {', '.join(row.torch)} for it at {row.torch_index}",
            f"Python {row.python}: the Python of JetPack {row.jetpack}'s Ubuntu {row.ubuntu}, which those wheels are built for",
        ),
        notes=tuple(notes),
    )
