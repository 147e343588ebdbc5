"""The command-line interface: the only package that prints or exits.

Subcommands are imported lazily (only the one that runs is loaded), because start-up time is most of what
``gpudoctor check`` costs.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import NoReturn

import click

from gpudoctor import __version__

_COMMANDS = {
    "check": ("gpudoctor.cli.check_cmd", "check", "Diagnose this machine (or a saved snapshot): GPU, driver, CUDA, cuDNN, frameworks."),
    "env": ("gpudoctor.cli.env_cmd", "env", "Write conda/pip/Docker environment files this machine can really run."),
    "verify": ("gpudoctor.cli.verify_cmd", "verify", "Train tiny CNN, LSTM and transfer-learning models to prove the GPU works."),
    "matrix": ("gpudoctor.cli.matrix_cmd", "matrix", "Show and query the compatibility matrix."),
    "bench": ("gpudoctor.cli.bench_cmd", "bench", "Measure the GPU (matmul, memory, PCIe, training step) against its spec."),
    "fleet": ("gpudoctor.cli.fleet_cmd", "fleet", "Diagnose many nodes (Slurm srun, or a directory of reports): failures, findings, drift."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(_COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in _COMMANDS:
            return None
        module_name, attr, _help = _COMMANDS[name]
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            return None  # a command still being built: not offered
        return getattr(module, attr)

    def invoke(self, ctx: click.Context):
        _tolerant_streams()
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit,
                KeyboardInterrupt):
            raise
        except (Exception, RecursionError) as exc:  # noqa: BLE001 - the last net: one line and exit 3, no traceback
            if os.environ.get("GPUDOCTOR_DEBUG"):
                raise
            fail(f"gpudoctor itself failed ({type(exc).__name__}: {exc}); GPUDOCTOR_DEBUG=1 shows the traceback", 3)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Help text from the table, so `gpudoctor --help` imports no subcommand.
        with formatter.section("Commands"):
            formatter.write_dl([(name, help_text) for name, (_m, _a, help_text) in _COMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gpudoctor")
def main() -> None:
    """gpudoctor: find out why CUDA is not available, set up an environment that works, and prove it trains."""


def fail(message: object, code: int = 2) -> NoReturn:
    """The one way a command reports an error: ``gpudoctor: error: ...`` (one sanitised line, capped) on stderr, then
    the exit code (model.ExitCode: 2 usage or unreadable input, 3 gpudoctor itself failed)."""
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
