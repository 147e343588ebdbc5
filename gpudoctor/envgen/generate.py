"""`gpudoctor env` as a library call: EnvRequest -> EnvResult (frozen), or a typed error.

generate() validates the request, builds the Target (probed, a snapshot, or described), plans and renders the files
and writes them atomically. It prints nothing and never exits: the CLI renders the result (envgen.result_format) and maps
the errors to exit codes (UsageError 2, EnvNoFit 1, EnvFailure 3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gpudoctor.errors import GpuDoctorError
from gpudoctor.matrix.tables.framework import Framework

from .describe import (
    DescriptionError,
    check_driver_version,
    check_python_version,
    facts_warnings,
    known_pythons,
    summarize_target,
    target_from_description,
)
from .plan import EnvPlan, make_plan
from .render import FILENAMES, FileSet, check_env_name, default_env_name, next_commands, render_files

@dataclass(frozen=True)
class EnvRequest:
    """What `gpudoctor env` was asked for: framework and version, formats and where to write them, the target."""

    framework: str  # torch | tf (aliases accepted)
    version: str | None = None
    python: str | None = None
    formats: tuple[str, ...] = ("all",)
    output_dir: Path = Path(".")
    name: str | None = None
    force: bool = False
    snapshot: str | None = None  # path of a saved Facts snapshot
    gpus: tuple[str, ...] = ()
    driver: str | None = None
    os: str | None = None  # linux | windows | wsl | darwin
    arch: str | None = None  # x86_64 | aarch64 | arm64
    cpu: bool = False
    jetpack: str | None = None  # a Jetson's JetPack release ("6.2")

    @property
    def described(self) -> bool:
        return bool(self.gpus) or self.driver is not None or self.os is not None or self.arch is not None or self.jetpack is not None


@dataclass(frozen=True)
class EnvResult:
    """What `gpudoctor env` did: the target it solved for, the plan, files written or skipped, and what to run next."""

    request: EnvRequest
    source: str  # "this machine" | "snapshot PATH" | "description"
    target: Any
    summary: str
    plan: EnvPlan
    name: str
    docker_name: str | None
    files: tuple[tuple[str, str], ...]  # (format, path written)
    skipped: tuple[tuple[str, str], ...]  # (format, why it was not written)
    warnings: tuple[str, ...]
    next_steps: tuple[str, ...]


class UsageError(GpuDoctorError):
    """Bad input: an option, a snapshot, an unknown GPU or release, a file that exists (exit 2)."""


class EnvFailure(GpuDoctorError):
    """gpudoctor itself failed: the matrix does not load, the probes broke (exit 3)."""


class EnvNoFit(GpuDoctorError):
    """Nothing fits the machine (exit 1): the solver's reasons and what to change."""

    def __init__(self, framework: str, summary: str, target: Any, reasons: tuple[str, ...], suggestion: str | None, message: str = ""):
        super().__init__(message or f"no {framework} build fits {summary}")
        self.framework = framework
        self.summary = summary
        self.target = target
        self.reasons = tuple(reasons)
        self.suggestion = suggestion


def generate(request: EnvRequest, matrix: Any, probe: Callable[[], Any] | None = None) -> EnvResult:
    """Solve, render and write the files a request asks for. ``probe`` collects this machine's Facts when the request
    describes no machine (the CLI passes gpudoctor.probes.collect: the generator never observes the machine itself)."""
    from gpudoctor.errors import OutputExistsError
    from gpudoctor.matrix.solver.solve import NoFit, UnknownPinnedRelease

    from .writer import OutputError, write_files

    try:
        framework = Framework.parse(request.framework).value
    except ValueError:
        raise UsageError(f"--framework {request.framework!r}: expected torch, tf or jax") from None
    _validate(request, matrix, framework)
    target, gpu_names, source, facts = _target(request, matrix, probe)
    warnings = tuple(facts_warnings(facts, target)) if facts is not None and not request.cpu else ()
    summary = summarize_target(target, gpu_names)
    try:
        plan = make_plan(matrix, target, framework, request.version, cpu=request.cpu, formats=request.formats)
    except UnknownPinnedRelease as exc:
        raise UsageError(f"--framework-version {request.version}: {exc}" + (f"; {exc.suggestion}" if exc.suggestion else "")) from None
    except NoFit as exc:
        raise EnvNoFit(framework, summary, target, exc.reasons or (str(exc),), exc.suggestion, str(exc)) from None
    except (GpuDoctorError, ValueError) as exc:
        raise UsageError(str(exc)) from None

    name = request.name or default_env_name(plan.choice)
    docker_name = request.name or (default_env_name(plan.docker_choice) if plan.docker_choice is not None else None)
    fileset = FileSet(
        choice=plan.choice,
        name=name,
        target_summary=summary,
        docker_choice=plan.docker_choice,
        invocation=invocation(request, framework),
        docker_target_summary=(
            summarize_target(plan.docker_target, gpu_names) if plan.docker_target is not None and plan.docker_target != target else None
        ),
        warnings=warnings,
        docker_image=plan.docker_image,
        docker_pip_upgrade=plan.docker_pip_upgrade,
        docker_conda_prefix=plan.docker_conda_prefix,
        docker_name=docker_name,
    )
    texts = render_files(fileset, plan.formats)
    try:
        written = write_files(request.output_dir, texts, force=request.force)
    except (OutputExistsError, OutputError) as exc:
        raise UsageError(str(exc)) from None
    files = tuple((fmt, str(path)) for fmt, path in zip(plan.formats, written))
    return EnvResult(
        request=request,
        source=source,
        target=target,
        summary=summary,
        plan=plan,
        name=name,
        docker_name=docker_name,
        files=files,
        skipped=plan.skipped,
        warnings=warnings,
        next_steps=_next_steps(plan, files, name, docker_name, request.output_dir),
    )


