"""What ``gpudoctor check`` does once its command line is read: probe (or read a snapshot), judge, render, print,
exit. Imports no click, so the quick path (gpudoctor.cli.quick) and the click command (check_cmd) share it; where
click's echo would do more than write and flush, it is click's echo that runs."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import NoReturn

from ..model import ExitCode, Report, exit_code

# What click.style(text, fg=..., bold=...) writes for each role (tests/test_cli_quick.py compares the two)
_ROLE_CODES = {"ok": "\x1b[32m", "info": "\x1b[36m", "warning": "\x1b[33m", "error": "\x1b[31m", "dim": "\x1b[90m",
               "bold": "\x1b[1m"}
_RESET = "\x1b[0m"


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
    """``click.echo(text, nl=False, err=err)``. Writing and flushing is all click does for a text stream with a real
    encoding when there is no colour code to strip (it strips them off a non-terminal); anything else (Windows'
    console, an ASCII-only stream, codes to strip) is left to click itself."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    if _plain_stream(stream) and ("\x1b" not in text or _isatty(stream)):
        if text:
            stream.write(text)
        stream.flush()
        return
    import click

    click.echo(text, nl=False, err=err)


def _plain_stream(stream) -> bool:
    if sys.platform.startswith("win") or not isinstance(stream, io.TextIOBase):
        return False
    encoding, errors = getattr(stream, "encoding", None), getattr(stream, "errors", None)
    if not encoding or errors is None:
        return False
    import codecs

    try:
        return codecs.lookup(encoding).name != "ascii"  # click re-wraps an ASCII stream as UTF-8
    except LookupError:
        return False


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except Exception:  # noqa: BLE001 - as click: a stream that cannot tell is no terminal
        return False


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
    code = _ROLE_CODES.get(role)
    return f"{code}{text}{_RESET}" if code else text


def _safe(get) -> str:
    try:
        return get()
    except Exception:  # noqa: BLE001 - no user name in a container is not worth failing over
        return ""


def _fail(message: str, code: ExitCode) -> NoReturn:
    from . import fail

    fail(message, code)
