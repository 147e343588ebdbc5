"""The command-line interface: the only package that prints or exits.

``main`` is the click group (gpudoctor.cli.group; subcommands load lazily). ``run`` is the console script: it serves
the everyday ``gpudoctor check [flags]`` without importing click (gpudoctor.cli.quick; click's import is a fifth of
such a run) and hands every other command line to ``main``. This module itself imports nothing heavy.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, NoReturn, TypeVar

T = TypeVar("T")

# The subcommands (gpudoctor.cli.group loads them); each keeps its own table of compiled dataclass methods
COMMAND_NAMES = ("check", "env", "verify", "matrix", "bench", "fleet", "triage")


def __getattr__(name: str):
    if name in ("main", "LazyGroup"):  # the click group, built on first use: `from gpudoctor.cli import main`
        from . import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run() -> None:
    """The `gpudoctor` console script and `python -m gpudoctor`. The compiled dataclass methods of earlier runs are
    reused (gpudoctor.dataclass_code: creating the classes was the largest cost of a check). A flags-only `check`
    is served without click and run as a short-lived process (gpudoctor.cli.quick)."""
    from .quick import quick_flags, short_lived_process

    quick = quick_flags(sys.argv[1:], os.environ) is not None
    if quick:
        short_lived_process()
    from ..dataclass_code import import_dataclasses_without_inspect, install

    import_dataclasses_without_inspect()
    from ..cachefiles import cache_dir

    command = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] in COMMAND_NAMES else "other"
    install(cache_dir(), command)
    if quick:
        from .quick import end_process, run_quick_check

        try:
            run_quick_check(sys.argv[1:])
        except SystemExit as done:
            end_process(done.code)  # returns only where it cannot end the process as the interpreter would
            raise
    from .group import main

    main()


def guarded(call: Callable[[], T], passing: tuple[type[BaseException], ...] = ()) -> T:
    """Run a command under the last net: streams that replace what they cannot encode, and any exception that is not
    an exit (nor one of ``passing``: click's own) becomes one error line and exit 3, never a traceback."""
    _tolerant_streams()
    try:
        return call()
    except passing:
        raise
    except (SystemExit, KeyboardInterrupt):
        raise
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - the last net: one line and exit 3, no traceback
        if os.environ.get("GPUDOCTOR_DEBUG"):
            raise
        fail(f"gpudoctor itself failed ({type(exc).__name__}: {exc}); GPUDOCTOR_DEBUG=1 shows the traceback", 3)


def fail(message: object, code: int = 2) -> NoReturn:
    """The one way a command reports an error: ``gpudoctor: error: ...`` (one sanitised line, capped) on stderr, then
    the exit code (model.ExitCode: 2 usage or unreadable input, 3 gpudoctor itself failed)."""
    import click  # an error path: click's echo (its encoding fixes) is worth its import here

    from ..errors import error_line

    click.echo(error_line(message), err=True)
    sys.exit(int(code))


def _tolerant_streams() -> None:
    """A terminal or pipe that cannot encode a character (a latin-1 locale, a GPU name with a lone surrogate) must
    show a replacement, not end the run with UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):  # a closed or detached stream
                pass
