"""The probes that wait on a command run on threads (gpudoctor.probes._Background): what they find and the errors
they record reach the snapshot in a fixed order however the threads finish, and one that never finishes is an
error, not a silent unknown."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from gpudoctor.errors import ProbeFailed
from gpudoctor.probes import _Background, _Recorder, collect
from gpudoctor.runner import CommandResult


def test_errors_join_in_the_order_results_are_asked_for_not_the_order_threads_finish():
    release_slow = threading.Event()

    def slow():
        release_slow.wait(5)
        raise ProbeFailed("slow failed")

    def fast():
        raise ProbeFailed("fast failed")

    rec = _Recorder()
    slow_job, fast_job = _Background("slow", slow), _Background("fast", fast)
    time.sleep(0.05)  # the fast one has finished; the slow one is still waiting
    release_slow.set()
    assert slow_job.result(rec) is None and fast_job.result(rec) is None
    assert [(e.probe, e.error) for e in rec.errors] == [("slow", "slow failed"), ("fast", "fast failed")]


def test_a_value_comes_back_with_no_error():
    rec = _Recorder()
    assert _Background("answer", lambda: 42).result(rec) == 42
    assert rec.errors == []


def test_a_crashing_probe_is_one_error():
    rec = _Recorder()
    assert _Background("crash", lambda: 1 / 0).result(rec) is None
    assert [(e.probe, e.error) for e in rec.errors] == [("crash", "probe crashed: ZeroDivisionError: division by zero")]


def test_a_probe_that_never_finishes_is_an_error_and_unknown():
    stop = threading.Event()
    rec = _Recorder()
    job = _Background("stuck", lambda: stop.wait(10) or "late", join_timeout=0.05)
    assert job.result(rec) is None
    stop.set()
    assert [(e.probe, e.error) for e in rec.errors] == [("stuck", "did not finish within 0.05 s")]


class _BrokenToolsRunner:
    """nvcc breaks at once, ldconfig breaks later: with threads, the errors must still come in collect's order."""

    def run(self, argv, timeout=10.0):
        if argv[0].endswith("ldconfig"):
            time.sleep(0.05)
            raise RuntimeError("ldconfig broke")
        if argv[0].endswith("nvcc"):
            raise RuntimeError("nvcc broke")
        return CommandResult(tuple(argv), None, error=f"{argv[0]}: command not found")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the libraries probe (ldconfig) runs on Linux only")
def test_collect_reports_the_same_errors_in_the_same_order_every_time(tmp_path):
    nvcc = tmp_path / "nvcc"  # a wrapper script on PATH: the toolkit probe must ask it for its version
    nvcc.write_text("#!/bin/sh\n")
    nvcc.chmod(0o755)
    environ = {"PATH": str(tmp_path)}
    runs = [tuple((e.probe, e.error) for e in collect(_BrokenToolsRunner(), environ=environ).probe_errors)
            for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]
    crashed = [(probe, error) for probe, error in runs[0] if "broke" in error]
    assert crashed == [("cuda-toolkits", "probe crashed: RuntimeError: nvcc broke"),
                       ("libraries", "probe crashed: RuntimeError: ldconfig broke")]
    probes = [probe for probe, _ in runs[0]]
    assert probes == sorted(probes, key=_COLLECT_ORDER.index)


# the order collect() asks its probes in (the snapshot's probe_errors follow it)
_COLLECT_ORDER = ["host", "jetson", "apple", "notebook", "pci", "kernel-module", "nvml", "nvidia-smi", "amd",
                  "cuda-toolkits", "libraries", "python-packages", "torch", "tensorflow", "jax", "kernel-log"]
