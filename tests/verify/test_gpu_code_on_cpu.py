"""The GPU branch of verify (device choice on cuda:N, GPU-vs-CPU agreement in exact fp32, mixed precision with loss
scaling, peak memory) on a machine without a GPU: the CUDA calls go to fakes with torch.cuda's and tf.config's names
(tests/verify/fake_cuda.py), the amp policy is judged by the pure assess.amp, and the tensor code runs for real with
the CPU standing in for the device. tests/verify/test_on_gpu.py runs the same code on a real GPU where there is one."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from gpudoctor.verify import assess
from gpudoctor.verify.model import NoDevice, SmokeStatus
from gpudoctor.verify.tf_cases import device as tf_device
from tests.verify.fake_cuda import H100, P100, T4, FakeTf, FakeTorchCuda
from tests.verify.helpers import ROOT

torch = pytest.importorskip("torch")

from gpudoctor.workloads import data  # noqa: E402
from gpudoctor.verify.torch_cases import checks, training  # noqa: E402
from gpudoctor.workloads import torch_device as device, torch_models as models  # noqa: E402


# --- mixed precision: one policy for both frameworks -------------------------------------------------------------


def _steps(losses: dict[str, float]):
    ran: list[str] = []

    def step(dtype: str) -> float:
        ran.append(dtype)
        return losses[dtype]

    return step, ran


@pytest.mark.parametrize(
    "on_gpu, cc, requested, expected",
    [
        (False, None, True, "mixed precision needs a CUDA device; this ran on the CPU"),
        (True, (9, 0), False, "turned off by --no-amp"),
        (True, (6, 1), None, "compute capability 6.1 < 7.0 (no tensor cores): off by default, --amp forces it"),
    ],
)
def test_amp_is_skipped_where_it_proves_nothing(on_gpu, cc, requested, expected):
    step, ran = _steps({})
    c = assess.amp(on_gpu, cc, requested, ["fp16"], step)
    assert (c.status, c.detail, ran) == (SmokeStatus.SKIPPED, expected, [])


def test_amp_runs_by_default_from_cc_7_and_when_forced_below():
    step, ran = _steps({"fp16": 2.31, "bf16": 2.30})
    c = assess.amp(True, (7, 0), None, ["fp16"], step)
    assert c.status is SmokeStatus.PASSED and ran == ["fp16"]
    assert c.detail == "fp16 step with loss scaling: loss 2.3100, bf16 not supported here"
    forced = assess.amp(True, (6, 1), True, ["fp16", "bf16"], step)
    assert forced.status is SmokeStatus.PASSED and ran == ["fp16", "fp16", "bf16"]
    assert forced.detail == "fp16 step with loss scaling: loss 2.3100, bf16 loss 2.3000"
    assert forced.measured == {"compute_capability": "6.1", "dtypes": ["fp16", "bf16"], "fp16_loss": 2.31, "bf16_loss": 2.30}


def test_amp_fails_on_a_loss_that_overflowed():
    step, _ = _steps({"fp16": math.inf, "bf16": 2.3})
    c = assess.amp(True, (8, 0), None, ["fp16", "bf16"], step)
    assert c.status is SmokeStatus.FAILED and c.detail == "mixed precision step: fp16 loss is inf"


# --- PyTorch: torch.cuda through a fake -----------------------------------------------------------------------------


def test_torch_picks_the_gpu_asked_for_and_names_a_missing_one():
    cuda = FakeTorchCuda([H100, T4])
    assert device.resolve_device("auto", cuda) == (torch.device("cuda:0"), "NVIDIA H100 80GB HBM3", None)
    assert device.resolve_device("cuda:1", cuda) == (torch.device("cuda:1"), "Tesla T4", None)
    assert device.resolve_device("cpu", cuda) == (torch.device("cpu"), "CPU", "--device cpu")
    with pytest.raises(NoDevice, match=r"^no CUDA device cuda:2: PyTorch sees 2 \(cuda:0..cuda:1\)$"):
        device.resolve_device("cuda:2", cuda)
    with pytest.raises(NoDevice, match=r"^no CUDA device: torch.cuda.is_available\(\) is False \(torch "):
        device.resolve_device("cuda", FakeTorchCuda([]))
    cpu, name, note = device.resolve_device("auto", FakeTorchCuda([]))
    assert (cpu.type, name) == ("cpu", "CPU") and note.startswith("no CUDA device is visible to PyTorch (torch ")


def test_torch_peak_memory_and_amp_dtypes_come_from_torch_cuda():
    cuda = FakeTorchCuda([H100, T4])
    gpu1 = torch.device("cuda:1")
    device.reset_peak_memory(gpu1, cuda)
    cuda.allocated_mib = 812.5
    assert device.peak_memory_mib(gpu1, cuda) == 812.5
    assert cuda.calls == ["reset_peak_memory_stats 1"]
    assert device.peak_memory_mib(torch.device("cpu"), cuda) is None
    assert device.compute_capability(gpu1, cuda) == (7, 5)
    assert device.amp_dtypes(torch.device("cuda:0"), cuda) == ["fp16", "bf16"]
    assert device.amp_dtypes(torch.device("cuda:0"), FakeTorchCuda([T4])) == ["fp16"]  # bf16 only emulated there
    device.sync(gpu1, cuda)
    device.sync(torch.device("cpu"), cuda)
    assert cuda.calls[-1] == "synchronize 1"


def test_torch_placement_on_cuda_fails_when_torch_sees_no_gpu():
    log = training.PlacementLog(torch.device("cpu"))
    log(torch.zeros(1), torch.zeros(1), torch.zeros(1))
    ok = checks.placement_check(models.Cnn(), log, torch.device("cpu"), FakeTorchCuda([P100]))
    assert ok.status is SmokeStatus.PASSED and ok.measured["cuda_device_count"] == 1
    bad = checks.placement_check(models.Cnn(), log, torch.device("cuda:0"), FakeTorchCuda([]))
    assert bad.status is SmokeStatus.FAILED
    assert bad.detail.startswith("10 tensors not on cuda:0: features.0.weight on cpu")
    assert bad.detail.endswith("; torch.cuda.is_available() is False")


def test_exact_fp32_turns_tf32_and_autotuning_off_for_the_comparison_and_back():
    b = torch.backends
    saved = (b.cuda.matmul.fp32_precision, b.cudnn.conv.fp32_precision, b.cudnn.rnn.fp32_precision, b.cudnn.benchmark)
    b.cudnn.conv.fp32_precision, b.cudnn.benchmark = "tf32", True  # as a user's training script may leave them
    try:
        seen = []

        class Spy(models.Cnn):
            def forward(self, x):  # type: ignore[no-untyped-def]
                seen.append((b.cuda.matmul.fp32_precision, b.cudnn.conv.fp32_precision, b.cudnn.rnn.fp32_precision,
                             b.cudnn.benchmark, b.cudnn.deterministic))  # fmt: skip
                return super().forward(x)

        x, y = data.cnn_data(8, seed=1)
        checks.agreement_check(Spy(), models.images(x), torch.from_numpy(y), torch.device("cpu"))
        assert seen == [("ieee", "ieee", "ieee", False, True)] * 2  # the CPU step and the device step
        assert (b.cudnn.conv.fp32_precision, b.cudnn.benchmark, b.cudnn.deterministic) == ("tf32", True, False)
    finally:
        b.cuda.matmul.fp32_precision, b.cudnn.conv.fp32_precision, b.cudnn.rnn.fp32_precision, b.cudnn.benchmark = saved


def test_exact_fp32_uses_allow_tf32_on_torch_before_the_precision_api():
    legacy = SimpleNamespace(cuda=SimpleNamespace(matmul=SimpleNamespace(allow_tf32=True)),
                             cudnn=SimpleNamespace(allow_tf32=True, benchmark=True, deterministic=False))  # fmt: skip
    with device.exact_fp32(legacy):
        assert (legacy.cuda.matmul.allow_tf32, legacy.cudnn.allow_tf32, legacy.cudnn.benchmark) == (False, False, False)
        assert legacy.cudnn.deterministic is True
    assert (legacy.cuda.matmul.allow_tf32, legacy.cudnn.allow_tf32, legacy.cudnn.benchmark) == (True, True, True)
    assert legacy.cudnn.deterministic is False


def test_torch_agreement_passes_for_the_same_computation_and_fails_for_garbage():
    x, y = data.cnn_data(32, seed=1)
    xb, yb = models.images(x), torch.from_numpy(y)
    torch.manual_seed(0)
    same = checks.agreement_check(models.Cnn(), xb, yb, torch.device("cpu"))
    assert same.status is SmokeStatus.PASSED
    assert same.measured["loss_rel_err"] == 0.0 and same.measured["grad_rel_err"] == 0.0

    class Garbage(models.Cnn):  # a "card" whose results depend on more than the inputs
        def __init__(self) -> None:
            super().__init__()
            self.noise = torch.nn.Dropout(0.5)

        def forward(self, x):  # type: ignore[no-untyped-def]
            return self.noise(super().forward(x))

    bad = checks.agreement_check(Garbage().train(), xb, yb, torch.device("cpu"))
    assert bad.status is SmokeStatus.FAILED
    assert bad.measured["grad_rel_err"] > 1e-3
    assert "disagree on one step from the same weights" in bad.detail


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_torch_mixed_precision_step_trains_the_copy_only(dtype):
    x, y = data.cnn_data(16, seed=1)  # (oneDNN has no fp16 LSTM on the CPU; CUDA has)
    model = models.Cnn()
    before = [p.detach().clone() for p in model.parameters()]
    loss = checks.amp_step(model, models.images(x), torch.from_numpy(y), torch.device("cpu"), getattr(torch, dtype))
    assert 1.5 < loss < 3.5  # about ln(10): an untrained 10-class model, computed in reduced precision
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))  # the model itself is untouched


def test_torch_amp_check_on_the_cpu_is_skipped():
    x, y = data.cnn_data(8, seed=1)
    c = checks.amp_check(models.Cnn(), models.images(x), torch.from_numpy(y), torch.device("cpu"), True)
    assert (c.status, c.detail) == (SmokeStatus.SKIPPED, "mixed precision needs a CUDA device; this ran on the CPU")


# --- TensorFlow: tf.config through a fake (TensorFlow itself is not imported) ---------------------------------------


def test_tensorflow_picks_the_gpu_asked_for_and_names_a_missing_one():
    fake = FakeTf([H100, T4])
    dev, note = tf_device.resolve_device("cuda:1", fake)
    assert dev == tf_device.Device("/GPU:1", "cuda:1", "Tesla T4", (7, 5)) and note is None
    assert dev.owns("/job:localhost/replica:0/task:0/device:GPU:1") and not dev.owns("/device:GPU:0")
    assert fake.calls == ["set_memory_growth /physical_device:GPU:0 True", "set_memory_growth /physical_device:GPU:1 True"]
    assert tf_device.resolve_device("auto", fake)[0].tf_name == "/GPU:0"
    with pytest.raises(NoDevice, match=r"^no CUDA device cuda:7: TensorFlow sees 2 \(cuda:0..cuda:1\)$"):
        tf_device.resolve_device("cuda:7", fake)
    with pytest.raises(NoDevice, match=r"tensorflow 2.21.0 is a CPU-only build"):
        tf_device.resolve_device("cuda", FakeTf([], cuda_build=False))
    assert tf_device.resolve_device("auto", FakeTf([]))[0] == tf_device.CPU


def test_tensorflow_peak_memory_and_amp_dtypes():
    fake = FakeTf([H100, P100], peak_mib=300.0)
    gpu1 = tf_device.resolve_device("cuda:1", fake)[0]
    tf_device.reset_peak_memory(gpu1, fake)
    assert fake.calls[-1] == "reset_memory_stats GPU:1"
    assert tf_device.peak_memory_mib(gpu1, fake) == 300.0
    assert tf_device.peak_memory_mib(tf_device.CPU, fake) is None
    assert tf_device.amp_dtypes(tf_device.resolve_device("cuda:0", fake)[0]) == ["fp16", "bf16"]
    assert tf_device.amp_dtypes(gpu1) == ["fp16"]
    skipped = assess.amp(gpu1.is_gpu, gpu1.compute_capability, None, tf_device.amp_dtypes(gpu1), lambda d: 1.0)
    assert skipped.detail.startswith("compute capability 6.0 < 7.0")


_TF_SCRIPT = """
import json
from gpudoctor.workloads import data
from gpudoctor.verify.tf_cases import checks, device, models
dev, _ = device.resolve_device("cpu")
x, y = data.cnn_data(16, seed=1)
model = models.cnn_model()
c = checks.agreement_check(models.cnn_model, model, x, y, dev)
fp16 = checks.amp_step(models.cnn_model, model, x, y, dev, "mixed_float16")
bf16 = checks.amp_step(models.cnn_model, model, x, y, dev, "mixed_bfloat16")
import keras, tensorflow as tf
print(json.dumps({"agreement": c.status.value, "measured": c.measured, "fp16": fp16, "bf16": bf16,
                  "policy_after": keras.mixed_precision.dtype_policy().name,
                  "tf32_after": tf.config.experimental.tensor_float_32_execution_enabled()}))
