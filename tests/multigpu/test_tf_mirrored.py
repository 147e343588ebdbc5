"""verify --multi-gpu --framework tf: TensorFlow's MirroredStrategy in one child. The parent's side with a fake
spawner that writes what the real worker writes (numbers from a real 2-replica run on this CPU), and the real thing
on the CPU split into 2 logical devices (slow: ~20 s on 2 shared cores)."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
from typing import Callable, Mapping, Sequence

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main
from gpudoctor.matrix.tables.framework import Framework
from gpudoctor.verify.multigpu import tf_launch
from gpudoctor.verify.multigpu.model import RANK_SCHEMA, RankResult
from gpudoctor.runner import SpawnResult
from gpudoctor.verify import run_verify
from gpudoctor.verify.model import SmokeStatus, VerifyOptions

from .fakes import rank

SHA = "b8d9ce9a0577" + "0" * 52  # one digest for both replicas: bit-identical copies


def replica(r: int, **changes: object) -> RankResult:
    base = rank(r, backend="mirrored", device=f"cpu:{r}", device_name="CPU (logical device)", first_loss=1.1502,
                last_loss=0.0003, param_sha256=SHA, grad_avg_rel_err=2.1e-08, local_grad_spread=0.88,
                busbw_gbs=None, algbw_gbs=None, allreduce_bytes=None, torch_version="2.21.0")  # fmt: skip
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


class FakeWorker:
    """The runner's spawn: checks it was asked for the TF worker, writes ``replicas`` to --result (or nothing)."""

    def __init__(self, replicas: list[RankResult], timed_out: bool = False, raw: str | None = None):
        self.replicas, self.timed_out, self.raw = replicas, timed_out, raw
        self.calls: list[tuple[str, ...]] = []

    def spawn(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
              on_line: Callable[[str], None] | None = None) -> SpawnResult:  # fmt: skip
        argv = tuple(argv)
        assert argv[1].endswith("child_start.py") and argv[2] == "gpudoctor.verify.multigpu.tf_worker", argv
        self.calls.append(argv)
        path = argv[argv.index("--result") + 1]
        if self.raw is not None or self.replicas:
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.raw if self.raw is not None else
                        json.dumps({"schema": RANK_SCHEMA, "replicas": [r.to_dict() for r in self.replicas]}))
        return SpawnResult(argv, None if self.timed_out else 0, timed_out=self.timed_out, wall_s=20.0)


def test_two_equal_replicas_that_trained_pass_and_say_where_they_ran():
    worker = FakeWorker([replica(0), replica(1)])
    result = tf_launch.run_mirrored(2, "cpu", 60, worker)
    assert result.status is SmokeStatus.PASSED, result.reason
    assert result.framework == "tensorflow" and result.test == "mirrored" and result.device == "cpu x2"
    checks = {c.name: c for c in result.checks}
    assert "MirroredStrategy saw 2 replicas" in checks["ranks"].detail
    assert worker.calls[0][worker.calls[0].index("--where") + 1] == "cpu"


def test_a_strategy_that_saw_fewer_devices_than_asked_fails():
    one = replica(0, world_size=1, gathered_norms=(rank(0).param_norm,))
    result = tf_launch.run_mirrored(2, "gpu", 60, FakeWorker([one]))
    assert result.status is SmokeStatus.FAILED
    assert "ranks" in result.reason


def test_replicas_whose_variables_differ_fail():
    other = replica(1, param_sha256="f" * 64, param_norm=11.7, gathered_norms=(rank(0).param_norm, 11.7))
    first = replica(0, gathered_norms=(rank(0).param_norm, 11.7))
    result = tf_launch.run_mirrored(2, "cpu", 60, FakeWorker([first, other]))
    assert result.status is SmokeStatus.FAILED and "replicas-equal" in result.reason


def test_a_hang_and_an_unreadable_result_fail_with_one_reason_each():
    hung = tf_launch.run_mirrored(2, "cpu", 5, FakeWorker([], timed_out=True))
    assert hung.status is SmokeStatus.FAILED and "hung" in hung.reason
    garbled = tf_launch.run_mirrored(2, "cpu", 5, FakeWorker([], raw="{not json"))
    assert garbled.status is SmokeStatus.FAILED
    assert any("unreadable" in n for n in garbled.notes)


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None or importlib.util.find_spec("keras") is None,
                    reason="TensorFlow is not installed: the case is skipped before any child starts")
def test_verify_runs_the_mirrored_case_for_tf_only_when_tf_is_asked_for():
    options = VerifyOptions(frameworks=(Framework.TENSORFLOW,), tests=(), multi_gpu=True, nproc=2)
    report = run_verify(options, spawner=FakeWorker([replica(0), replica(1)]))
    (result,) = report.results
    assert result.test == "mirrored" and result.status is SmokeStatus.PASSED
    assert "logical devices" in (result.device_note or "")


@pytest.mark.slow  # imports TensorFlow in a child: ~8 s
def test_the_parent_target_is_the_tf_cnn_plan_target():
    if importlib.util.find_spec("tensorflow") is None:  # importorskip would import TF into this process
        pytest.skip("TensorFlow is not installed")
    code = ("from gpudoctor.verify.tf_cases.training import PLANS; t = PLANS['cnn'].target; "
            "print(t.min_drop, t.min_accuracy)")
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}, check=True)  # fmt: skip
    drop, acc = map(float, out.stdout.split()[-2:])
    assert (drop, acc) == (tf_launch.TF_CNN_TARGET.min_drop, tf_launch.TF_CNN_TARGET.min_accuracy)


@pytest.mark.slow
def test_real_mirrored_strategy_over_two_logical_cpu_devices():
    if importlib.util.find_spec("tensorflow") is None:  # importorskip would import TF into this process
        pytest.skip("TensorFlow is not installed")
    out = CliRunner().invoke(main, ["verify", "--framework", "tf", "--multi-gpu", "--nproc", "2", "--json",
                                    "--timeout", "240"])  # fmt: skip
    assert out.exit_code == 0, out.output
    (result,) = json.loads(out.output)["results"]
    assert result["test"] == "mirrored" and result["status"] == "passed"
    checks = {c["name"]: c for c in result["checks"]}
    assert checks["ranks"]["measured"]["devices"] == {"0": "cpu:0", "1": "cpu:1"}
    assert "bit-identical" in checks["replicas-equal"]["detail"]
