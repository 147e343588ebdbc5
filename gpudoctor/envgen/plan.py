"""Which files to write and which solver Choice each one installs.

The conda, pip and uv files install on the target machine itself. The Dockerfile builds a *Linux* container, so for
a native-Windows or macOS target it gets its own Choice, solved for Linux with the same GPUs and driver (Docker
Desktop runs Linux containers in WSL2, where the Windows driver serves the GPU).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable

from .render import FORMATS


@dataclass(frozen=True)
class Plan:
    target: Any
    choice: Any
    formats: tuple[str, ...]
    docker_target: Any = None
    docker_choice: Any = None
    skipped: tuple[tuple[str, str], ...] = ()  # (format, why it was not written)


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
    # macOS: Docker Desktop's Linux VM has no NVIDIA GPU
    return dataclasses.replace(target, os="linux", wsl=False, driver_version=None, driver_cuda=None, compute_capabilities=())


def make_plan(
    matrix: Any,
    target: Any,
    framework: str,
    version: str | None = None,
    cpu: bool = False,
    formats: Iterable[str] = ("all",),
) -> Plan:
    """Solve for ``target`` (NoFit propagates), and for the Dockerfile's Linux container when it differs. When only
    the container has no fit, the Dockerfile is skipped with the reason (or NoFit is raised if it was all that was
    asked for)."""
    from gpudoctor.matrix.solver import NoFit, solve

    formats = expand_formats(formats)
    choice = solve(matrix, target, framework, version, cpu=cpu)
    if "docker" not in formats:
        return Plan(target, choice, formats)
    docker_target = docker_target_for(target)
    if docker_target == target:
        return Plan(target, choice, formats, docker_target, choice)
    try:
        docker_choice = solve(matrix, docker_target, framework, version, cpu=cpu)
    except NoFit as exc:
        if formats == ("docker",):
            raise
        why = "; ".join(exc.reasons) or str(exc)
        kept = tuple(fmt for fmt in formats if fmt != "docker")
        return Plan(target, choice, kept, docker_target, None, (("docker", f"no build fits a Linux container: {why}"),))
    return Plan(target, choice, formats, docker_target, docker_choice)
