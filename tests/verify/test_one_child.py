"""One child per framework (issue 23): a framework's tests run in one child process (import and device set-up
once), each with its own timeout and result; a crash, hang or abort of one test is that test's failure with its
reason, and the tests after it run in a fresh child. Fake children here are tiny scripts that speak the worker's
several-tests protocol (``--tests``, ``--result-dir``, ``@@gpudoctor-case`` lines); the real worker and frameworks
are in the slow tests at the end."""

from __future__ import annotations

import time

import pytest

from gpudoctor.verify import Listener, run_verify
from gpudoctor.verify.model import SmokeStatus, VerifyOptions
from gpudoctor.verify.render import to_dict
from tests.verify.fakes import ScriptSpawner
from tests.verify.helpers import cli_json

@pytest.fixture(autouse=True)
def _frameworks_installed(monkeypatch):
    """The children here are fake: what a machine without torch or torchvision would skip must still run (the Python
    3.13/3.14 CI legs install no framework)."""
    monkeypatch.setattr("gpudoctor.verify._find_spec", lambda name: object())


THREE = VerifyOptions(frameworks=("torch",), tests=("cnn", "lstm", "transfer"), timeout_s=20)

# The worker's several-tests protocol, with the fault of each test read from FAULTS (test -> python statement).
_MANY = """
import json, os, signal, sys, time
args = sys.argv[1:]
framework = args[args.index("--framework") + 1]
result_dir = args[args.index("--result-dir") + 1]
FAULTS = {faults!r}
tests = args[args.index("--tests") + 1].split(",") if "--tests" in args else [args[args.index("--test") + 1]]
single = "--tests" not in args
open(os.path.join({log!r}), "a").write(",".join(tests) + "\\n")  # which tests each child was given
for test in tests:
    sys.stderr.write(f"@@gpudoctor-case {{test}}\\n@@gpudoctor-progress 1 2 training\\n"); sys.stderr.flush()
    exec(FAULTS.get(test, ""))
    doc = {{"schema": "gpudoctor.verify.worker/1", "result": {{"framework": framework, "test": test, "status": "passed", "steps": 3}}}}
    path = args[args.index("--result-file") + 1] if single else os.path.join(result_dir, test + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    sys.stderr.write(f"@@gpudoctor-case-done {{test}}\\n"); sys.stderr.flush()
sys.exit(0)
"""


def _run(tmp_path, faults: dict[str, str], options: VerifyOptions = THREE, listener: Listener | None = None):
    log = tmp_path / "children.log"
    spawner = ScriptSpawner(_MANY.format(faults=faults, log=str(log)).replace(
        'result_dir = args[args.index("--result-dir") + 1]',
        'result_dir = args[args.index("--result-dir") + 1] if "--result-dir" in args else None'))
    report = run_verify(options, listener, spawner)
    children = log.read_text().split() if log.exists() else []
    return report, children, spawner


def test_a_framework_s_tests_run_in_one_child_when_nothing_fails(tmp_path):
    report, children, spawner = _run(tmp_path, {})
    assert [r.status for r in report.results] == [SmokeStatus.PASSED] * 3
    assert [r.test for r in report.results] == ["cnn", "lstm", "transfer"]
    assert children == ["cnn,lstm,transfer"] and len(spawner.calls) == 1 and report.children == 1
    assert to_dict(report)["summary"]["children"] == 1
    assert all(r.wall_s is not None and r.wall_s >= 0 for r in report.results)


def test_a_crash_in_the_middle_test_is_its_failure_and_the_third_runs_in_a_fresh_child(tmp_path):
    report, children, _ = _run(tmp_path, {"lstm": "print('Fatal Python error: Aborted', flush=True); os.abort()"})
    cnn, lstm, transfer = report.results
    assert cnn.status is SmokeStatus.PASSED
    assert lstm.status is SmokeStatus.FAILED
    assert lstm.reason == "child died with SIGABRT without writing a result (last output line: Fatal Python error: Aborted)"
    assert transfer.status is SmokeStatus.PASSED
    assert children == ["cnn,lstm,transfer", "transfer"] and report.children == 2


def test_a_hang_is_that_test_s_timeout_and_the_rest_still_run(tmp_path):
    options = VerifyOptions(frameworks=("torch",), tests=("cnn", "lstm", "transfer"), timeout_s=2)
    start = time.perf_counter()
    report, children, _ = _run(tmp_path, {"cnn": "time.sleep(120)"}, options)
    cnn, lstm, transfer = report.results
    assert cnn.status is SmokeStatus.FAILED and cnn.reason.startswith("timed out after 2s")
    assert lstm.status is transfer.status is SmokeStatus.PASSED
    assert children == ["cnn,lstm,transfer", "lstm,transfer"]
    # the fake has no watchdog of its own: the parent's bound for the whole child killed it (3 tests x 2 s + 2 s)
    assert time.perf_counter() - start < 30