# ---------------------------------------------------------------------------------------------------------------


def _validate(request: EnvRequest, matrix: Any, framework: str) -> None:
    if request.snapshot and request.described:
        raise UsageError("--for SNAPSHOT and --gpu/--driver/--os/--arch/--jetpack both describe the target machine: give one of them")
    try:
        if request.python is not None:
            check_python_version(request.python, known_pythons(matrix))
        if request.driver is not None:
            check_driver_version(request.driver)
        if request.name is not None:
            check_env_name(request.name)
    except (DescriptionError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if request.version is not None:
        text = request.version.strip()
        if not re.fullmatch(r"\d+(\.\d+){1,2}", text):
            raise UsageError(f"--framework-version {request.version!r}: expected a release such as 2.14.1 or 2.14")
        releases = matrix.torch if framework == "torch" else matrix.tensorflow if framework == "tensorflow" else ()
        series = ".".join(text.split(".")[:2])
        if framework == "jax":
            known_series = tuple(dict.fromkeys(".".join(v.split(".")[:2]) for v in matrix.jax.known())) if matrix.jax else ()
        else:
            known_series = tuple(r.series for r in releases)
        if series not in known_series:
            known = ", ".join(known_series)
            raise UsageError(f"--framework-version {text}: {framework} {series} is not in the compatibility matrix (it knows {known})")


def _target(request: EnvRequest, matrix: Any, probe: Callable[[], Any] | None):
    """(Target, GPU names for the summary, where the description came from, the Facts if there are any)."""
    from gpudoctor.errors import SnapshotError
    from gpudoctor.matrix.solver.solve import target_from_facts

    python = request.python.strip() if request.python is not None else None
    if request.snapshot:
        from gpudoctor.input_text import read_input
        from gpudoctor.snapshot import facts_from_json

        try:  # bounded, as check --from reads: /dev/zero or a FIFO must not fill memory
            text, _ = read_input(Path(request.snapshot))
        except SnapshotError as exc:
            raise UsageError(str(exc)) from None
        try:
            facts = facts_from_json(text, origin=request.snapshot)
            target = target_from_facts(facts, matrix, python=python)
        except GpuDoctorError as exc:
            raise UsageError(str(exc) if isinstance(exc, SnapshotError) else f"{request.snapshot}: {exc}") from None
        return target, _gpu_names(facts), f"snapshot {request.snapshot}", facts
    if request.described:
        try:
            target = target_from_description(matrix, request.gpus, request.driver, (request.os or "linux").lower(), python, request.arch,
                                             request.jetpack)
        except DescriptionError as exc:
            raise UsageError(str(exc)) from None
        return target, list(request.gpus), "description", None
    if probe is None:
        raise UsageError("no machine to write the files for: describe it with --gpu/--driver/--os or --for SNAPSHOT")
    try:
        facts = probe()
    except Exception as exc:  # the probes record their own failures; reaching here means gpudoctor itself broke
        raise EnvFailure(
            f"could not probe this machine ({type(exc).__name__}: {exc}); describe it with --gpu/--driver/--os or --for SNAPSHOT"
        ) from None
    return target_from_facts(facts, matrix, python=python), _gpu_names(facts), "this machine", facts


def _gpu_names(facts: Any) -> list[str]:
    return [(g.name[len("NVIDIA "):] if g.name.startswith("NVIDIA ") else g.name) if g.name else "GPU" for g in facts.gpus or ()]


def _next_steps(plan: EnvPlan, files: tuple[tuple[str, str], ...], name: str, docker_name: str | None, output_dir: Path) -> tuple[str, ...]:
    steps: list[str] = []
    windows = plan.target.os == "windows"
    for fmt, path in files:
        choice = plan.docker_choice if fmt == "docker" and plan.docker_choice is not None else plan.choice
        commands = next_commands(fmt, path, docker_name if fmt == "docker" and docker_name else name, choice, str(output_dir), windows=windows)
        steps.append(" && ".join(commands) if fmt != "uv" else commands[0])
    where = {"mps": "on the Apple GPU (MPS)", "rocm": "on the AMD GPU"}.get(plan.choice.accelerator or "", "on the CPU" if plan.choice.variant == "cpu" else "on the GPU")
    from .render import gpudoctor_requirement

    if gpudoctor_requirement(plan.choice.python):
        verify = "gpudoctor verify --framework jax" if plan.choice.framework == "jax" else "gpudoctor verify"
        steps.append(f"{verify}   (inside the new environment, after installing gpudoctor there: proves that it trains {where})")
    else:
        steps.append(f"python -c \"import {plan.choice.framework}\"   (gpudoctor needs Python >= 3.10 and cannot run in this Python {plan.choice.python} environment)")
    return tuple(steps)


def invocation(request: EnvRequest, framework: str) -> str:
    import os
    import shlex

    argv = ["gpudoctor", "env", "--framework", Framework.parse(framework).short]
    for flag, value in (("--framework-version", request.version), ("--python", request.python)):
        if value:
            argv += [flag, value]
    if request.snapshot:
        argv += ["--for", os.path.basename(request.snapshot)]
    for gpu in request.gpus:
        argv += ["--gpu", gpu]
    for flag, value in (("--driver", request.driver), ("--os", request.os), ("--arch", request.arch), ("--jetpack", request.jetpack)):
        if value:
            argv += [flag, value]
    if request.cpu:
        argv.append("--cpu")
    if request.name:
        argv += ["--name", request.name]
    return shlex.join(argv)


__all__ = ["EnvRequest", "EnvResult", "EnvNoFit", "UsageError", "EnvFailure", "generate", "FILENAMES"]
