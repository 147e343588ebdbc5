"""Issue 20, class 2: absent is a value. A whole pip list on Linux with TensorFlow >= 2.14 and no nvidia-* CUDA wheels
is `pip install tensorflow` without `[and-cuda]`, the most frequent TF >= 2.15 failure; it must never read ✓."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Section, Severity, Status

SMI = """| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3090        Off |   00000000:01:00.0 Off |                  N/A |
|  0%   38C    P8             21W /  350W |       1MiB /  24576MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
"""
PIP_LIST = """Package                      Version
---------------------------- -----------
keras                        3.3.3
numpy                        1.26.4
pip                          24.0
tensorflow                   2.16.1
"""


def _report(text: str):
    return run_checks(read_evidence(text), load_matrix(), "paste")


def test_tensorflow_without_its_cuda_wheels_on_linux_is_named():
    report = _report(SMI + "I run this on Ubuntu 22.04 with a fresh venv.\n" + PIP_LIST)
    finding = next(f for f in report.findings if f.id == "tf-missing-gpu-libs")
    assert finding.severity is Severity.WARNING  # the loader path is unknown: a system CUDA could still serve
    assert "no nvidia-cudnn-cu12 wheel in the whole package list" in " ".join(finding.evidence)
    assert finding.fix.commands == ("pip install 'tensorflow[and-cuda]==2.16.1'",)
    status = {s.section: s.status for s in report.sections}
    assert status[Section.TENSORFLOW] is Status.WARNING and status[Section.CUDNN] is Status.NOT_JUDGED
    assert report.facts.provenance["frameworks.tensorflow.is_cuda_build"].startswith("derived: ")


def test_with_the_wheels_listed_nothing_is_missing():
    listed = PIP_LIST + "nvidia-cudnn-cu12            8.9.7.29\nnvidia-cuda-runtime-cu12     12.3.101\n"
    assert not [f for f in _report(SMI + "I run this on Ubuntu 22.04 with a fresh venv.\n" + listed).findings if f.id == "tf-missing-gpu-libs"]


def test_a_grep_of_the_list_proves_no_absence():
    grepped = "tensorflow                   2.16.1\nkeras                        3.3.3\n"  # no header: maybe `pip list | grep`
    assert not [f for f in _report(SMI + "I run this on Ubuntu 22.04 with a fresh venv.\n" + grepped).findings if f.id == "tf-missing-gpu-libs"]


def test_no_derivation_off_linux():
    report = _report(SMI + "I run this on Windows 11 with a fresh venv.\n" + PIP_LIST)
    assert report.facts.frameworks.tensorflow.is_cuda_build is None
    assert not [f for f in report.findings if f.id == "tf-missing-gpu-libs"]
