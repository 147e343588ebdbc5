"""A pasted conda command asking for a torch / cudatoolkit pair PyTorch never built: conda installs the CPU build
(checks/conda_requests.py)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix


def _found(text: str):
    return [f for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings if f.id == "torch-cpu-only-build"]


def test_torch_1_9_0_with_cudatoolkit_11_3_is_the_cpu_build():
    # pytorch/pytorch#69202
    (f,) = _found("I have tried to install cudatoolkit 11.3 with `conda install -c pytorch pytorch=1.9.0 torchvision cudatoolkit=11.3`.\n")
    assert f.severity.label == "warning" and "CUDA 10.2, 11.1, not 11.3" in f.title
    assert f.fix.commands[0] == "conda install pytorch==1.9.0 cudatoolkit=11.1 -c pytorch -c conda-forge"


def test_the_same_class_in_another_thread_torch_1_9_1():
    # Public-BOTs/GaussianPretrain#4: the pins in the other order of words
    text = ("When I try `conda install pytorch==1.9.1 torchvision==0.10.1 torchaudio==0.9.1 cudatoolkit=11.3 -c pytorch "
            "-c conda-forge`, it shows that I installed `pytorch_cpu` rather than `pytorch_cuda`.\n")
    assert len(_found(text)) == 1


def test_a_pair_that_was_built_or_a_cuda_build_installed_is_no_finding():
    assert _found("conda install pytorch==1.10.0 torchvision cudatoolkit=11.3 -c pytorch\n") == []
    assert _found("conda install pytorch==1.9.0 cudatoolkit=11.1 -c pytorch -c conda-forge\n") == []
    installed = "conda install pytorch==1.9.0 cudatoolkit=11.3 -c pytorch\n>>> torch.__version__\n'1.9.0+cu111'\n"
    assert _found(installed) == []
