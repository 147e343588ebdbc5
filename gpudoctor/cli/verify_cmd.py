"""``gpudoctor verify``: parse the options, run the smoke tests (gpudoctor.verify), draw progress, print, exit."""

from __future__ import annotations

import os
import sys

import click

from gpudoctor.model import ExitCode


MAX_TIMEOUT_S = 24 * 3600.0  # a day: longer is a typo, and far past what the OS's timers and wait() accept


def _split_tests(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """--test cnn,lstm --test transfer: comma-separated and repeatable; a name given twice runs once."""
    from gpudoctor.verify import TESTS

    value = value or ("cnn,lstm,transfer",)
    given = [t.strip().lower() for v in value for t in v.split(",")]
    names = tuple(dict.fromkeys(t for t in given if t))
    unknown = [t for t in names if t not in TESTS]
    if unknown or not names:
        raise click.BadParameter(f"{', '.join(unknown) or ','.join(value)!r}: choose from {', '.join(TESTS)} (comma-separated)")
    return names


def _timeout(ctx: click.Context, param: click.Parameter, value: float) -> float:
    if value != value:  # NaN slips through FloatRange (every comparison with it is False)
        raise click.BadParameter("nan is not a number of seconds")
    return value


def _device(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from gpudoctor.verify import DEVICE_PATTERN

    value = value.strip().lower()
    if not DEVICE_PATTERN.match(value):
        raise click.BadParameter(f"{value!r}: use auto, cpu, cuda or cuda:N (N a device index, 0 to 9999), mps, xpu, xpu:N or directml")
    return value


@click.command("verify")
@click.option("--framework", type=click.Choice(["torch", "tf", "jax", "all"]), default="all", show_default=True,
              help="Which framework's smoke tests to run (all: every one installed).")
@click.option("--test", "tests", multiple=True, callback=_split_tests,
              help="Comma-separated tests: cnn, lstm, transfer (repeatable; default: all three).")
@click.option("--device", default="auto", show_default=True, callback=_device,
              help="auto (CUDA, else MPS or XPU if the framework sees one, else the CPU), cpu, cuda, cuda:N, "
                   "mps (Apple), xpu, xpu:N (Intel) or directml (torch-directml; PyTorch only).")
@click.option("--amp/--no-amp", default=None,
              help="One mixed-precision step (fp16 with loss scaling; bf16 where supported). "
                   "Default: on when the GPU has compute capability 7.0 or more.")
@click.option("--weights", "weights", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Backbone weights for transfer learning: a state_dict (.pt/.pth) for PyTorch's MobileNetV3-small, "
                   "a Keras weights file (.h5) for MobileNetV2 (alpha 0.35), a .npz for the JAX backbone. Repeatable.")
@click.option("--timeout", "timeout", type=click.FloatRange(min=1.0, max=MAX_TIMEOUT_S), default=300.0, show_default=True,
              callback=_timeout,
              help="Seconds each test may take before it is killed and failed.")
@click.option("--multi-gpu/--no-multi-gpu", "multi_gpu", default=None,
              help="Only the multi-GPU test: DistributedDataParallel over every visible GPU (NCCL), or over CPU "
                   "processes (gloo) when fewer than two GPUs are visible. Default: run it, after the other tests, "
                   "when more than one GPU is visible.")
@click.option("--nproc", type=click.IntRange(min=2, max=64), default=None,
              help="Run the multi-GPU test with N gloo processes on the CPU (implies --multi-gpu).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON (schema gpudoctor.verify/1).")
@click.option("-v", "--verbose", is_flag=True, help="Show the child's stderr tail for every failed test.")
def verify(framework: str, tests: tuple[str, ...], device: str, amp: bool | None, weights: tuple[str, ...],
           timeout: float, multi_gpu: bool | None, nproc: int | None, as_json: bool, verbose: bool) -> None:  # fmt: skip
    """Train tiny CNN, LSTM and transfer-learning models to prove the GPU works.

    Each framework's tests run in one child process, each test with its own timeout (a test that crashes the child
    fails, and the tests after it run in a new child); the multi-GPU test is one torchrun launch (all ranks) with
    the same timeout. Exit status: 0 when every test that
    ran passed (skips are not failures), 1 when one failed or none ran (nothing was proved), 2 for a usage error.
    """
    from gpudoctor.matrix.tables.framework import Framework
    from gpudoctor.verify import FRAMEWORKS, run_verify
    from gpudoctor.workloads import weights as weights_mod
    from gpudoctor.verify.model import VerifyOptions
    from gpudoctor.verify.render import exit_code, to_json, to_text

    for path in weights:
        if weights_mod.framework_of(path) is None:
            raise click.BadParameter(
                f"{path}: not a weights file gpudoctor knows (.pt/.pth/.bin for PyTorch, .h5/.hdf5/.keras for Keras, .npz for JAX)",
                param_hint="--weights",
            )
    options = VerifyOptions(
        frameworks=FRAMEWORKS if framework == "all" else (Framework.parse(framework),),
        tests=tests,
        device=device,
        amp=amp,
        weights=tuple(os.path.abspath(p) for p in weights),
        timeout_s=timeout,
        multi_gpu=multi_gpu,
        nproc=nproc,
        gpus=_visible_gpus() if multi_gpu is not False and nproc is None else None,
    )
    listener = None if as_json or not sys.stderr.isatty() else _progress_listener()
    try:
        if listener is not None:
            with listener.bars:
                report = run_verify(options, listener)
        else:
            report = run_verify(options)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - gpudoctor itself failed
        from . import fail

        fail(f"verify failed: {type(exc).__name__}: {exc}", ExitCode.INTERNAL)
    if as_json:
        click.echo(to_json(report), nl=False)
    else:
        unicode = (sys.stdout.encoding or "").lower().replace("-", "") in {"utf8", "utf16"}
        click.echo(to_text(report, verbose=verbose, unicode=unicode), nl=False)
    sys.exit(int(exit_code(report)))


def _visible_gpus() -> int | None:
    """The NVIDIA GPUs a CUDA program here would see (NVML's count narrowed by CUDA_VISIBLE_DEVICES); None when
    NVML cannot tell (no driver, no binding): then the multi-GPU test runs only when asked for."""
    from gpudoctor.errors import ProbeFailed
    from gpudoctor.verify.multigpu import visible_gpu_count
    from gpudoctor.probes.nvml import probe_nvml

    try:
        _, gpus = probe_nvml()
    except (ProbeFailed, ImportError, OSError):
        return None
    return visible_gpu_count(len(gpus), os.environ.get("CUDA_VISIBLE_DEVICES"))


def _progress_listener():  # -> Listener with a .bars (rich Progress) attribute
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from gpudoctor.verify import Listener

    class Bars(Listener):
        def __init__(self) -> None:
            self.bars = Progress(
                TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[phase]}"),
                TimeElapsedColumn(), console=Console(stderr=True), transient=False,
            )  # fmt: skip
            self.tasks: dict[object, int] = {}
            self.totals: dict[object, int] = {}

        def started(self, case) -> None:  # type: ignore[no-untyped-def]
            self.tasks[case] = self.bars.add_task(case.label, total=None, phase="starting")

        def progress(self, case, done: int, total: int, phase: str) -> None:  # type: ignore[no-untyped-def]
            self.totals[case] = total
            self.bars.update(self.tasks[case], completed=done, total=total, phase=phase)

        def finished(self, case, result) -> None:  # type: ignore[no-untyped-def]
            total = self.totals.get(case, 1)
            self.bars.update(self.tasks[case], completed=total, total=total, phase=result.status.value)

    return Bars()
