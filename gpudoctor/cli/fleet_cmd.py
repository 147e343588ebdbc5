"""``gpudoctor fleet``: collect one report per node (Slurm's srun, or a directory), aggregate, render, print, exit."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import click

from ..model import ExitCode


@click.command("fleet", context_settings={"ignore_unknown_options": False})
@click.option("--slurm", is_flag=True, help="Run `gpudoctor check --json` on every node through one srun (one task per node).")
@click.option("--from", "from_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Read the nodes' saved reports or snapshots (*.json, one per node, named after it) from DIR.")
@click.option("--golden", type=click.Path(dir_okay=False, path_type=Path),
              help="Judge every node against this reference node's snapshot or report.")
@click.option("--partition", "-p", help="Slurm partition (default: the cluster's default partition).")
@click.option("--nodes", "-N", type=click.IntRange(min=1), help="Let Slurm pick this many nodes (default: every node of the partition).")
@click.option("--nodelist", "-w", help="These nodes, as a Slurm hostlist: node[01-16],gpu7.")
@click.option("--time-limit", "time_limit", type=click.IntRange(min=1, max=86400), default=120, show_default=True,
              help="Seconds each node may take (srun --time); a node past it is listed as not answering.")
@click.option("--gpudoctor", "gpudoctor_cmd", default="gpudoctor", show_default=True,
              help="The command that runs gpudoctor on the nodes, e.g. '/shared/venv/bin/python -m gpudoctor'.")
@click.option("--json", "as_json", is_flag=True, help="Print the fleet report as JSON.")
@click.option("--markdown", is_flag=True, help="Print the fleet report as Markdown.")
@click.option("--html", "as_html", is_flag=True, help="Print a self-contained HTML page (sortable, filterable table).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to FILE instead of printing it.")
@click.option("--force", is_flag=True, help="Let --output overwrite an existing file.")
@click.argument("check_options", nargs=-1, type=click.UNPROCESSED)
def fleet(slurm: bool, from_dir: Path | None, golden: Path | None, partition: str | None, nodes: int | None,
          nodelist: str | None, time_limit: int, gpudoctor_cmd: str, as_json: bool, markdown: bool, as_html: bool,
          output: Path | None, force: bool, check_options: tuple[str, ...]) -> None:
    """Diagnose many machines at once: which nodes differ, and which are broken.

    \b
      gpudoctor fleet --slurm [--partition P] [--nodes N | --nodelist LIST] [-- CHECK OPTIONS]
      gpudoctor fleet --from DIR [--golden SNAPSHOT]

    Exit codes: 0 every node answered without an error finding (and matches --golden), 1 a node has an error
    finding, failed to answer or differs from the golden node, 2 bad usage or unreadable input."""
    if slurm == (from_dir is not None):
        raise click.UsageError("choose where the nodes come from: --slurm or --from DIR")
    if sum((as_json, markdown, as_html)) > 1:
        raise click.UsageError("--json, --markdown and --html are exclusive: choose one output format")
    if nodes is not None and nodelist:
        raise click.UsageError("--nodes and --nodelist are exclusive")
    if from_dir is not None and (partition or nodes or nodelist or check_options):
        raise click.UsageError("--partition, --nodes, --nodelist and check options go with --slurm, not --from")

    from ..errors import GpuDoctorError
    from ..fleet.aggregate import aggregate
    from ..fleet.directory import read_directory, read_golden

    try:
        reference = read_golden(golden) if golden else None
        if slurm:
            collected, source = _from_slurm(partition, nodes, nodelist, time_limit, gpudoctor_cmd, check_options)
        else:
            collected, source = list(read_directory(from_dir)), f"directory {from_dir}"
    except GpuDoctorError as exc:
        _fail(str(exc), ExitCode.USAGE)
    report = aggregate(collected, source, reference)
    text = _render(report, as_json, markdown, as_html)
    if output is not None:
        _write(output, text, force)
    else:
        click.echo(text, nl=False)
    sys.exit(report.exit_code)


def _from_slurm(partition, nodes, nodelist, time_limit, gpudoctor_cmd, check_options):
    from ..fleet.slurm import SlurmRequest, collect
    from ..runner import SubprocessRunner

    try:
        command = tuple(shlex.split(gpudoctor_cmd))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--gpudoctor") from None
    if not command:
        raise click.BadParameter("empty command", param_hint="--gpudoctor")
    request = SlurmRequest(partition, nodes, nodelist, time_limit, command, tuple(check_options))
    runner = SubprocessRunner()
    with _progress() as (on_start, on_node_done):
        collected = collect(request, runner, runner, on_start, on_node_done)
    where = f"slurm partition {partition}" if partition else "slurm"
    return collected, where + (f", nodes {nodelist}" if nodelist else "")


class _progress:
    """A rich progress bar on stderr while nodes answer, only on a terminal (never in a pipe, a log or a test)."""

    def __enter__(self):
        if not sys.stderr.isatty() or os.environ.get("TERM") == "dumb":
            return (None, None)
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(TextColumn("nodes answering"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                             TextColumn("{task.description}"), console=Console(stderr=True), transient=True)
        self._bar.start()
        self._task = self._bar.add_task("", total=None)

        def on_start(total: int) -> None:
            self._bar.update(self._task, total=total or None)

        def on_node_done(name: str) -> None:
            from ..escape import text

            self._bar.update(self._task, advance=1, description=text(name)[:40])

        return (on_start, on_node_done)

    def __exit__(self, *exc):
        if getattr(self, "_bar", None) is not None:
            self._bar.stop()
        return False


def _render(report, as_json: bool, markdown: bool, as_html: bool) -> str:
    if as_json:
        from ..render.fleet_json import render_fleet_json

        return render_fleet_json(report)
    if markdown:
        from ..render.fleet_markdown import render_fleet_markdown

        return render_fleet_markdown(report)
    if as_html:
        from ..render.fleet_html import render_fleet_html

        return render_fleet_html(report)
    from ..render.fleet_text import plain, render_fleet_text
    from .check_run import _colour_wanted, _terminal_style

    return render_fleet_text(report, _terminal_style if _colour_wanted() else plain)


def _write(path: Path, text: str, force: bool) -> None:
    from ..envgen.writer import write_files
    from ..errors import GpuDoctorError
    from ..escape import text as safe

    try:
        write_files(path.parent, {path.name: text}, force=force)
    except GpuDoctorError as exc:
        _fail(str(exc), ExitCode.USAGE)
    click.echo(f"gpudoctor: fleet report written to {safe(path)}", err=True)


def _fail(message: str, code: ExitCode):
    from . import fail

    fail(message, code)
