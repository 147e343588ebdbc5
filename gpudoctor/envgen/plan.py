"""Which files to write and which solver Choice each one installs.

The conda, pip and uv files install on the target machine itself. The Dockerfile builds a *Linux* container, so for
a native-Windows or macOS target it gets its own Choice, solved for Linux with the same GPUs and driver (Docker
Desktop runs Linux containers in WSL2, where the Windows driver serves the GPU; on a Mac its Linux VM has no NVIDIA
GPU and the CPU architecture of the Mac). A build that loads CUDA and cuDNN from the system (TensorFlow before
`and-cuda`: its conda route, or a release with no conda recipe) gets a real nvidia/cuda cuDNN runtime image of that
CUDA and a Python from the image's own apt archive, when NVIDIA still serves one ("available" in platforms.toml);
else a conda-route build gets the conda base image with CUDA and cuDNN from conda-forge, and a system-route build
gets no Dockerfile (no source of its CUDA remains).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable

from .render import FORMATS


@dataclass(frozen=True)
class EnvPlan:
    """The solver's choices for the requested formats: one for conda/pip/uv, one for the Docker image's own target."""

    target: Any
    choice: Any
    formats: tuple[str, ...]
    docker_target: Any = None
    docker_choice: Any = None
    skipped: tuple[tuple[str, str], ...] = ()  # (format, why it was not written)
    docker_image: str | None = None  # the FROM image; None = python:X-slim
    docker_pip_upgrade: str | None = None  # the image's apt pip is too old: upgrade to this requirement first
    docker_conda_prefix: str | None = None  # the FROM image is the conda base (platforms.toml conda_image): its prefix


def expand_formats(formats: Iterable[str]) -> tuple[str, ...]:
    """("all",) -> every format; duplicates dropped; always in FORMATS order (conda, pip, docker, uv)."""
    wanted = set(formats) or {"all"}
    if "all" in wanted:
        return FORMATS
    unknown = wanted - set(FORMATS)
    if unknown:
        raise ValueError(f"unknown format {sorted(unknown)[0]!r}: expected one of {', '.join(FORMATS)} or all")
    return tuple(fmt for fmt in FORMATS if fmt in wanted)


def docker_target_for(target: Any) -> Any:
    """The Linux machine a container on ``target`` runs on."""
    if target.os == "linux":
        return target
    if target.os == "windows":
        return dataclasses.replace(target, os="linux", wsl=True)
    # macOS: Docker Desktop's Linux VM has no NVIDIA GPU, and the Mac's CPU architecture
    arch = "aarch64" if target.arch == "arm64" else "x86_64"
    return dataclasses.replace(target, os="linux", wsl=False, driver_version=None, driver_cuda=None, compute_capabilities=(), arch=arch)


def make_plan(
    matrix: Any,
    target: Any,
    framework: str,
    version: str | None = None,
    cpu: bool = False,
    formats: Iterable[str] = ("all",),
) -> EnvPlan:
    """Solve for ``target`` (NoFit propagates), and for the Dockerfile's Linux container when it differs. When only
    the container has no fit, the Dockerfile is skipped with the reason (or NoFit is raised if it was all that was
    asked for)."""
    from gpudoctor.matrix.solver.solve import NoFit, solve

    formats = expand_formats(formats)
    choice = solve(matrix, target, framework, version, cpu=cpu)
    if choice.accelerator == "jetson":
        return _only_pip(target, choice, formats)
    if choice.accelerator == "rocm" and "docker" in formats:
        return _rocm_plan(matrix, target, choice, formats, framework)
    if "docker" not in formats:
        return EnvPlan(target, choice, formats)
    docker_target = docker_target_for(target)
    try:
        docker_choice = choice if docker_target == target else solve(matrix, docker_target, framework, version, cpu=cpu)
        image = conda = None
        if (docker_choice.conda_packages or docker_choice.variant.endswith("-system")) and _has_live_cuda_image(matrix, docker_choice):
            docker_choice, image = _system_cuda_container(matrix, docker_target, docker_choice, framework, version)
        elif docker_choice.conda_packages or docker_choice.variant.endswith("-system"):
            docker_choice, conda = _conda_container(matrix, docker_choice)
    except NoFit as exc:
        if formats == ("docker",):
            raise
        why = "; ".join(exc.reasons) or str(exc)
        kept = tuple(fmt for fmt in formats if fmt != "docker")
        return EnvPlan(target, choice, kept, docker_target, None, (("docker", f"no build fits a Linux container: {why}"),))
    return EnvPlan(target, choice, formats, docker_target, docker_choice, docker_image=(image or conda).image if image or conda else None,
                   docker_pip_upgrade=image.pip_upgrade if image else None, docker_conda_prefix=conda.prefix if conda else None)


def _has_live_cuda_image(matrix: Any, choice: Any) -> bool:
    return bool(matrix.platforms and choice.cuda and matrix.platforms.live_cuda_image(choice.cuda))


def _conda_container(matrix: Any, choice: Any) -> tuple[Any, Any]:
    """A build whose CUDA has no available nvidia/cuda image: the conda base image, with CUDA and cuDNN from conda-forge
    as environment.yml has them (the driver's libcuda comes in through the NVIDIA Container Toolkit). A build with no
    conda recipe (CUDA 9.0: conda-forge has none) has no source of its CUDA left: NoFit, with why."""
    from gpudoctor.matrix.solver.solve import NoFit

    plat = matrix.platforms
    deleted = plat.cuda_image(choice.cuda) if plat else None
    gone = (f"NVIDIA deleted {deleted.image} from Docker Hub and nvcr.io ({deleted.status_seen}, its container support policy)"
            if deleted else f"gpudoctor knows no nvidia/cuda image with CUDA {choice.cuda} and cuDNN")
    conda = plat.live_conda_image() if plat else None
    if not choice.conda_packages:
        raise NoFit(f"{gone}, and conda-forge has no CUDA {choice.cuda} build: no base image can give {choice.label} its CUDA")
    if conda is None:
        raise NoFit(f"{gone}, and gpudoctor knows no available conda base image (matrices/platforms.toml conda_image)")
    env = tuple((key, value.replace("$CONDA_PREFIX", conda.prefix)) for key, value in choice.env)
    note = (f"{gone}: the container starts from {conda.image} and takes CUDA {choice.cuda} and cuDNN from conda-forge "
            f"({', '.join(choice.conda_packages)}), as environment.yml does, with {'; '.join(f'{k}={v}' for k, v in env)} set in the "
            "image; `docker run --gpus all` brings the driver")
    notes = tuple(n for n in choice.notes if "LD_LIBRARY_PATH" not in n)
    return dataclasses.replace(choice, env=env, notes=(*notes, note)), conda


def _system_cuda_container(matrix: Any, target: Any, choice: Any, framework: str, version: str | None) -> tuple[Any, Any]:
    """A conda-route (or system-route) choice -> the same release on an nvidia/cuda cuDNN runtime image (CUDA and cuDNN from the image,
    Python from its apt archive)."""
    from gpudoctor.matrix.solver.solve import NoFit, solve

    plat = matrix.platforms
    image = plat.cuda_image(choice.cuda) if plat else None
    if image is None:
        raise NoFit(f"gpudoctor knows no nvidia/cuda image with CUDA {choice.cuda} and cuDNN")
    if choice.python not in image.apt_pythons:
        choice = solve(matrix, dataclasses.replace(target, python=image.python), framework, choice.version, cpu=False)
        if choice.python not in image.apt_pythons:
            raise NoFit(f"{choice.label} has no wheel for the Python of {image.image} ({', '.join(image.apt_pythons)})")
    framework_pins = tuple(p for p in choice.packages if not p.startswith("nvidia-"))
    note = (
        f"the container takes CUDA {choice.cuda} and cuDNN {image.cudnn} from its base image {image.image} (CUDA's own loader path) "
        f"and Python {choice.python} from the image's Ubuntu; if Docker Hub no longer serves this end-of-life tag, use nvcr.io/nvidia/cuda with the same tag"
    )
    docker_choice = dataclasses.replace(
        choice, variant=f"cuda-{choice.cuda}-system", packages=framework_pins, conda_packages=(), env=(),
        reasons=tuple(r for r in choice.reasons if "go into the conda environment" not in r),
        notes=tuple(n for n in choice.notes if "LD_LIBRARY_PATH" not in n and not n.startswith("needs from the system")) + (note,),
    )
    return docker_choice, image


def _only_pip(target: Any, choice: Any, formats: tuple[str, ...]) -> EnvPlan:
    """The JetPack route: NVIDIA's wheels go into the board's own Python; jetpack.toml confirms no container tag."""
    from gpudoctor.matrix.solver.solve import NoFit

    why = {
        "conda": "conda-forge's builds are not NVIDIA's JetPack builds: install requirements.txt into a venv of the board's "
                 f"Python {choice.python}",
        "uv": f"the JetPack route is written as requirements.txt only (for the board's Python {choice.python})",
        "docker": f"matrices/jetpack.toml confirms no nvcr.io/nvidia/l4t-pytorch or dustynv image tag for JetPack "
                  f"{choice.variant.removeprefix('jp')}",
    }
    if "pip" not in formats:
        raise NoFit(f"only requirements.txt is written for a Jetson ({why[formats[0]]})", reasons=tuple(why[f] for f in formats),
                    suggestion="use --format pip")
    return EnvPlan(target, choice, ("pip",), skipped=tuple((fmt, why[fmt]) for fmt in formats if fmt != "pip"))


def _rocm_plan(matrix: Any, target: Any, choice: Any, formats: tuple[str, ...], framework: str) -> EnvPlan:
    """The ROCm route's Dockerfile: AMD's rocm/dev-ubuntu-22.04 of the wheels' ROCm release (rocm.toml), with the
    image's own Python; skipped with the reason when no tag is confirmed or the release has no wheel for it."""
    from gpudoctor.matrix.solver.solve import NoFit, solve

    rocm = choice.variant.removeprefix("rocm")
    image = matrix.rocm.image_for(rocm) if matrix.rocm else None
    why = None
    docker_choice = choice
    if image is None:
        why = f"gpudoctor has no confirmed rocm/dev-ubuntu-22.04 image tag for ROCm {rocm} (matrices/rocm.toml)"
    elif choice.python != image.python:
        try:
            docker_choice = solve(matrix, dataclasses.replace(target, python=image.python), framework, choice.version)
        except NoFit as exc:
            why = f"{image.image} has Python {image.python}: {exc}"
    if why is not None:
        if formats == ("docker",):
            raise NoFit(f"no Dockerfile for this machine: {why}")
        return EnvPlan(target, choice, tuple(f for f in formats if f != "docker"), skipped=(("docker", why),))
    return EnvPlan(target, choice, formats, target, docker_choice, docker_image=image.image)
