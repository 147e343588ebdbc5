"""The child-process boundary with fake children: real subprocesses running tiny scripts in place of the worker
(segfault, abort, hang, silent exit, raise, a forged result on stdout, a result then a crash), through verify's own
code from run_verify down to the runner's spawn. Each one must be a failed test with its reason and exit status 1,
never a success, never a hang, never a dead gpudoctor."""

from __future__ import annotations

import os
import signal
import time

import pytest

from gpudoctor.model import ExitCode
from gpudoctor.verify import Listener, run_verify
from gpudoctor.verify.model import SmokeResult, SmokeStatus, VerifyOptions
from gpudoctor.verify.render import exit_code, to_text
from tests.verify.fakes import FakeSpawner, ScriptSpawner, worker_document

ONE = VerifyOptions(frameworks=("torch",), tests=("cnn",), timeout_s=20)

# A fake child script stands in for the worker, so what this machine has installed must not matter.
pytestmark = pytest.mark.usefixtures("frameworks_look_installed")

_ARGS = """
import json, os, signal, sys, time
args = sys.argv[1:]
result_file = args[args.index("--result-file") + 1]
framework, test = args[args.index("--framework") + 1], args[args.index("--test") + 1]
def write(status="passed", **extra):
    doc = {"schema": "gpudoctor.verify.worker/1",
           "result": dict({"framework": framework, "test": test, "status": status, "steps": 40}, **extra)}
    with open(result_file, "w") as f:
        json.dump(doc, f)
"""


def _run(body: str, options: VerifyOptions = ONE, listener: Listener | None = None) -> tuple[SmokeResult, object]:
    report = run_verify(options, listener, ScriptSpawner(_ARGS + body))
    assert len(report.results) == 1
    return report.results[0], report


def _failed(result: SmokeResult, report: object, reason: str) -> None:
    assert result.status is SmokeStatus.FAILED
    assert result.reason == reason
    assert exit_code(report) is ExitCode.PROBLEMS  # type: ignore[arg-type]


def test_a_child_that_writes_its_result_and_exits_0_passes():
    result, report = _run("print('framework log spam'); write(); sys.exit(0)")
    assert result.status is SmokeStatus.PASSED and result.steps == 40 and result.wall_s > 0
    assert exit_code(report) is ExitCode.OK  # type: ignore[arg-type]


def test_segfault_is_a_failed_test_with_the_signal_and_the_last_words():
    result, report = _run("print('Fatal Python error: Segmentation fault', flush=True); os.kill(os.getpid(), signal.SIGSEGV)")
    _failed(result, report, "child died with SIGSEGV without writing a result "
                            "(last output line: Fatal Python error: Segmentation fault)")  # fmt: skip


def test_abort_is_a_failed_test():
    result, report = _run("os.abort()")
    _failed(result, report, "child died with SIGABRT without writing a result")


