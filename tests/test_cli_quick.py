"""The quick path for `gpudoctor check [flags]` (gpudoctor/cli/quick.py): it serves exactly the command lines where
click would only set flags, prints and exits exactly as the click command does, and never imports click."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from gpudoctor.cli import check_run
from gpudoctor.cli.quick import FLAGS, quick_flags, run_quick_check

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": ""}


@pytest.mark.parametrize("args", [["check"], ["check", "--json"], ["check", "-v", "--strict"], ["check", "--markdown"],
                                  ["check", "--verbose", "-v", "--force"], ["check", "--strict", "--strict"]])
def test_a_command_line_of_check_flags_is_served(args):
    flags = quick_flags(args, {})
    assert flags is not None
    assert {name for name, on in flags.items() if on} == {FLAGS[a] for a in args[1:]}


@pytest.mark.parametrize("args", [[], ["env"], ["--help"], ["check", "--help"], ["check", "-h"], ["check", "--js"],
                                  ["check", "-vv"], ["check", "--json", "--markdown"], ["check", "--from", "x.json"],
                                  ["check", "--ignore", "no-nvidia-gpu"], ["check", "--save=x.json"], ["check", "--"],
                                  ["--version"], ["check", "extra"], ["matrix"]])
def test_any_other_command_line_is_left_to_click(args):
    assert quick_flags(args, {}) is None


def test_a_shell_completion_request_is_left_to_click():
    assert quick_flags(["check"], {"_GPUDOCTOR_COMPLETE": "bash_complete"}) is None


def run_cli(*args: str, quick: bool) -> subprocess.CompletedProcess:
    # `python -m gpudoctor` starts at gpudoctor.cli.run (quick path first); calling the click group runs click alone
    argv = [sys.executable, "-m", "gpudoctor", *args] if quick else \
        [sys.executable, "-c", "from gpudoctor.cli import main; main(prog_name='gpudoctor')", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT, env=ENV)


@pytest.mark.parametrize("args", [("check",), ("check", "--json"), ("check", "-v", "--strict"), ("check", "--markdown")])
def test_the_quick_path_prints_and_exits_as_the_click_command_does(args):
    quick, slow = run_cli(*args, quick=True), run_cli(*args, quick=False)
    assert (quick.returncode, quick.stdout, quick.stderr) == (slow.returncode, slow.stdout, slow.stderr)
    assert "gpudoctor" in quick.stdout


def test_the_quick_path_never_imports_click():
    code = ("import atexit, sys; sys.argv = ['gpudoctor', 'check', '--json']\nfrom gpudoctor.cli import run\n"
            "atexit.register(lambda: print('click' in sys.modules, file=sys.stderr))\nrun()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT, env=ENV)
    assert done.stderr.strip().splitlines()[-1] == "False", done.stderr


def test_a_crash_on_the_quick_path_is_one_line_and_exit_3(monkeypatch, capsys):
    def broken(from_paths, deep):
        raise RuntimeError("probe table exploded")

    monkeypatch.setattr(check_run, "_facts", broken)
    monkeypatch.delenv("GPUDOCTOR_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exited:
        run_quick_check(["check"])
    assert exited.value.code == 3
    assert capsys.readouterr().err == ("gpudoctor: error: gpudoctor itself failed (RuntimeError: probe table exploded); "
                                       "GPUDOCTOR_DEBUG=1 shows the traceback\n")


def test_a_command_line_it_does_not_serve_returns_without_running_anything(monkeypatch):
    monkeypatch.setattr(check_run, "run_check", lambda **kw: pytest.fail("ran"))
    assert run_quick_check(["check", "--from", "x.json"]) is None


@pytest.mark.parametrize("role", ["ok", "info", "warning", "error", "dim", "bold", "plain"])
def test_terminal_colours_are_the_codes_click_style_writes(role):
    colours = {"ok": "green", "info": "cyan", "warning": "yellow", "error": "red", "dim": "bright_black"}
    expected = click.style("CUDA 12.8", bold=True) if role == "bold" else \
        click.style("CUDA 12.8", fg=colours[role]) if role in colours else "CUDA 12.8"
    assert check_run._terminal_style("CUDA 12.8", role) == expected


@pytest.mark.parametrize("text", ["[✓] CUDA toolkit: CUDA 13.0\n", "", "colour \x1b[31mred\x1b[0m on a pipe\n",
                                  "a lone surrogate \udcff\n"])
@pytest.mark.parametrize("encoding", ["utf-8", "ascii", "latin-1"])
def test_echo_writes_what_click_echo_writes(monkeypatch, text, encoding):
    def written(echo) -> bytes:
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="replace")
        monkeypatch.setattr(sys, "stdout", stream)
        echo(text)
        stream.flush()
        return raw.getvalue()

    assert written(check_run.echo) == written(lambda t: click.echo(t, nl=False))


# -- a short-lived process: no cyclic GC, and no interpreter teardown at the end -----------------------------------

_PROCESS = """
import atexit, gc, sys
sys.argv = ["gpudoctor"] + sys.argv[1:]
atexit.register(lambda: print("atexit ran; gc enabled:", gc.isenabled(), file=sys.stderr))
from gpudoctor.cli import run
try:
    run()
finally:
    print("teardown reached", file=sys.stderr)  # a `finally` still runs when the process ends by SystemExit
"""


@pytest.mark.parametrize("args, quick", [(["check", "--json"], True), (["check", "--strict"], True),
                                         (["matrix", "cuda", "12.8"], False)])
def test_a_quick_check_ends_without_teardown_but_runs_the_atexit_handlers(args, quick):
    done = subprocess.run([sys.executable, "-c", _PROCESS, *args], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env=ENV)
    lines = done.stderr.splitlines()
    assert f"atexit ran; gc enabled: {not quick}" in lines
    assert ("teardown reached" in lines) is not quick
    assert done.stdout  # the report (or the matrix answer) was flushed before the end
    if quick:
        expected = run_cli(*args, quick=False)  # the click command: same output, same exit code
        assert (done.returncode, done.stdout) == (expected.returncode, expected.stdout)


def test_end_process_leaves_an_exit_it_cannot_mirror_to_the_interpreter():
    from gpudoctor.cli.quick import end_process

    assert end_process("a message, not a number") is None  # returns: the caller re-raises the SystemExit


def test_a_failed_flush_at_the_end_is_status_120_as_in_cpython():
    code = ("import sys\nfrom gpudoctor.cli.quick import end_process\n"
            "class Closed:\n    def flush(self):\n        raise BrokenPipeError(32, 'Broken pipe')\n"
            "sys.stdout = Closed()\nend_process(0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT, env=ENV)
    assert done.returncode == 120
