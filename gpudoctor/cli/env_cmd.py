"""`gpudoctor env`: write environment files (conda, pip, Docker, uv) for the newest framework build a machine can run.

The machine is this one (probed), a saved snapshot (--for FILE) or a description (--gpu/--driver/--os). The solver
(gpudoctor.matrix.solver) chooses; gpudoctor.envgen renders and writes. This module only wires, prints and exits.

Exit codes: 0 files written; 1 nothing fits (the reasons and what to change are printed); 2 usage error (bad
option, unreadable snapshot, unknown GPU, a file that exists without --force); 3 gpudoctor itself failed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from gpudoctor.errors import GpuDoctorError
from gpudoctor.model import ExitCode

JSON_SCHEMA = "gpudoctor.env/1"
_FRAMEWORKS = {"torch": "torch", "pytorch": "torch", "tf": "tensorflow", "tensorflow": "tensorflow"}


class _Exit(Exception):
    def __init__(self, code: int, message: str, payload: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.payload = payload


@click.command("env")
@click.option(
    "--framework", "-f", "framework", required=True, type=click.Choice(sorted(_FRAMEWORKS), case_sensitive=False),
    help="The framework to install: torch or tf.",
)
@click.option("--framework-version", metavar="X", help="Pin this release (fails with the reason if the machine cannot run it).")
@click.option("--python", "python_version", metavar="3.X", help="The Python version of the environment (default: the newest that fits).")
@click.option(
    "--format", "formats", multiple=True, default=("all",), show_default=True,
    type=click.Choice(["conda", "pip", "docker", "uv", "all"], case_sensitive=False),
    help="Which files to write (repeatable): conda=environment.yml, pip=requirements.txt, docker=Dockerfile, "
    "uv=pyproject-uv.toml.",
)
@click.option("-o", "--output-dir", "output_dir", default=".", show_default=True, metavar="DIR", help="Where to write the files.")
@click.option("--name", metavar="NAME", help="Environment / image name (default: e.g. torch-2.14.1-cu126).")
@click.option("--force", is_flag=True, help="Overwrite files that already exist.")
@click.option("--for", "snapshot", metavar="SNAPSHOT", help="Solve for the machine in a saved snapshot (gpudoctor check --save).")
@click.option("--gpu", "gpus", multiple=True, metavar="NAME", help='Describe a machine: its GPU ("RTX 4090", or a compute capability such as 8.9); repeat for several.')
@click.option("--driver", metavar="VERSION", help="Describe a machine: its NVIDIA driver version (e.g. 550.54.15).")
@click.option("--os", "os_name", type=click.Choice(["linux", "windows", "wsl", "darwin"], case_sensitive=False), help="Describe a machine: its OS (default linux).")
@click.option("--cpu", is_flag=True, help="A CPU-only build even where a GPU is present.")
@click.option("--json", "as_json", is_flag=True, help="Print only JSON (the choice and the files written).")
def env(
    framework: str,
    framework_version: str | None,
    python_version: str | None,
    formats: tuple[str, ...],
    output_dir: str,
    name: str | None,
    force: bool,
    snapshot: str | None,
    gpus: tuple[str, ...],
    driver: str | None,
    os_name: str | None,
    cpu: bool,
    as_json: bool,
) -> None:
    """Write environment files that install, first time, a framework build this machine's GPU can run.

    \b
    Examples:
      gpudoctor env --framework torch
      gpudoctor env --framework tf --for snapshot.json -o envs/
      gpudoctor env --framework torch --gpu "Tesla V100" --driver 535.104.05 --format pip
    """
    try:
        result = _run(
            framework=_FRAMEWORKS[framework.lower()],
            version=framework_version,
            python=python_version,
            formats=tuple(f.lower() for f in formats),
            output_dir=Path(output_dir),
            name=name,
            force=force,
            snapshot=snapshot,
            gpus=gpus,
            driver=driver,
            os_name=os_name.lower() if os_name else None,
            cpu=cpu,
        )
    except _Exit as exc:
        _finish_error(exc, as_json)
    if as_json:
        click.echo(json.dumps(result["json"], indent=2))
    else:
        click.echo(result["text"], nl=False)


# ---------------------------------------------------------------------------------------------------------------


def _run(
    *,
    framework: str,
    version: str | None,
    python: str | None,
    formats: tuple[str, ...],
    output_dir: Path,
    name: str | None,
    force: bool,
    snapshot: str | None,
    gpus: tuple[str, ...],
    driver: str | None,
    os_name: str | None,
    cpu: bool,
) -> dict[str, Any]:
    from gpudoctor.envgen.describe import DescriptionError, check_python_version, facts_warnings, summarize_target
    from gpudoctor.envgen.plan import make_plan
    from gpudoctor.envgen.render import FILENAMES, FileSet, check_env_name, default_env_name, render_files
    from gpudoctor.envgen.writer import OutputError, write_files
    from gpudoctor.errors import MatrixError, OutputExistsError

    described = bool(gpus or driver or os_name)
    if snapshot and described:
        raise _Exit(ExitCode.USAGE, "--for SNAPSHOT and --gpu/--driver/--os both describe the target machine: give one of them")
    try:
        if python:
            python = check_python_version(python)
        if name:
            check_env_name(name)
        if version is not None:
            _check_release(version)
    except (DescriptionError, ValueError) as exc:
        raise _Exit(ExitCode.USAGE, str(exc)) from None

    try:
        from gpudoctor.matrix import load_matrix

        matrix = load_matrix()
    except MatrixError as exc:
        raise _Exit(ExitCode.INTERNAL, f"the compatibility matrix does not load: {exc}") from None

    target, gpu_names, source, facts = _target(matrix, snapshot, gpus, driver, os_name, python)
    warnings = tuple(facts_warnings(facts, target)) if facts is not None and not cpu else ()
    summary = summarize_target(target, gpu_names)

    from gpudoctor.matrix.solver import NoFit

    try:
        plan = make_plan(matrix, target, framework, version, cpu=cpu, formats=formats)
    except NoFit as exc:
        raise _Exit(ExitCode.PROBLEMS, _no_fit_text(exc, framework, summary), _no_fit_json(exc, framework, target, summary)) from None
    except GpuDoctorError as exc:
        raise _Exit(ExitCode.USAGE, str(exc)) from None

    choice = plan.choice
    env_name = name or default_env_name(choice)
    fileset = FileSet(
        choice=choice,
        name=env_name,
        target_summary=summary,
        docker_choice=plan.docker_choice,
        invocation=_invocation(framework, version, python, snapshot, gpus, driver, os_name, cpu, name),
        docker_target_summary=(
            summarize_target(plan.docker_target, gpu_names)
            if plan.docker_target is not None and plan.docker_target != target
            else None
        ),
        warnings=warnings,
    )
    files = render_files(fileset, plan.formats)
    try:
        written = write_files(output_dir, files, force=force)
    except (OutputExistsError, OutputError) as exc:
        raise _Exit(ExitCode.USAGE, str(exc)) from None

    paths = {fmt: str(path) for fmt, path in zip(plan.formats, written)}
    next_steps = _next_steps(plan, paths, env_name, output_dir)
    return {
        "json": {
            "schema": JSON_SCHEMA,
            "ok": True,
            "source": source,
            "target": {**_plain(target), "summary": summary},
            "choice": _plain(choice),
            "docker_choice": _plain(plan.docker_choice) if plan.docker_choice not in (None, choice) else None,
            "name": env_name,
            "files": [{"format": fmt, "path": path} for fmt, path in paths.items()],
            "skipped": [{"format": fmt, "reason": why} for fmt, why in plan.skipped],
            "warnings": list(warnings),
            "next": next_steps,
        },
        "text": _report(plan, summary, source, paths, next_steps, FILENAMES, warnings),
    }


def _target(matrix: Any, snapshot: str | None, gpus: tuple[str, ...], driver: str | None, os_name: str | None, python: str | None):
    """(Target, GPU names for the summary, where the description came from, the Facts if there are any)."""
    from gpudoctor.envgen.describe import DescriptionError, target_from_description
    from gpudoctor.errors import SnapshotError
    from gpudoctor.matrix.solver import target_from_facts

    if snapshot:
        from gpudoctor.snapshot import facts_from_json

        try:
            text = Path(snapshot).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise _Exit(ExitCode.USAGE, f"cannot read snapshot {snapshot}: {getattr(exc, 'strerror', None) or exc}") from None
        try:
            facts = facts_from_json(text, origin=snapshot)
            target = target_from_facts(facts, python=python)
        except (SnapshotError, DescriptionError) as exc:
            raise _Exit(ExitCode.USAGE, str(exc)) from None
        except GpuDoctorError as exc:
            raise _Exit(ExitCode.USAGE, f"{snapshot}: {exc}") from None
        return target, _gpu_names(facts), f"snapshot {snapshot}", facts

    if gpus or driver or os_name:
        try:
            target = target_from_description(matrix, gpus, driver, os_name or "linux", python)
        except DescriptionError as exc:
            raise _Exit(ExitCode.USAGE, str(exc)) from None
        return target, list(gpus), "description", None

    try:
        from gpudoctor.probes import collect

        facts = collect()
    except Exception as exc:  # the probes record their own failures; reaching here means gpudoctor itself broke
        raise _Exit(
            ExitCode.INTERNAL, f"could not probe this machine ({type(exc).__name__}: {exc}); describe it with --gpu/--driver/--os or --for SNAPSHOT"
        ) from None
    try:
        target = target_from_facts(facts, python=python)
    except GpuDoctorError as exc:
        raise _Exit(ExitCode.USAGE, str(exc)) from None
    return target, _gpu_names(facts), "this machine", facts


def _check_release(version: str) -> None:
    import re

    if not re.fullmatch(r"\d+(\.\d+){1,2}", version.strip()):
        raise ValueError(f"--framework-version {version!r}: expected a release such as 2.14.1 or 2.14")


def _gpu_names(facts: Any) -> list[str]:
    gpus = facts.gpus or ()
    return [_short_gpu_name(g.name) if g.name else "GPU" for g in gpus]


def _short_gpu_name(name: str) -> str:
    return name[len("NVIDIA "):] if name.startswith("NVIDIA ") else name


# ---------------------------------------------------------------------------------------------------------------
# Output


def _report(
    plan: Any, summary: str, source: str, paths: dict[str, str], next_steps: list[str], filenames: dict[str, str], warnings=()
) -> str:
    from gpudoctor.envgen.render import build_label

    choice = plan.choice
    lines = [f"Target ({source}): {summary}"]
    lines += [f"Warning: {warning}" for warning in warnings]
    lines.append(f"Chosen: {build_label(choice)}, Python {choice.python}")
    if choice.index_url:
        lines.append(f"  wheel index: {choice.index_url}")
    if choice.conda_packages:
        lines.append(f"  from conda-forge: {', '.join(choice.conda_packages)}")
    if choice.variant == "cpu":
        lines.append("  This is a CPU-only build: it will not use a GPU.")
    lines += [f"  - {reason}" for reason in choice.reasons]
    if choice.notes:
        lines.append("Notes:")
        lines += [f"  - {note}" for note in choice.notes]
    if plan.docker_choice is not None and plan.docker_choice != choice and "docker" in paths:
        docker = plan.docker_choice
        lines.append(f"Dockerfile (a Linux container): {build_label(docker)}, Python {docker.python}")
        lines += [f"  - {reason}" for reason in docker.reasons]
    for fmt, why in plan.skipped:
        lines.append(f"Not written: {filenames[fmt]} ({why})")
    lines.append("Wrote:")
    lines += [f"  {path}" for path in paths.values()]
    lines.append("Next:")
    lines += [f"  {step}" for step in next_steps]
    return "\n".join(lines) + "\n"


def _next_steps(plan: Any, paths: dict[str, str], name: str, output_dir: Path) -> list[str]:
    from gpudoctor.envgen.render import next_commands

    steps: list[str] = []
    for fmt, path in paths.items():
        choice = plan.docker_choice if fmt == "docker" and plan.docker_choice is not None else plan.choice
        commands = next_commands(fmt, path, name, choice, str(output_dir))
        if fmt == "pip" and plan.target.os == "windows":
            commands = [f"py -{choice.python} -m venv .venv && .venv\\Scripts\\activate", commands[-1]]
        steps.append(" && ".join(commands) if fmt != "uv" else commands[0])
    where = "on the CPU" if plan.choice.variant == "cpu" else "on the GPU"
    steps.append(f"gpudoctor verify   (inside the new environment: proves that it trains {where})")
    return steps


def _no_fit_text(exc: Any, framework: str, summary: str) -> str:
    lines = [f"No {framework} build fits {summary}:"]
    lines += [f"  - {reason}" for reason in (exc.reasons or (str(exc),))]
    if exc.suggestion:
        lines.append(f"What to change: {exc.suggestion}")
    return "\n".join(lines)


def _no_fit_json(exc: Any, framework: str, target: Any, summary: str) -> dict[str, Any]:
    return {
        "schema": JSON_SCHEMA,
        "ok": False,
        "framework": framework,
        "target": {**_plain(target), "summary": summary},
        "reasons": list(exc.reasons or (str(exc),)),
        "suggestion": exc.suggestion,
        "files": [],
    }


def _invocation(framework, version, python, snapshot, gpus, driver, os_name, cpu, name) -> str:
    argv = ["gpudoctor", "env", "--framework", "tf" if framework == "tensorflow" else framework]
    if version:
        argv += ["--framework-version", version]
    if python:
        argv += ["--python", python]
    if snapshot:
        argv += ["--for", os.path.basename(snapshot)]
    for gpu in gpus:
        argv += ["--gpu", gpu]
    if driver:
        argv += ["--driver", driver]
    if os_name:
        argv += ["--os", os_name]
    if cpu:
        argv.append("--cpu")
    if name:
        argv += ["--name", name]
    return shlex.join(argv)


def _plain(value: Any) -> Any:
    if value is None:
        return None
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _finish_error(exc: _Exit, as_json: bool) -> NoReturn:
    from ..errors import error_line
    from . import fail

    if as_json:
        payload = exc.payload or {"schema": JSON_SCHEMA, "ok": False, "error": exc.message, "files": []}
        click.echo(json.dumps(payload, indent=2))
        if exc.code != ExitCode.PROBLEMS:
            click.echo(error_line(exc.message), err=True)
    elif exc.code == ExitCode.PROBLEMS:
        click.echo(exc.message)
    else:
        fail(exc.message, exc.code)
    sys.exit(int(exc.code))
