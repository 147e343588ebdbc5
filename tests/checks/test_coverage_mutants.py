"""Section status as data (issue 11: mutation score of checks/coverage.py): for each section, what the facts allow
to say when no finding was raised (ok, not applicable, not judged, and why), and the worst finding otherwise."""

from __future__ import annotations

import pytest

from gpudoctor.checks.coverage import PASTE_HINT, section_status, sections
from gpudoctor.model import (Driver, Facts, Finding, Frameworks, Gpu, Host, Libraries, Library, Section, Severity, Status,
                             TensorflowBuild, TorchBuild)

A100 = (Gpu(index=0, name="NVIDIA A100-SXM4-40GB", compute_capability="8.0"),)
R535 = Driver(version="535.104.05", cuda_version="12.2", kernel_module="nvidia")
TF_CUDA = TensorflowBuild(version="2.16.1", is_cuda_build=True)


def status(section: Section, facts: Facts, *findings: Finding):
    result = section_status(section, tuple(findings), facts)
    return result.status, result.reason


def finding(section: Section, severity: Severity) -> Finding:
    return Finding("x", severity, section, "t", ())


@pytest.mark.parametrize(("severities", "want"), [
    ((Severity.OK,), Status.OK), ((Severity.INFO,), Status.NOTE), ((Severity.INFO, Severity.WARNING), Status.WARNING),
    ((Severity.ERROR, Severity.INFO), Status.ERROR),
])
def test_the_worst_finding_of_the_section_decides(severities, want):
    findings = [finding(Section.TORCH, s) for s in severities] + [finding(Section.GPU, Severity.ERROR)]
    assert status(Section.TORCH, Facts(), *findings) == (want, None)


def test_a_crashed_check_outranks_its_findings():
    result = section_status(Section.GPU, (finding(Section.GPU, Severity.ERROR),), Facts(), crashed=True)
    assert (result.status, result.reason) == (Status.CRASHED, "a check of this section crashed: see below")
    assert [r.status for r in sections((), Facts(gpus=A100, driver=R535), frozenset({Section.GPU}))][0] is Status.CRASHED


def test_gpu_section():
    assert status(Section.GPU, Facts()) == (Status.NOT_JUDGED, f"the GPU and the NVIDIA driver are unknown: {PASTE_HINT}")
    assert status(Section.GPU, Facts(gpus=A100)) == (Status.NOT_JUDGED, "the NVIDIA driver version is unknown: paste `nvidia-smi`")
    assert status(Section.GPU, Facts(gpus=A100, driver=Driver(kernel_module="nvidia"))) == (Status.NOT_JUDGED, "the NVIDIA driver version is unknown: paste `nvidia-smi`")
    assert status(Section.GPU, Facts(gpus=A100, driver=R535)) == (Status.OK, None)
    assert status(Section.GPU, Facts(gpus=A100, driver=Driver(cuda_version="12.2"))) == (Status.OK, None)
    assert status(Section.GPU, Facts(gpus=(), pci_devices=())) == (Status.OK, None)  # probed: no GPU, nothing missing


def test_cuda_section():
    assert status(Section.CUDA, Facts()) == (Status.NOT_APPLICABLE, "unknown; a CUDA toolkit is needed only to compile CUDA code")
    assert status(Section.CUDA, Facts(cuda_toolkits=())) == (Status.OK, None)


