"""``gpudoctor check``: probe (or read a snapshot), judge, render, print, exit."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

import click

from ..model import ExitCode, Report, exit_code

_ROLE_COLOURS = {"ok": "green", "info": "cyan", "warning": "yellow", "error": "red", "dim": "bright_black", "bold": None}


@click.command("check")
@click.option("--json", "as_json", is_flag=True, help="Print only JSON: the snapshot and the findings, with a schema version.")
@click.option("--markdown", is_flag=True, help="Print a Markdown report to paste into a bug report (UUIDs, host and user names redacted).")
@click.option("--save", "save_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the facts snapshot to FILE.")
@click.option("--from", "from_paths", multiple=True, type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="Diagnose a snapshot or a pasted bug report (collect_env, nvidia-smi, nvcc, pip/conda lists, error lines) "
                   "instead of this machine; '-' reads standard input. Repeat it to merge several (e.g. a paste and a "
                   "hand-written partial snapshot of what the thread says): disagreements are reported.")
@click.option("--deep", is_flag=True, help="Also import each framework in a child process (60 s timeout) and record what it sees.")
@click.option("--ignore", "ignored", multiple=True, metavar="ID", help="Leave out findings with this id (repeatable).")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too, not only on errors.")
@click.option("--force", is_flag=True, help="Let --save overwrite an existing file.")
@click.option("-v", "--verbose", is_flag=True, help="Show the facts behind each section and the detail of every note.")
def check(as_json: bool, markdown: bool, save_path: Path | None, from_paths: tuple[Path, ...], deep: bool,
          ignored: tuple[str, ...], strict: bool, force: bool, verbose: bool) -> None:
    """Diagnose the GPU, NVIDIA driver, CUDA, cuDNN, PyTorch and TensorFlow of this machine.

    Exit codes: 0 no error (warnings allowed unless --strict), 1 at least one error, 2 bad usage or unreadable
    input, 3 gpudoctor itself failed."""
    if as_json and markdown:
        raise click.UsageError("--json and --markdown are exclusive: choose one output format")
    if from_paths and deep:
        raise click.UsageError("--deep probes this machine; it cannot be combined with --from")

    from ..errors import MatrixError, SnapshotError

    try:
        facts, source = _facts(from_paths, deep)
    except SnapshotError as exc:
        _fail(str(exc), ExitCode.USAGE)
    if save_path:
        _save(facts, save_path, force)
    try:
        matrix = _matrix()
    except MatrixError as exc:
        _fail(f"the compatibility matrix shipped with gpudoctor is broken: {exc}", ExitCode.INTERNAL)

    from ..checks import run_checks

    report = run_checks(facts, matrix, source, frozenset(ignored))
    click.echo(_render(report, as_json, markdown, verbose, strict), nl=False)
    sys.exit(int(exit_code(report, strict)))


def _facts(from_paths: tuple[Path, ...], deep: bool):
    if not from_paths:
        from ..probes import collect

        return collect(deep=deep), "this machine"
    from ..evidence import read_many
    from ..evidence.source import read_input

    inputs = [read_input(path) for path in from_paths]
    facts = read_many(inputs)
    kind = "evidence" if facts.provenance is not None else "snapshot"
    return facts, f"{kind} {' + '.join(origin for _, origin in inputs)}"


def _save(facts, path: Path, force: bool) -> None:
    from ..envgen.writer import write_files
    from ..errors import GpuDoctorError
    from ..snapshot import facts_to_json

    try:
        write_files(path.parent, {path.name: facts_to_json(facts)}, force=force)
    except GpuDoctorError as exc:
        _fail(str(exc), ExitCode.USAGE)
    from ..render.escape import text

    click.echo(f"gpudoctor: snapshot written to {text(path)}", err=True)


def _matrix():
    try:
        from ..matrix import load_matrix
    except ImportError:
        return None  # the matrix package is optional for the foundation checks
    return load_matrix()


def _render(report: Report, as_json: bool, markdown: bool, verbose: bool, strict: bool) -> str:
    if as_json:
        from ..render.json_report import render_json

        return render_json(report, strict)
    if markdown:
        import getpass
        import socket

        from ..render.markdown import render_markdown

        return render_markdown(report, private_words=(_safe(getpass.getuser), _safe(socket.gethostname)))
    from ..render.text import plain, render_text

    return render_text(report, verbose, _terminal_style() if _colour_wanted() else plain)


def _colour_wanted() -> bool:
    # https://no-color.org: any non-empty NO_COLOR disables colour; otherwise colour only on a terminal.
    return not os.environ.get("NO_COLOR") and sys.stdout.isatty()


def _terminal_style():
    def style(text: str, role: str) -> str:
        if role == "bold":
            return click.style(text, bold=True)
        colour = _ROLE_COLOURS.get(role)
        return click.style(text, fg=colour) if colour else text

    return style


def _safe(get) -> str:
    try:
        return get()
    except Exception:  # noqa: BLE001 - no user name in a container is not worth failing over
        return ""


def _fail(message: str, code: ExitCode) -> NoReturn:
    from . import fail

    fail(message, code)
