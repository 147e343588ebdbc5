"""verify's GPU branch on a real GPU: the same functions tests/verify/test_gpu_code_on_cpu.py runs through fakes,
here against the real torch.cuda and TensorFlow. Marked ``gpu``; skipped only where no CUDA GPU is visible (every
machine this project is built on), run on any GPU host: ``pytest -m gpu tests/verify``."""

from __future__ import annotations

import pytest

from tests.verify.helpers import check, cli_json, framework_params, only

torch = pytest.importorskip("torch")

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU is visible")]

from gpudoctor.workloads import data  # noqa: E402
from gpudoctor.verify.model import SmokeStatus  # noqa: E402
from gpudoctor.verify.torch_cases import checks  # noqa: E402
from gpudoctor.workloads import torch_device as device, torch_models as models  # noqa: E402


def test_torch_device_and_peak_memory_on_the_real_gpu():
    gpu, name, note = device.resolve_device("auto")
    assert gpu == torch.device("cuda:0") and name == torch.cuda.get_device_name(0) and note is None
    device.reset_peak_memory(gpu)
    block = torch.empty(64 * 2**20, dtype=torch.uint8, device=gpu)  # 64 MiB
    assert device.peak_memory_mib(gpu) >= 64
    del block


def test_torch_agreement_in_exact_fp32_on_the_real_gpu():
    x, y = data.cnn_data(64, seed=1)
    torch.manual_seed(0)
    c = checks.agreement_check(models.Cnn(), models.images(x), torch.from_numpy(y), torch.device("cuda:0"))
    assert c.status is SmokeStatus.PASSED, c.detail
    assert c.measured["grad_rel_err"] < 1e-4  # fp32 summation order only: far inside the tolerance


def test_torch_amp_on_the_real_gpu_follows_the_policy():
    x, y = data.cnn_data(32, seed=1)
    xb, yb, gpu = models.images(x), torch.from_numpy(y), torch.device("cuda:0")
    c = checks.amp_check(models.Cnn(), xb, yb, gpu, True)
    assert c.status is SmokeStatus.PASSED, c.detail
    assert c.measured["dtypes"] == device.amp_dtypes(gpu)
    assert checks.amp_check(models.Cnn(), xb, yb, gpu, False).detail == "turned off by --no-amp"


@pytest.mark.slow
@pytest.mark.parametrize("framework", framework_params("torch", "tf"))
def test_verify_trains_on_the_gpu(framework):
    code, report = cli_json("--framework", framework, "--test", "cnn", "--device", "cuda:0", "--amp")
    result = only(report)
    if framework == "tf" and result["status"] == "failed" and result["reason"].startswith("no CUDA device"):
        pytest.skip(f"TensorFlow sees no GPU here: {result['reason']}")
    assert code == 0, result
    assert result["device"] == "cuda:0" and report["ran_on"].startswith("on ") and "(cuda:0)" in report["ran_on"]
    assert result["peak_mem_mib"] > 0
    agreement = check(result, "agreement")
    assert agreement["status"] == "passed" and agreement["measured"]["grad_rel_err"] < 1e-3
    assert check(result, "amp")["status"] == "passed"
    assert check(result, "placement")["status"] == "passed"
