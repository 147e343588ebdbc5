"""The click group: ``gpudoctor`` and its subcommands, imported lazily (only the one that runs is loaded), because
start-up time is most of what ``gpudoctor check`` costs."""

from __future__ import annotations

import importlib

import click

from gpudoctor import __version__

from . import guarded

_COMMANDS = {
    "check": ("gpudoctor.cli.check_cmd", "check", "Diagnose this machine (or a saved snapshot): GPU, driver, CUDA, cuDNN, frameworks."),
    "env": ("gpudoctor.cli.env_cmd", "env", "Write conda/pip/Docker environment files this machine can really run."),
    "verify": ("gpudoctor.cli.verify_cmd", "verify", "Train tiny CNN, LSTM and transfer-learning models to prove the GPU works."),
    "matrix": ("gpudoctor.cli.matrix_cmd", "matrix", "Show and query the compatibility matrix."),
    "bench": ("gpudoctor.cli.bench_cmd", "bench", "Measure the GPU (matmul, memory, PCIe, training step) against its spec."),
    "fleet": ("gpudoctor.cli.fleet_cmd", "fleet", "Diagnose many nodes (Slurm srun, or a directory of reports): failures, findings, drift."),
    "triage": ("gpudoctor.cli.triage_cmd", "triage", "Reply to a bug report: the cause when pasted output shows it, else what to paste."),
}

# click's own ways out (usage errors, --help, ctrl-C): click reports them, the last net in ``guarded`` lets them pass
_CLICK_EXITS = (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort)


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
        return guarded(lambda: super(LazyGroup, self).invoke(ctx), passing=_CLICK_EXITS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Help text from the table, so `gpudoctor --help` imports no subcommand.
        with formatter.section("Commands"):
            formatter.write_dl([(name, help_text) for name, (_m, _a, help_text) in _COMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gpudoctor")
def main() -> None:
    """gpudoctor: find out why CUDA is not available, set up an environment that works, and prove it trains."""
