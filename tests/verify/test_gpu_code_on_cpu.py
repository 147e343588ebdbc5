"""The GPU-only checks (GPU-vs-CPU agreement, mixed precision) are real code that no CI machine reaches through the
command (no GPU). Here the same functions run with the CPU standing in for the device, so their code runs for real,
and a model that computes differently on the two sides fails the agreement check."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from tests.verify.helpers import ROOT


def test_torch_agreement_passes_for_the_same_computation_and_fails_for_garbage():
    import torch
    from torch import nn

    from gpudoctor.verify import data, torch_cases

    x, y = data.cnn_data(32, seed=1)
    xb, yb = torch_cases._images(x), torch.from_numpy(y)
    torch.manual_seed(0)
    same = torch_cases.agreement_check(torch_cases.Cnn(), xb, yb, torch.device("cpu"))
    assert same.status.value == "passed"
    assert same.measured["loss_rel_err"] == 0.0 and same.measured["grad_rel_err"] == 0.0

    class Garbage(torch_cases.Cnn):  # a "card" whose results depend on more than the inputs
        def __init__(self) -> None:
            super().__init__()
            self.noise = nn.Dropout(0.5)

        def forward(self, x):  # type: ignore[no-untyped-def]
            return self.noise(super().forward(x))

    bad = torch_cases.agreement_check(Garbage().train(), xb, yb, torch.device("cpu"))
    assert bad.status.value == "failed"
    assert bad.measured["grad_rel_err"] > 1e-3
    assert "disagree on one step from the same weights" in bad.detail


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_torch_mixed_precision_step_runs(dtype):
    import torch

    from gpudoctor.verify import data, torch_cases

    x, y = data.cnn_data(16, seed=1)  # (oneDNN has no fp16 LSTM on the CPU; CUDA has)
    loss = torch_cases.amp_step(torch_cases.Cnn(), torch_cases._images(x), torch.from_numpy(y), torch.device("cpu"),
                                getattr(torch, dtype))  # fmt: skip
    assert math.isfinite(loss) and loss > 0


_TF_SCRIPT = """
import json
from gpudoctor.verify import data, tf_cases
dev, _ = tf_cases.resolve_device("cpu")
x, y = data.cnn_data(16, seed=1)
model = tf_cases.cnn_model()
c = tf_cases.agreement_check(tf_cases.cnn_model, model, x, y, dev)
fp16 = tf_cases.amp_step(tf_cases.cnn_model, model, x, y, dev, "mixed_float16")
bf16 = tf_cases.amp_step(tf_cases.cnn_model, model, x, y, dev, "mixed_bfloat16")
import keras
print(json.dumps({"agreement": c.status.value, "measured": c.measured, "fp16": fp16, "bf16": bf16,
                  "policy_after": keras.mixed_precision.dtype_policy().name}))
"""


@pytest.mark.slow
def test_tensorflow_agreement_and_mixed_precision_code_runs():
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run([sys.executable, "-c", _TF_SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["agreement"] == "passed" and out["measured"]["grad_rel_err"] == 0.0
    assert math.isfinite(out["fp16"]) and math.isfinite(out["bf16"])
    assert out["policy_after"] == "float32"  # the global policy is put back