def test_cudnn_section():
    cudnn = Libraries(libcudnn=(Library("/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "8.9.7"),))
    assert status(Section.CUDNN, Facts(libraries=cudnn)) == (Status.OK, None)
    assert status(Section.CUDNN, Facts(libraries=Libraries(libcudnn=()))) == (Status.OK, None)  # probed: none
    assert status(Section.CUDNN, Facts(python_packages={"nvidia-cudnn-cu12": "9.1.0.70"})) == (Status.OK, None)
    assert status(Section.CUDNN, Facts(python_packages={"cudnn": "8.9.2"})) == (Status.OK, None)  # conda
    tf_gpu = Facts(gpus=A100, frameworks=Frameworks(tensorflow=TF_CUDA), python_packages={"numpy": "1.26.4"}, libraries=Libraries())
    assert status(Section.CUDNN, tf_gpu) == (Status.NOT_JUDGED, "TensorFlow needs a cuDNN and none is known: paste `pip list | grep nvidia` or the cuDNN version")
    # a TF whose build kind is unknown still needs one when it is named; a CPU build or no GPU does not
    assert status(Section.CUDNN, Facts(frameworks=Frameworks(tensorflow=TensorflowBuild(version="2.16.1"))))[0] is Status.NOT_JUDGED
    assert status(Section.CUDNN, Facts(frameworks=Frameworks(tensorflow=TensorflowBuild(is_cuda_build=True))))[0] is Status.NOT_JUDGED
    assert status(Section.CUDNN, Facts(frameworks=Frameworks(tensorflow=TensorflowBuild())))[0] is Status.NOT_APPLICABLE
    assert status(Section.CUDNN, Facts(frameworks=Frameworks(tensorflow=TensorflowBuild(version="2.16.1", is_cuda_build=False)))) == \
        (Status.NOT_APPLICABLE, "no framework that needs it is known")
    assert status(Section.CUDNN, Facts(gpus=(), pci_devices=(), frameworks=Frameworks(tensorflow=TF_CUDA)))[0] is Status.NOT_APPLICABLE
    assert status(Section.CUDNN, Facts(frameworks=Frameworks(torch=TorchBuild(version="2.7.1+cu128")))) == \
        (Status.NOT_APPLICABLE, "PyTorch wheels bring their own cuDNN")


def test_torch_section():
    assert status(Section.TORCH, Facts(frameworks=Frameworks(torch=TorchBuild(version="2.7.1+cu128")))) == (Status.OK, None)
    reason = "whether torch is a CUDA build is unknown: paste `python -c \"import torch; print(torch.__version__, torch.version.cuda)\"`"
    assert status(Section.TORCH, Facts(frameworks=Frameworks(torch=TorchBuild(version="2.7.1")))) == (Status.NOT_JUDGED, reason)
    # not described: "not installed" only where a probed package list says so
    assert status(Section.TORCH, Facts(python_packages={"numpy": "1.26.4"})) == (Status.NOT_APPLICABLE, "not installed")
    assert status(Section.TORCH, Facts(python_packages={"torch": None})) == (Status.NOT_APPLICABLE, "not installed")
    assert status(Section.TORCH, Facts(python_packages={"torch": "2.7.1"}, provenance={})) == (Status.NOT_APPLICABLE, "not in the evidence")
    assert status(Section.TORCH, Facts(python_packages={"numpy": "1.26.4"}, provenance={})) == (Status.NOT_APPLICABLE, "not in the evidence")
    assert status(Section.TORCH, Facts()) == (Status.NOT_APPLICABLE, "not in the evidence")


def test_tensorflow_section():
    assert status(Section.TENSORFLOW, Facts(frameworks=Frameworks(tensorflow=TF_CUDA))) == (Status.OK, None)
    reason = "whether TensorFlow is a CUDA build is unknown: paste `python -c \"import tensorflow as tf; print(tf.sysconfig.get_build_info())\"`"
    unknown_kind = Frameworks(tensorflow=TensorflowBuild(version="2.16.1"))
    assert status(Section.TENSORFLOW, Facts(frameworks=unknown_kind)) == (Status.NOT_JUDGED, reason)
    assert status(Section.TENSORFLOW, Facts(gpus=(), pci_devices=(), frameworks=unknown_kind)) == (Status.OK, None)  # no GPU: moot
    assert status(Section.TENSORFLOW, Facts(python_packages={})) == (Status.NOT_APPLICABLE, "not installed")


def test_environment_section():
    assert status(Section.ENVIRONMENT, Facts(host=Host(os="linux"))) == (Status.OK, None)
    assert status(Section.ENVIRONMENT, Facts()) == (Status.NOT_JUDGED, "OS, Python, WSL and container are unknown")
    assert status(Section.ENVIRONMENT, Facts(provenance={})) == (Status.NOT_APPLICABLE, "OS, Python, WSL and container are unknown")


def test_sections_gives_every_section_in_order():
    assert [r.section for r in sections((), Facts())] == list(Section)


def test_a_crashed_section_names_itself_and_an_installed_framework_not_probed_is_not_in_the_evidence():
    assert section_status(Section.CUDNN, (), Facts(), crashed=True).section is Section.CUDNN
    assert status(Section.TORCH, Facts(python_packages={"torch": "2.7.1"})) == (Status.NOT_APPLICABLE, "not in the evidence")
    assert status(Section.TENSORFLOW, Facts(python_packages={"tensorflow": "2.16.1"})) == (Status.NOT_APPLICABLE, "not in the evidence")
