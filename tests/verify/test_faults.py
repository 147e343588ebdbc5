"""Real faults, each a failed (or skipped) result with its reason and the right exit code -- never a dead or hung
gpudoctor. Faults inside the child are injected with the worker's test-only GPUDOCTOR_VERIFY_FAULT variable."""

from __future__ import annotations

import time

import pytest

from tests.verify.helpers import check, cli, cli_json, framework_params, only

FAULT = "GPUDOCTOR_VERIFY_FAULT"


@pytest.mark.usefixtures("frameworks_look_installed")  # the fault ends the worker before any import
def test_a_hanging_child_times_out_and_is_killed():
    start = time.perf_counter()
    code, report = cli_json("--framework", "torch", "--test", "cnn", "--timeout", "3", env={FAULT: "hang"})
    elapsed = time.perf_counter() - start
    assert code == 1
    result = only(report)
    assert result["status"] == "failed"
    assert result["reason"].startswith("timed out after 3s")
    assert 3.0 <= result["wall_s"] < 10.0 and elapsed < 15.0


@pytest.mark.usefixtures("frameworks_look_installed")  # the fault ends the worker before any import
def test_a_child_that_dies_is_a_failed_test_with_the_signal():
    result = cli("--framework", "torch", "--test", "lstm", env={FAULT: "abort"})
    assert result.exit_code == 1
    assert "✗ PyTorch LSTM: failed - child died with SIGABRT" in result.stdout
    assert "Traceback" not in result.output


@pytest.mark.usefixtures("frameworks_look_installed")  # the fault ends the worker before any import
def test_a_child_without_a_result_is_a_failed_test():
    code, report = cli_json("--framework", "tf", "--test", "cnn", env={FAULT: "noresult"})
    assert code == 1
    assert only(report)["reason"] == "child exited with status 0 without writing a result"


@pytest.mark.usefixtures("frameworks_look_installed")  # the fault ends the worker before any import
def test_a_passing_result_forged_on_stdout_fails():
    # The real worker prints a well-formed passing result where a framework's exit-time print would go, and writes
    # nothing to its private result file: the parent must not take it.
    code, report = cli_json("--framework", "torch", "--test", "cnn", env={FAULT: "forged"})
    assert code == 1
    assert only(report)["reason"].startswith("child exited with status 0 without writing a result (last output line: {")


@pytest.mark.slow
@pytest.mark.parametrize("framework", framework_params("torch", "tf"))
def test_a_loss_that_cannot_fall_fails_learned(framework):
    code, report = cli_json("--framework", framework, "--test", "cnn", env={FAULT: "lr0"})
    assert code == 1
    result = only(report)
    assert result["status"] == "failed"
    learned = check(result, "learned")
    assert learned["status"] == "failed"
    assert learned["measured"]["loss_drop"] == pytest.approx(0.0, abs=1e-6)
    assert result["reason"].startswith("learned: loss fell 0.0% (")
    assert "needs at least 50%" in result["reason"] and "is not clearly above chance 0.100" in result["reason"]
    # everything else was still proven: it ran, on the CPU, where asked
    assert check(result, "placement")["status"] == "passed"


@pytest.mark.no_gpu  # states what a machine without a GPU sees
@pytest.mark.slow
@pytest.mark.parametrize("framework", framework_params("torch", "tf"))
def test_device_cuda_without_a_gpu_fails_each_test_plainly(framework):
    result = cli("--framework", framework, "--test", "cnn,lstm", "--device", "cuda")
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == "Smoke tests could not run on cuda: no CUDA device is visible"
    assert result.stdout.count(": failed - no CUDA device: ") == 2
    assert "Traceback" not in result.output


@pytest.mark.slow
@pytest.mark.parametrize("framework", framework_params("torch", "tf"))
def test_a_device_index_beyond_the_gpus_there_fails_plainly(framework):
    # Valid on every host: no machine has 10,000 GPUs (and cuda:N takes at most four digits).
    code, report = cli_json("--framework", framework, "--test", "cnn", "--device", "cuda:9999")
    assert code == 1
    assert only(report)["reason"].startswith("no CUDA device")
    assert "Traceback" not in (only(report)["stderr_tail"] or "")
