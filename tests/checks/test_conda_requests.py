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


def test_the_finding_pinned():
    from gpudoctor.checks.conda_requests import conda_pair_never_built
    from gpudoctor.model import Facts, Finding, Fix, Section, Severity, Symptom

    line = "conda install -c pytorch pytorch=1.9.0 torchvision cudatoolkit=11.3"
    asked = Symptom("conda-torch-cuda-request", line, None, "1.9.0|11.3")
    assert list(conda_pair_never_built(Facts(symptoms=(asked, asked)), load_matrix())) == [Finding(
        "torch-cpu-only-build", Severity.WARNING, Section.TORCH,
        "PyTorch built torch 1.9.0 for CUDA 10.2, 11.1, not 11.3: conda installs its CPU build beside cudatoolkit 11.3",
        (f"log: {line}", "torch 1.9 CUDA builds: 10.2, 11.1 (matrices/torch.toml)",
         "the solver meets both pins with the CPU-only pytorch package, which needs no cudatoolkit"),
        Fix("Ask for a cudatoolkit torch 1.9.0 was built for (or a torch built for CUDA 11.3)",
            ("conda install pytorch==1.9.0 cudatoolkit=11.1 -c pytorch -c conda-forge",
             "python -c \"import torch; print(torch.version.cuda)\"   # None means the CPU build"),
            "https://pytorch.org/get-started/previous-versions/"))]
    assert list(conda_pair_never_built(Facts(symptoms=(asked,)), None)) == []
    for subject in ("9.9.9|11.3", "1.9.0", None, "1.9.0|10.2"):
        assert list(conda_pair_never_built(Facts(symptoms=(Symptom("conda-torch-cuda-request", line, None, subject),)), load_matrix())) == []


def test_later_requests_are_read_when_the_first_was_built():
    from gpudoctor.checks.conda_requests import conda_pair_never_built
    from gpudoctor.model import Facts, Symptom

    built = Symptom("conda-torch-cuda-request", "conda install pytorch==1.10.0 cudatoolkit=11.3", None, "1.10.0|11.3")
    never = Symptom("conda-torch-cuda-request", "conda install pytorch==1.9.1 cudatoolkit=11.3", None, "1.9.1|11.3")
    (f,) = conda_pair_never_built(Facts(symptoms=(built, never)), load_matrix())
    assert f.evidence[0] == f"log: {never.text}"


def test_builds_are_listed_in_cuda_order_and_the_fix_takes_the_newest():
    # torch 1.7 was built for CUDA 9.2, 10.1, 10.2 and 11.0: "9.2" sorts after "11.0" as text, not as a version
    from gpudoctor.checks.conda_requests import conda_pair_never_built
    from gpudoctor.model import Facts, Symptom

    asked = Symptom("conda-torch-cuda-request", "conda install pytorch==1.7.1 cudatoolkit=11.3 -c pytorch", None, "1.7.1|11.3")
    (f,) = conda_pair_never_built(Facts(symptoms=(asked,)), load_matrix())
    assert f.title.startswith("PyTorch built torch 1.7.1 for CUDA 9.2, 10.1, 10.2, 11.0, not 11.3")
    assert f.fix.commands[0] == "conda install pytorch==1.7.1 cudatoolkit=11.0 -c pytorch -c conda-forge"


def test_a_request_the_matrix_cannot_judge_does_not_stop_the_reading():
    from gpudoctor.checks.conda_requests import conda_pair_never_built
    from gpudoctor.model import Facts, Symptom

    unknown = Symptom("conda-torch-cuda-request", "conda install pytorch==9.9.9 cudatoolkit=11.3", None, "9.9.9|11.3")
    never = Symptom("conda-torch-cuda-request", "conda install pytorch==1.9.1 cudatoolkit=11.3", None, "1.9.1|11.3")
    (f,) = conda_pair_never_built(Facts(symptoms=(unknown, never)), load_matrix())
    assert f.evidence[0] == f"log: {never.text}"