def test_the_worker_s_watchdog_marker_makes_a_killed_test_a_timeout(tmp_path):
    # What the real worker's watchdog does when a test runs past its timeout: leave TEST.timeout, SIGKILL itself.
    fire = "open(os.path.join(result_dir, test + '.timeout'), 'w').write('20'); os.kill(os.getpid(), signal.SIGKILL)"
    report, children, _ = _run(tmp_path, {"lstm": fire})
    assert report.results[1].reason == "timed out after 20s: the child hung or is far slower than it should be (it was killed)"
    assert [r.status for r in report.results] == [SmokeStatus.PASSED, SmokeStatus.FAILED, SmokeStatus.PASSED]
    assert children == ["cnn,lstm,transfer", "transfer"]


def test_a_result_then_a_crash_before_the_next_test_fails_that_test_and_the_next_get_a_fresh_child(tmp_path):
    # lstm starts, so cnn ended cleanly; transfer's result is written and then the child dies before it exits
    faults = {"transfer": "doc = {'schema': 'gpudoctor.verify.worker/1', 'result': {'framework': framework, 'test': test, "
                          "'status': 'passed', 'steps': 3}}; json.dump(doc, open(os.path.join(result_dir, test + '.json'), 'w')); "
                          "os.kill(os.getpid(), signal.SIGSEGV)"}  # fmt: skip
    report, children, _ = _run(tmp_path, faults)
    assert [r.status for r in report.results[:2]] == [SmokeStatus.PASSED] * 2
    assert report.results[2].reason == "child died with SIGSEGV after writing its result"
    assert report.results[2].steps == 3  # its numbers are kept
    assert children == ["cnn,lstm,transfer"]


def test_every_test_is_started_progressed_and_finished_once_in_order(tmp_path):
    events = []

    class Recorder(Listener):
        def started(self, case):  # type: ignore[no-untyped-def]
            events.append(("started", case.test))

        def progress(self, case, done, total, phase):  # type: ignore[no-untyped-def]
            events.append(("progress", case.test))

        def finished(self, case, result):  # type: ignore[no-untyped-def]
            events.append(("finished", case.test, result.status.value))

    _run(tmp_path, {"lstm": "os.abort()"}, listener=Recorder())
    assert [e[1] for e in events if e[0] == "started"] == ["cnn", "lstm", "transfer"]
    assert [e[1] for e in events if e[0] == "finished"] == ["cnn", "lstm", "transfer"]
    assert ("finished", "lstm", "failed") in events
    assert {e[1] for e in events if e[0] == "progress"} == {"cnn", "lstm", "transfer"}


@pytest.mark.slow
def test_the_real_worker_runs_torch_s_three_tests_in_one_child():
    code, report = cli_json("--framework", "torch", "--device", "cpu")
    assert code == 0, report
    assert [r["status"] for r in report["results"]] == ["passed"] * 3
    assert report["summary"]["children"] == 1


@pytest.mark.slow
def test_the_real_worker_aborting_in_the_middle_test_fails_it_and_the_third_passes():
    code, report = cli_json("--framework", "torch", "--device", "cpu", env={"GPUDOCTOR_VERIFY_FAULT": "abort@lstm"})
    assert code == 1
    cnn, lstm, transfer = report["results"]
    assert cnn["status"] == "passed" and transfer["status"] == "passed"
    assert lstm["status"] == "failed" and lstm["reason"].startswith("child died with SIGABRT without writing a result")
    assert report["summary"]["children"] == 2


@pytest.mark.slow
def test_the_real_worker_s_watchdog_times_out_one_test():
    # 60 s: the LSTM's fresh child imports torch and trains within it even on 2 loaded cores
    code, report = cli_json("--framework", "torch", "--device", "cpu", "--test", "cnn,lstm", "--timeout", "60",
                            env={"GPUDOCTOR_VERIFY_FAULT": "hang@cnn"})  # fmt: skip
    assert code == 1
    cnn, lstm = report["results"]
    assert cnn["reason"].startswith("timed out after 60s") and lstm["status"] == "passed", lstm["reason"]
    assert report["summary"]["children"] == 2
