"""`gpudoctor env`: write environment files (conda, pip, Docker, uv) for the newest framework build a machine can run.

Parse, call gpudoctor.envgen.generate, render (gpudoctor.envgen.result_format), exit. Exit codes: 0 files written; 1 nothing
fits (the reasons and what to change are printed); 2 usage error (bad option, unreadable snapshot, unknown GPU or
release, a file that exists without --force); 3 gpudoctor itself failed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gpudoctor.matrix.tables.framework import Framework
from gpudoctor.model import ExitCode


@click.command("env")
@click.option("--framework", "-f", "framework", required=True, type=click.Choice(Framework.all_aliases(), case_sensitive=False), help="The framework to install: torch or tf.")
@click.option("--framework-version", metavar="X", help="Pin this release (fails with the reason if the machine cannot run it).")
@click.option("--python", "python_version", metavar="3.X", help="The Python version of the environment (default: the newest that fits).")
@click.option(
    "--format", "formats", multiple=True, default=("all",), show_default=True,
    type=click.Choice(["conda", "pip", "docker", "uv", "all"], case_sensitive=False),
    help="Which files to write (repeatable): conda=environment.yml, pip=requirements.txt, docker=Dockerfile, uv=pyproject-uv.toml.",
)
@click.option("-o", "--output-dir", "output_dir", default=".", show_default=True, metavar="DIR", help="Where to write the files.")
@click.option("--name", metavar="NAME", help="Environment / image name (default: e.g. torch-2.14.1-cu126).")
@click.option("--force", is_flag=True, help="Overwrite files that already exist.")
@click.option("--for", "snapshot", metavar="SNAPSHOT", help="Solve for the machine in a saved snapshot (gpudoctor check --save).")
@click.option("--gpu", "gpus", multiple=True, metavar="NAME", help='Describe a machine: its GPU ("RTX 4090", or a compute capability such as 8.9); repeat for several.')
@click.option("--driver", metavar="VERSION", help="Describe a machine: its NVIDIA driver version (550.54.15) or branch (550).")
@click.option("--os", "os_name", type=click.Choice(["linux", "windows", "wsl", "darwin"], case_sensitive=False), help="Describe a machine: its OS (default linux).")
@click.option("--arch", type=click.Choice(["x86_64", "aarch64", "arm64"], case_sensitive=False), help="Describe a machine: its CPU (default x86_64; arm64 on macOS; aarch64 for Jetson and Grace GPUs).")
@click.option("--jetpack", metavar="X.Y", help="Describe a Jetson: its JetPack release (6.2; `gpudoctor matrix jetpack r36.4.3` maps an L4T release).")
@click.option("--cpu", is_flag=True, help="A CPU-only build even where a GPU is present.")
@click.option("--json", "as_json", is_flag=True, help="Print only JSON (the choice and the files written).")
@click.option("-v", "--verbose", is_flag=True, help="List every release that was skipped, and why.")
def env(framework, framework_version, python_version, formats, output_dir, name, force, snapshot, gpus, driver, os_name, arch, jetpack, cpu, as_json, verbose) -> None:
    """Write environment files that install, first time, a framework build this machine's GPU can run.

    \b
    Examples:
      gpudoctor env --framework torch
      gpudoctor env --framework tf --for snapshot.json -o envs/
      gpudoctor env --framework torch --gpu "Tesla V100" --driver 535.104.05 --format pip
      gpudoctor env --framework torch --gpu "Radeon RX 7900 XTX"
      gpudoctor env --framework torch --gpu "Jetson AGX Orin" --jetpack 6.2
    """
    from gpudoctor.envgen import result_format as report
    from gpudoctor.envgen.generate import EnvFailure, EnvNoFit, EnvRequest, UsageError, generate
    from gpudoctor.errors import MatrixError
    from gpudoctor.matrix import load_matrix

    request = EnvRequest(
        framework=framework, version=framework_version, python=python_version, formats=tuple(f.lower() for f in formats),
        output_dir=Path(output_dir), name=name, force=force, snapshot=snapshot, gpus=tuple(gpus), driver=driver,
        os=os_name.lower() if os_name else None, arch=arch.lower() if arch else None, cpu=cpu, jetpack=jetpack,
    )
    try:
        result = generate(request, load_matrix(), probe=_probe_this_machine)
    except EnvNoFit as exc:
        click.echo(report.no_fit_json(exc) if as_json else report.no_fit_text(exc, verbose), nl=as_json)
        sys.exit(int(ExitCode.PROBLEMS))
    except UsageError as exc:
        _fail(str(exc), ExitCode.USAGE, as_json, report)
    except (EnvFailure, MatrixError) as exc:
        _fail(f"the compatibility matrix does not load: {exc}" if isinstance(exc, MatrixError) else str(exc), ExitCode.INTERNAL, as_json, report)
    click.echo(report.to_json(result) if as_json else report.to_text(result, verbose), nl=as_json)


def _fail(message: str, code: ExitCode, as_json: bool, report) -> None:
    from . import fail
    from ..errors import error_line

    if as_json:  # stdout stays JSON; the same one line goes to stderr
        click.echo(report.error_json(error_line(message).removeprefix("gpudoctor: error: ")))
    fail(message, code)


def _probe_this_machine():
    from ..probes import collect

    return collect()