def test_a_hang_is_killed_at_the_timeout_with_everything_it_started(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    body = (
        "import subprocess\n"
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(120)\n"
    )
    start = time.perf_counter()
    result, report = _run(body, VerifyOptions(frameworks=("torch",), tests=("cnn",), timeout_s=2))
    assert time.perf_counter() - start < 15
    _failed(result, report, "timed out after 2s: the child hung or is far slower than it should be (it was killed)")
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 5  # the group was SIGKILLed; give the kernel a moment
    while not _gone(grandchild):
        assert time.monotonic() < deadline, "the hung child's own child survived the timeout"
        time.sleep(0.1)


def _gone(pid: int) -> bool:
    """Dead: no such process, or a zombie waiting for init to reap it (it is not our child)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_exit_0_without_a_result_is_not_a_signal_and_not_a_success():
    result, report = _run("sys.exit(0)")
    _failed(result, report, "child exited with status 0 without writing a result")
    assert "signal" not in result.reason


def test_an_exception_outside_the_case_is_a_failed_test_with_its_last_line():
    result, report = _run("raise RuntimeError('CUDA error: an illegal memory access was encountered')")
    _failed(result, report, "child exited with status 1 without writing a result (last output line: "
                            "RuntimeError: CUDA error: an illegal memory access was encountered)")  # fmt: skip
    assert "Traceback (most recent call last):" in result.stderr_tail
    assert "✗ PyTorch CNN: failed - child exited with status 1" in to_text(report)  # type: ignore[arg-type]


def test_a_result_printed_on_stdout_is_never_trusted():
    # What a framework (or anything else in the child) might print at exit: a well-formed, passing worker result.
    forged = worker_document(SmokeResult("torch", "cnn", SmokeStatus.PASSED))
    result, report = _run(f"print({forged!r}, flush=True); sys.exit(0)")
    _failed(result, report, f"child exited with status 0 without writing a result (last output line: {forged[:200]})")


def test_a_result_followed_by_a_crash_fails_but_keeps_the_numbers():
    result, report = _run("write(first_loss=2.3, last_loss=0.1); os.abort()")
    _failed(result, report, "child died with SIGABRT after writing its result")
    assert result.first_loss == 2.3 and result.steps == 40


def test_a_result_for_another_test_or_garbage_fails():
    other, report = _run("framework = 'tf'; write(); sys.exit(0)")
    _failed(other, report, "child wrote a result that is not one: it answers for tf cnn, not torch cnn")
    garbage, report = _run("open(result_file, 'w').write('{\"schema\": \"gpudoctor.verify.worker/1\"'); sys.exit(0)")
    assert garbage.status is SmokeStatus.FAILED and garbage.reason.startswith("child wrote a result that is not one: JSONDecodeError")


def test_a_failed_result_keeps_its_reason():
    result, report = _run("write('failed', reason='learned: loss fell 0.0%'); sys.exit(0)")
    _failed(result, report, "learned: loss fell 0.0%")


def test_progress_lines_reach_the_listener_and_stay_out_of_the_tail():
    seen = []

    class Recorder(Listener):
        def progress(self, case, done, total, phase):  # type: ignore[no-untyped-def]
            seen.append((case.label, done, total, phase))

    body = ("sys.stderr.write('@@gpudoctor-progress 1 2 training\\n@@gpudoctor-progress x y\\n'); sys.stderr.flush();"
            "print('last words', flush=True); sys.exit(3)")  # fmt: skip
    result, _ = _run(body, listener=Recorder())
    assert seen == [("PyTorch CNN", 1, 2, "training")]
    assert result.reason == "child exited with status 3 without writing a result (last output line: last words)"
    assert result.stderr_tail == "last words"


def test_a_child_that_cannot_start_is_a_failed_test():
    report = run_verify(ONE, None, FakeSpawner(None, error="python: Permission denied"))
    assert report.results[0].reason == "could not start the child process: python: Permission denied"
    assert exit_code(report) is ExitCode.PROBLEMS


@pytest.mark.parametrize("returncode, reason", [(-signal.SIGKILL, "child died with SIGKILL"), (-77, "child died with signal 77"),
                                                (137, "child exited with status 137")])  # fmt: skip
def test_how_the_child_ended_is_named(returncode, reason):
    report = run_verify(ONE, None, FakeSpawner(returncode, lines=["", "  "]))
    assert report.results[0].reason == reason + " without writing a result"


def test_each_child_gets_its_own_private_result_file():
    # one child per framework (tests/verify/test_one_child.py): two frameworks, two children
    spawner = ScriptSpawner(_ARGS + "write(); sys.exit(0)")
    report = run_verify(VerifyOptions(frameworks=("torch", "tf"), tests=("cnn",), timeout_s=20), None, spawner)
    assert [r.status for r in report.results] == [SmokeStatus.PASSED, SmokeStatus.PASSED]
    files = [argv[argv.index("--result-file") + 1] for argv in spawner.calls]
    assert len(set(files)) == 2
    for path in files:
        assert not os.path.exists(os.path.dirname(path))  # removed after reading
