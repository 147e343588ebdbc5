"""``gpudoctor triage``: read an issue's text, decide (gpudoctor.triage), render the reply, print it, exit with the
outcome's code. A subcommand of its own rather than ``check --reply``: its exit codes say which reply was made, not
whether the machine has errors, and none of check's machine options (--deep, --save, --json) apply to it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from ..model import ExitCode


@click.command("triage")
@click.argument("issue", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path))
@click.option("--only-when-sure", is_flag=True,
              help="Print nothing (exit 5) instead of asking for output when no cause is certain.")
@click.option("--id-file", type=click.Path(dir_okay=False, path_type=Path),
              help="When a cause is named, also write its finding id (one line) to FILE, e.g. for a label.")
def triage(issue: Path, only_when_sure: bool, id_file: Path | None) -> None:
    """Reply to an issue: the cause when the pasted output shows it, else what output to paste.

    ISSUE is the issue's text (its body as Markdown), or '-' for standard input. Prints a Markdown comment.

    \b
    Exit codes:
      0  the reply names a cause (and its lines and fix)
      4  the reply asks for the output that would settle it (no cause named)
      5  --only-when-sure and no cause is certain: nothing printed
      6  nothing to say (no machine output in the text, or nothing wrong in it): nothing printed
      2  bad usage or unreadable input; 3 gpudoctor itself failed"""
    from ..errors import MatrixError, SnapshotError
    from ..input_text import read_input
    from ..render.reply import render_reply
    from ..triage import Outcome
    from ..triage import triage as decide
    from . import fail
    from .check_run import _matrix, echo

    try:
        text, origin = read_input(issue, allow_empty=True)
        try:
            matrix = _matrix()
        except MatrixError as exc:
            fail(f"the compatibility matrix shipped with gpudoctor is broken: {exc}", ExitCode.INTERNAL)
        result = decide([(text, origin)], matrix, only_when_sure) if text.strip() else None
    except SnapshotError as exc:
        fail(str(exc), ExitCode.USAGE)
    if result is None:
        sys.exit(Outcome.NOTHING.value)
    if result.report.crashes:
        fail(f"a check crashed ({result.report.crashes[0].check}): no reply", ExitCode.INTERNAL)
    if id_file is not None and result.outcome is Outcome.CAUSE and re.fullmatch(r"[a-z0-9-]+", result.cause.id):
        try:
            id_file.write_text(result.cause.id + "\n", encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {id_file}: {exc.strerror or exc}", ExitCode.USAGE)
    echo(render_reply(result))
    sys.exit(result.outcome.value)
