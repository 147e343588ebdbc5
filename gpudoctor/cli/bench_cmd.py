"""``gpudoctor bench``: parse the options, run the measurements (gpudoctor.bench) or read two saved results
(--compare), render (text, --json, --html), write files atomically (--save, --html; never over a file without
--force), exit: 0 no error finding, 1 a measurement failed, 2 usage or unreadable input, 3 gpudoctor failed."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click

from gpudoctor.model import ExitCode

DEVICE = re.compile(r"^(auto|cpu|cuda|cuda:[0-9]{1,4}|[0-9]{1,4})$")


def _device(ctx: click.Context, param: click.Parameter, value: str) -> str:
    value = value.strip().lower()
    if not DEVICE.match(value):
        raise click.BadParameter(f"{value!r}: use auto, cpu, N, cuda or cuda:N (N a device index, 0 to 9999)")
    return "cuda:0" if value == "cuda" else f"cuda:{value}" if value.isdigit() else value


def _fail(message: str, code: ExitCode = ExitCode.USAGE):
    from gpudoctor.cli import fail

    fail(message, code)


def _write(path: str, text: str, force: bool) -> None:
    from gpudoctor.envgen.writer import write_files
    from gpudoctor.errors import GpuDoctorError

    target = Path(path)
    try:
        write_files(target.parent if str(target.parent) else Path("."), {target.name: text}, force=force)
    except GpuDoctorError as exc:
        _fail(str(exc))


def _read_saved(path: str):
    from gpudoctor.bench.model import BenchFileError, read_saved

    try:
        report = read_saved(path)
    except BenchFileError as exc:
        _fail(str(exc))
    if not report.devices:
        _fail(f"{path}: no device was measured in it: nothing to compare")
    return report


@click.command("bench")
@click.option("--quick", is_flag=True, help="Fewer measurements and smaller sizes, each stopped once its runs agree (aims at 10 s on a GPU).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--html", "html_file", metavar="FILE", help="Also write a self-contained HTML page with the bars.")
@click.option("--save", "save_file", metavar="FILE", help="Also save the result as JSON (for --compare).")
@click.option("--compare", nargs=2, metavar="A.json B.json", help="Set two saved results side by side (measures nothing).")
@click.option("--device", default="auto", show_default=True, callback=_device,
              help="auto (every visible GPU in turn, then the all-reduce across them; else the CPU), cpu, N (= cuda:N), "
                   "cuda or cuda:N.")
@click.option("--nproc", type=click.IntRange(min=2, max=64), default=None,
              help="Also measure the all-reduce bus bandwidth with N gloo processes on the CPU.")
@click.option("--no-nvidia-tools", "no_tools", is_flag=True,
              help="Do not run dcgmi diag, all_reduce_perf or nvbandwidth even where they are installed.")
@click.option("--timeout", type=click.FloatRange(1, 3600), default=None, help="Seconds before the child is killed.")
@click.option("--force", is_flag=True, help="Overwrite --save / --html files that exist.")
@click.option("-v", "--verbose", is_flag=True, help="Also list the measurements that do not apply here.")
def bench(quick: bool, as_json: bool, html_file: str | None, save_file: str | None, compare: tuple[str, str] | None,
          device: str, nproc: int | None, no_tools: bool, timeout: float | None, force: bool, verbose: bool,
          ) -> None:  # fmt: skip
    """Measure this GPU (matmul per precision, memory and PCIe bandwidth, CNN training step vs the CPU, largest
    batch) and judge each figure against the GPU's data-sheet spec."""
    from gpudoctor.bench.model import to_dict

    if compare:
        a, b = (_read_saved(p) for p in compare)
        if as_json:
            click.echo(json.dumps({"schema": "gpudoctor.bench.compare/1", "a": to_dict(a), "b": to_dict(b)}, indent=2))
        else:
            from gpudoctor.render.bench_text import compare_text

            click.echo(compare_text(a, b, compare[0], compare[1]), nl=False)
        return
    if not force:
        for path in filter(None, (save_file, html_file)):
            if Path(path).exists() or Path(path).is_symlink():
                _fail(f"{path} already exists: not overwritten (use --force to replace it)")
    report = _measure(quick, device, timeout, quiet=as_json, nproc=nproc, tools=not no_tools)
    if save_file:
        _write(save_file, json.dumps(to_dict(report), indent=2) + "\n", force)
    if html_file:
        from gpudoctor.render.bench_html import to_html

        _write(html_file, to_html(report), force)
    if as_json:
        click.echo(json.dumps(to_dict(report), indent=2))
    else:
        from gpudoctor.render.bench_text import to_text

        click.echo(to_text(report, verbose=verbose), nl=False)
    sys.exit(int(ExitCode.PROBLEMS if report.worst == "error" else ExitCode.OK))


def _measure(quick: bool, device: str, timeout: float | None, quiet: bool, nproc: int | None = None, tools: bool = True):
    import platform

    from gpudoctor.bench import BenchOptions, run_bench
    from gpudoctor.errors import MatrixError
    from gpudoctor.matrix import load_matrix

    try:
        matrix = load_matrix()
    except MatrixError as exc:
        _fail(f"the compatibility matrix shipped with gpudoctor is broken: {exc}", ExitCode.INTERNAL)
    show = not quiet and sys.stderr.isatty()

    def progress(what: str) -> None:
        if show:
            click.echo(f"  measuring {what} ...", err=True)

    from .verify_cmd import _visible_gpus

    gpus = _visible_gpus() if device == "auto" else None
    options = BenchOptions(device, quick, timeout, gpus=gpus, nproc=nproc, nvidia_tools=tools)
    return run_bench(options, matrix, on_progress=progress, host=platform.node() or None)
