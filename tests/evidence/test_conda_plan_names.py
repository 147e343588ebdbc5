"""conda's other names for torch and its CPU selector in a plan (evidence/readers/packages.py)."""

from __future__ import annotations

from gpudoctor.evidence import read_evidence

# https://github.com/pytorch/pytorch/issues/23778 (conda picked the CPU nightly)
PLAN_CPU = """The following NEW packages will be INSTALLED:

  cpu-only           pytorch/linux-64::cpu-only-1.0-0
  pytorch-nightly    pytorch/linux-64::pytorch-nightly-1.2.0.dev20190805+cpu-py3.7_cpu_0
"""


def test_the_nightly_package_is_torch_and_cpu_only_selects_the_cpu_build():
    torch = read_evidence(PLAN_CPU, "paste").frameworks.torch
    assert torch.version == "1.2.0.dev20190805+cpu" and torch.build == "cpu"


def test_a_cuda_nightly_build_string_is_a_cuda_build():
    line = "  pytorch-nightly    pytorch/linux-64::pytorch-nightly-1.2.0.dev20190805-py3.7_cuda10.0.130_cudnn7.6.2_0\n"
    torch = read_evidence(line, "paste").frameworks.torch
    assert torch.build == "cuda" and torch.cuda == "10.0"
