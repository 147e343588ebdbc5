"""``gpudoctor check`` with flags only (``--json``, ``--strict``, ``-v``...), served without importing click.

click's import costs more than a fifth of a check run. For a command line made only of check's flags, click would
do nothing but set those flags and call the command, so this reads them directly and runs the same code
(gpudoctor.cli.check_run) under the same last net (gpudoctor.cli.guarded). Any other command line (another command,
an option with a value, --help, an unknown or abbreviated flag, --json with --markdown, a shell-completion request)
returns untouched and click handles it, with its own help, suggestions and error messages.
tests/test_cli_quick.py runs both paths on the same command lines and compares what they print and exit with.
"""

from __future__ import annotations

import os
import sys
from typing import Mapping, Sequence

# check's flags (gpudoctor.cli.check_cmd) -> run_check's parameters
FLAGS = {"--json": "as_json", "--markdown": "markdown", "--deep": "deep", "--strict": "strict", "--force": "force",
         "-v": "verbose", "--verbose": "verbose"}


def quick_flags(args: Sequence[str], environ: Mapping[str, str]) -> dict[str, bool] | None:
    """run_check's flag arguments for ``args``, or None when click must read this command line."""
    if not args or args[0] != "check":
        return None
    chosen = set()
    for arg in args[1:]:
        name = FLAGS.get(arg)
        if name is None:
            return None
        chosen.add(name)
    if "as_json" in chosen and "markdown" in chosen:  # click's usage error says why
        return None
    if any(key.startswith("_") and key.endswith("_COMPLETE") for key in environ):  # click's shell completion
        return None
    return {name: name in chosen for name in FLAGS.values()}


def run_quick_check(args: Sequence[str]) -> None:
    """Run `gpudoctor check` and exit, or return at once when ``args`` are not for this path."""
    flags = quick_flags(args, os.environ)
    if flags is None:
        return
    from . import guarded
    from .check_run import run_check

    try:
        guarded(lambda: run_check(save_path=None, from_paths=(), ignored=(), **flags))
    except KeyboardInterrupt:  # as click's main: close the ^C line, say so, exit 1
        import click
        from gettext import gettext

        click.echo(file=sys.stderr)
        click.echo(gettext("Aborted!"), file=sys.stderr)
        sys.exit(1)
    sys.exit(0)  # run_check always exits; click's would be 0 too
