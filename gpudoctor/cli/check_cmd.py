"""``gpudoctor check``: its options and usage errors (click); the work is gpudoctor.cli.check_run."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("check")
@click.option("--json", "as_json", is_flag=True, help="Print only JSON: the snapshot and the findings, with a schema version.")
@click.option("--markdown", is_flag=True, help="Print a Markdown report to paste into a bug report (UUIDs, host and user names redacted).")
@click.option("--save", "save_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the facts snapshot to FILE.")
@click.option("--from", "from_paths", multiple=True, type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="Diagnose a snapshot or a pasted bug report (collect_env, nvidia-smi, nvcc, pip/conda lists, error lines) "
                   "instead of this machine; '-' reads standard input. Repeat it to merge several (e.g. a paste and a "
                   "hand-written partial snapshot of what the thread says): disagreements are reported.")
@click.option("--deep", is_flag=True, help="Also import each framework in a child process (60 s timeout) and record what it sees.")
@click.option("--ignore", "ignored", multiple=True, metavar="ID", help="Leave out findings with this id (repeatable).")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too, not only on errors.")
@click.option("--force", is_flag=True, help="Let --save overwrite an existing file.")
@click.option("-v", "--verbose", is_flag=True, help="Show the facts behind each section and the detail of every note.")
def check(as_json: bool, markdown: bool, save_path: Path | None, from_paths: tuple[Path, ...], deep: bool,
          ignored: tuple[str, ...], strict: bool, force: bool, verbose: bool) -> None:
    """Diagnose the GPU, NVIDIA driver, CUDA, cuDNN, PyTorch and TensorFlow of this machine.

    Exit codes: 0 no error (warnings allowed unless --strict), 1 at least one error, 2 bad usage or unreadable
    input, 3 gpudoctor itself failed."""
    if as_json and markdown:
        raise click.UsageError("--json and --markdown are exclusive: choose one output format")
    if from_paths and deep:
        raise click.UsageError("--deep probes this machine; it cannot be combined with --from")

    from .check_run import run_check

    run_check(as_json=as_json, markdown=markdown, save_path=save_path, from_paths=from_paths, deep=deep,
              ignored=ignored, strict=strict, force=force, verbose=verbose)
