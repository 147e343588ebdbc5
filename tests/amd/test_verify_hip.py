"""verify on a ROCm build: torch's "cuda" device is the AMD GPU, and the report says ROCm/HIP, never CUDA.
Runs the real resolve_device and the real headline with torch.cuda replaced by the fake (tests/verify/fake_cuda.py)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed: resolve_device runs in torch's worker only")

from gpudoctor.verify import ran_on  # noqa: E402
from gpudoctor.verify.model import SmokeResult, SmokeStatus  # noqa: E402
from gpudoctor.workloads import torch_device as device  # noqa: E402
from tests.verify.fake_cuda import FakeTorchCuda, Gpu  # noqa: E402

MI300X = Gpu("AMD Instinct MI300X", (9, 4))  # torch.cuda.get_device_capability on ROCm: gfx942 -> (9, 4)


def test_a_rocm_build_names_its_device_as_rocm_hip():
    cuda = FakeTorchCuda([MI300X])
    dev, name, note = device.resolve_device("auto", cuda, hip="6.4.43482")
    assert dev == torch.device("cuda:0") and note is None
    assert name == "AMD Instinct MI300X (ROCm/HIP 6.4.43482)"


def test_a_cuda_build_is_unchanged():
    cuda = FakeTorchCuda([MI300X])
    assert device.resolve_device("auto", cuda, hip=None)[1] == "AMD Instinct MI300X"


def test_the_headline_says_rocm_for_the_amd_gpu():
    import dataclasses

    from gpudoctor.verify.model import VerifyOptions, VerifyReport

    name = device.resolve_device("auto", FakeTorchCuda([MI300X]), hip="6.4.43482")[1]
    result = SmokeResult("torch", "cnn", SmokeStatus.PASSED, device="cuda:0", device_name=name)
    fields = {f.name for f in dataclasses.fields(VerifyReport)}
    report = VerifyReport(**{k: v for k, v in {"options": VerifyOptions(), "results": (result,)}.items() if k in fields})
    assert ran_on(report) == "on AMD Instinct MI300X (ROCm/HIP 6.4.43482) (cuda:0)"
