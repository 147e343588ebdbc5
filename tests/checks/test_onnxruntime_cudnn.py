"""onnxruntime-gpu's cuDNN major against the cuDNN installed (checks/cudnn_majors.onnxruntime_cudnn_major; the
releases' majors in matrices/accelerators.toml [onnxruntime], from ONNX Runtime's requirements page)."""

from __future__ import annotations

import pytest

from gpudoctor.checks.cudnn_majors import onnxruntime_cudnn_major
from gpudoctor.matrix import load_matrix
from gpudoctor.model import CudaToolkit, Facts, Finding, Fix, Section, Severity

MATRIX = load_matrix()


def run(packages: dict, **facts) -> list:
    return list(onnxruntime_cudnn_major(Facts(python_packages=packages, **facts), MATRIX))


def test_a_cudnn9_release_beside_only_cudnn8():
    # https://github.com/microsoft/onnxruntime/issues/22198: torch pinned nvidia-cudnn-cu12 8.9, onnxruntime-gpu 1.19.2
    (f,) = run({"onnxruntime-gpu": "1.19.2", "nvidia-cudnn-cu12": "8.9.2.26"})
    assert (f.id, f.severity) == ("cudnn-version-mismatch", Severity.ERROR)
    assert f.title == "onnxruntime-gpu 1.19.2 is built with cuDNN 9, and only cuDNN 8 is installed"
    assert f.fix.commands == ("pip install 'onnxruntime-gpu<=1.18.0'",)


REQUIREMENTS = "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements"
NOT_COMPATIBLE = "ONNX Runtime built with cuDNN 8.x is not compatible with cuDNN 9.x, and vice versa (its requirements page)"


@pytest.mark.parametrize(("release", "built", "cudnn", "fix_built", "fix_release", "pin"), [
    # https://github.com/microsoft/onnxruntime/issues/22198 again, the whole finding
    ("1.19.2", 9, "8.9.2.26", 8, "1.18.0 or older", "pip install 'onnxruntime-gpu<=1.18.0'"),
    ("1.18.0", 8, "9.1.0.70", 9, "1.19 or newer", "pip install 'onnxruntime-gpu>=1.19'"),
])
def test_a_release_beside_only_the_other_cudnn_major_pinned(release, built, cudnn, fix_built, fix_release, pin):
    assert run({"onnxruntime-gpu": release, "nvidia-cudnn-cu12": cudnn}) == [Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
        f"onnxruntime-gpu {release} is built with cuDNN {built}, and only cuDNN {fix_built} is installed",
        (f"onnxruntime-gpu {release}", f"nvidia-cudnn-cu12 {cudnn}", NOT_COMPATIBLE),
        Fix(f"Install the onnxruntime-gpu release built for cuDNN {fix_built} ({fix_release}), or cuDNN {built} in an "
            "environment of its own", (pin,), REQUIREMENTS))]


def test_the_release_boundaries():
    # 1.19.0 is the first cuDNN 9 release, 1.18.0 the last cuDNN 8 one; 1.18.1 had builds of both, so says nothing
    (first9,) = run({"onnxruntime-gpu": "1.19.0", "nvidia-cudnn-cu12": "8.9.2.26"})
    assert first9.title == "onnxruntime-gpu 1.19.0 is built with cuDNN 9, and only cuDNN 8 is installed"
    assert run({"onnxruntime-gpu": "1.18.1", "nvidia-cudnn-cu12": "9.1.0.70"}) == []
    assert run({"onnxruntime-gpu": "1.18.1", "nvidia-cudnn-cu12": "8.9.2.26"}) == []
    # a release is compared by its first three parts: a fourth (a local build's) does not move it past 1.18.0
    (fourth,) = run({"onnxruntime-gpu": "1.18.0.1", "nvidia-cudnn-cu12": "9.1.0.70"})
    assert fourth.title == "onnxruntime-gpu 1.18.0.1 is built with cuDNN 8, and only cuDNN 9 is installed"


def test_a_cudnn8_release_beside_only_cudnn9():
    (f,) = run({"onnxruntime-gpu": "1.17.1", "nvidia-cudnn-cu12": "9.1.0.70"})
    assert f.title == "onnxruntime-gpu 1.17.1 is built with cuDNN 8, and only cuDNN 9 is installed"
    assert f.fix.commands == ("pip install 'onnxruntime-gpu>=1.19'",)


@pytest.mark.parametrize(("packages", "toolkits"), [
    ({"onnxruntime-gpu": "1.19.2", "nvidia-cudnn-cu12": "9.1.0.70"}, None),  # the major it needs
    ({"onnxruntime-gpu": "1.16.3", "nvidia-cudnn-cu11": "8.9.2.26"}, None),
    ({"onnxruntime-gpu": "1.18.1", "nvidia-cudnn-cu12": "8.9.2.26"}, None),  # 1.18.1 had builds of both majors
    ({"onnxruntime-gpu": "1.19.2", "nvidia-cudnn-cu11": "8.9.2.26"}, None),  # a CUDA 11 build of 1.19 uses cuDNN 8
    ({"onnxruntime-gpu": "1.19.2", "nvidia-cudnn-cu12": "8.9.2.26"}, (CudaToolkit(version="11.8"),)),
    ({"onnxruntime-gpu": "1.19.2"}, None),  # no cuDNN known
    ({"onnxruntime": "1.19.2", "nvidia-cudnn-cu12": "8.9.2.26"}, None),  # the CPU package
    ({"onnxruntime-gpu": "not-a-version", "nvidia-cudnn-cu12": "8.9.2.26"}, None),
])
def test_nothing_to_say(packages, toolkits):
    assert run(packages, cuda_toolkits=toolkits) == []


def test_no_matrix_judges_nothing():
    facts = Facts(python_packages={"onnxruntime-gpu": "1.19.2", "nvidia-cudnn-cu12": "8.9.2.26"})
    assert list(onnxruntime_cudnn_major(facts, None)) == []
