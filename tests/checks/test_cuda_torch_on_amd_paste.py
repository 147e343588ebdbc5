"""torch's "Found no NVIDIA driver" (printed only by its CUDA build) on a machine the reporter says has an AMD GPU:
the CUDA build is the cause, not a missing NVIDIA driver (checks/derive.py, rocm_builds.py)."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

NO_DRIVER = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
             "installed a driver from http://www.nvidia.com/Download/index.aspx\n")


@pytest.mark.parametrize("words", [
    "System specs are a Ryzen 7 3700x and a Radeon 6700XT.\n",  # https://github.com/Comfy-Org/ComfyUI/issues/653
    "When I try to execute my first project, it states the error below but I have a RX570 GPU.\n",  # neuralchen/SimSwap#421
])
def test_a_cuda_torch_on_a_stated_amd_gpu_is_the_wrong_build(words):
    report = run_checks(read_evidence(words + NO_DRIVER, "paste"), load_matrix(), "paste")
    ids = {f.id: f.severity.label for f in report.findings}
    assert ids.get("torch-not-rocm-on-amd-gpu") == "error"
    assert "gpu-without-driver" not in ids
    assert report.facts.provenance["frameworks.torch.build"].startswith("derived: only torch's CUDA build")


def test_without_an_amd_gpu_it_stays_a_missing_driver():
    report = run_checks(read_evidence(NO_DRIVER, "paste"), load_matrix(), "paste")
    ids = {f.id for f in report.findings}
    assert "gpu-without-driver" in ids and "torch-not-rocm-on-amd-gpu" not in ids
