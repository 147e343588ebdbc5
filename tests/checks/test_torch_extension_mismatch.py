"""A compiled extension built for another torch (signatures xformers/torchvision/flash-attn-built-for-other-torch)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix


def _ids(text: str) -> set[str]:
    return {f.id for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings}


def test_torchvision_of_another_cuda_is_named():
    # https://github.com/mathmanu/edgeai-torchvision/issues/18
    line = ("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. "
            "PyTorch has CUDA Version=11.3 and torchvision has CUDA Version=11.7.\n")
    assert "torch-extension-built-for-other-torch" in _ids(line)


def test_xformers_beside_a_cpu_torch_blames_torch_not_xformers():
    # https://github.com/invoke-ai/InvokeAI/issues/5130
    text = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cpu)\n")
    ids = _ids(text)
    assert "torch-cpu-only-build" in ids and "torch-extension-built-for-other-torch" not in ids
