"""The real thing on this CPU: torchrun --standalone with 2 gloo ranks training the CNN under DDP (slow: ~15 s at
load ~1 on 2 cores, ~40 s on a loaded host), through the CLI, and a real fault: a rank that nudges its parameters
outside DDP must fail the replicas check."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main
from gpudoctor.verify.multigpu.launch import run_ddp
from gpudoctor.verify.multigpu.model import FAULT_ENV
from gpudoctor.verify.model import SmokeStatus
from tests.conftest import needs

pytestmark = [pytest.mark.slow, needs("torch")]


def test_verify_multi_gpu_nproc_2_trains_two_equal_replicas():
    out = CliRunner().invoke(main, ["verify", "--framework", "torch", "--multi-gpu", "--nproc", "2", "--json", "--timeout", "240"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    (result,) = doc["results"]
    assert result["test"] == "ddp" and result["status"] == "passed"
    checks = {c["name"]: c for c in result["checks"]}
    assert checks["ranks"]["measured"]["reported"] == [0, 1]
    assert "bit-identical" in checks["replicas-equal"]["detail"]
    assert checks["allreduce"]["measured"]["busbw_gbs"] > 0


def test_a_rank_that_leaves_step_fails_the_replicas_check(monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "diverge")
    result = run_ddp(2, "gloo", 240)
    assert result.status is SmokeStatus.FAILED
    assert next(c for c in result.checks if c.name == "replicas-equal").status is SmokeStatus.FAILED
