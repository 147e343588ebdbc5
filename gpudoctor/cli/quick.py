"""``gpudoctor check`` with flags only (``--json``, ``--strict``, ``-v``...), served without importing click.

click's import costs more than a fifth of a check run. For a command line made only of check's flags, click would
do nothing but set those flags and call the command, so this reads them directly and runs the same code
(gpudoctor.cli.check_run) under the same last net (gpudoctor.cli.guarded). Any other command line (another command,
an option with a value, --help, an unknown or abbreviated flag, --json with --markdown, a shell-completion request)
returns untouched and click handles it, with its own help, suggestions and error messages.
tests/test_cli_quick.py runs both paths on the same command lines and compares what they print and exit with.

Such a run is also a short-lived process (``short_lived_process``, ``end_process``): it lives ~80 ms, allocates a
few MB once and holds nothing that needs tearing down, so it runs without the cyclic garbage collector and ends
without the interpreter's teardown, together ~12 ms of a run (benchmarks/bench_check.py; README "Speed").
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


def short_lived_process() -> None:
    """No cyclic garbage collection for this run: its passes over the ~100,000 objects of the imported modules and
    the matrix cost ~5 ms, and what they could free (a few reference cycles) goes with the process moments later."""
    import gc

    gc.disable()


def end_process(code: object) -> None:
    """End the process now, as the interpreter would but without its teardown (freeing every module and object one
    by one, ~8 ms, where the system frees them at once): run the atexit handlers, flush the standard streams (a
    failed flush is exit status 120, CPython's own rule), then ``os._exit``. Returns, leaving the exit to the
    interpreter, where it cannot do the same: an exit code that is not a number, or no atexit hook to call."""
    import atexit

    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)  # what Py_Finalize itself calls first
    if run_exit_handlers is None or not (code is None or isinstance(code, int)):
        return
    run_exit_handlers()
    status = code or 0
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe (`gpudoctor check | head -1`) or a closed stream
            status = 120
    os._exit(status)