"""


@pytest.mark.slow
def test_tensorflow_agreement_and_mixed_precision_code_runs():
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run([sys.executable, "-c", _TF_SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["agreement"] == "passed" and out["measured"]["grad_rel_err"] == 0.0
    assert 1.5 < out["fp16"] < 3.5 and 1.5 < out["bf16"] < 3.5
    assert out["policy_after"] == "float32"  # the global policy is put back
    assert out["tf32_after"] is True  # and TF32 (on by default) too


@pytest.mark.parametrize("cosine, moved", [(False, 2.0), (True, 1.5)])
def test_torch_training_anneals_the_learning_rate_when_the_plan_says_so(cosine, moved):
    # Adam's first steps move each weight by about the learning rate: 1 + 1 at a constant rate, 1 + 1/2 annealed
    # (cosine over two steps).
    from gpudoctor.verify.training_plan import TrainingPlan

    model = torch.nn.Linear(1, 2, bias=False)
    torch.nn.init.zeros_(model.weight)
    plan = TrainingPlan(steps=2, batch=1, lr=0.1, eval_n=0, target=assess.LearnTarget(0.0, 0.0), cosine=cosine)
    x, y = torch.ones(2, 1), torch.zeros(2, dtype=torch.long)
    training.train(model, list(model.parameters()), x, y, plan, plan.lr, torch.device("cpu"), lambda *a: None, "t")
    assert model.weight[0, 0].item() == pytest.approx(moved * plan.lr, rel=1e-2)
