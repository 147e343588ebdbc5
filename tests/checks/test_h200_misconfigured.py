"""The real H200 host with CUDA_VISIBLE_DEVICES=1 (../shared/fixtures/h200-host/check-misconfigured.txt): the cause
explains every framework's failure, JAX's included (issue 20, class 7: JAX's stood alone with a wrong lead)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.matrix import load_matrix
from gpudoctor.snapshot import facts_from_dict

FIXTURE = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "h200-host" / "check-deep.json"


@pytest.mark.skipif(not FIXTURE.exists(), reason="the H200 fixtures are not beside this checkout")
@pytest.mark.parametrize("visible", ["1", ""])
def test_cuda_visible_devices_explains_torch_and_jax_on_the_h200(visible):
    facts = facts_from_dict(json.loads(FIXTURE.read_text())["facts"], "h200")
    host = dataclasses.replace(facts.host, env={**facts.host.env, "CUDA_VISIBLE_DEVICES": visible})
    frameworks = dataclasses.replace(
        facts.frameworks,
        torch=dataclasses.replace(facts.frameworks.torch, cuda_available=False, device_count=0),
        jax=dataclasses.replace(facts.frameworks.jax, backend="cpu", devices=("cpu:0",), gpu_devices=0),
    )
    report = run_checks(dataclasses.replace(facts, host=host, frameworks=frameworks), load_matrix(), "h200 misconfigured")
    assert report.primary == "cuda-visible-devices-hides-all-gpus"
    cause = next(f for f in report.findings if f.id == report.primary)
    assert {"torch-cuda-unavailable", "jax-cuda-backend-failed"} <= set(cause.explains)
