"""What ``gpudoctor check`` does once click has read its command line (gpudoctor.cli.check_cmd): probe (or read a
snapshot), judge, render, print, exit."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

import click

from ..model import ExitCode, Report, exit_code

# The click.style arguments of each role a renderer asks for
_ROLE_STYLES = {"ok": {"fg": "green"}, "info": {"fg": "cyan"}, "warning": {"fg": "yellow"}, "error": {"fg": "red"},
                "dim": {"fg": "bright_black"}, "bold": {"bold": True}}


def run_check(*, as_json: bool, markdown: bool, save_path: Path | None, from_paths: tuple[Path, ...], deep: bool,
              ignored: tuple[str, ...], strict: bool, force: bool, verbose: bool) -> NoReturn:
    """The body of `gpudoctor check`; the caller has rejected --json with --markdown and --from with --deep."""
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
    echo(_render(report, as_json, markdown, verbose, strict))
    sys.exit(int(exit_code(report, strict)))


def echo(text: str, err: bool = False) -> None:
    """Write ``text`` as it is (no newline added) to standard output, or standard error."""
    click.echo(text, nl=False, err=err)


def _facts(from_paths: tuple[Path, ...], deep: bool):
    if not from_paths:
        from ..probes import collect

        return collect(deep=deep), "this machine"
    from ..evidence import read_many
    from ..input_text import read_input

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
    from ..escape import text

    echo(f"gpudoctor: snapshot written to {text(path)}\n", err=True)


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

    return render_text(report, verbose, _terminal_style if _colour_wanted() else plain)


def _colour_wanted() -> bool:
    # https://no-color.org: any non-empty NO_COLOR disables colour; otherwise colour only on a terminal.
    return not os.environ.get("NO_COLOR") and sys.stdout.isatty()


def _terminal_style(text: str, role: str) -> str:
    style = _ROLE_STYLES.get(role)
    return click.style(text, **style) if style else text


def _safe(get) -> str:
    try:
        return get()
    except Exception:  # noqa: BLE001 - no user name in a container is not worth failing over
        return ""


def _fail(message: str, code: ExitCode) -> NoReturn:
    from . import fail

    fail(message, code)
