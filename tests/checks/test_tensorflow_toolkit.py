"""tf-missing-gpu-libs from a CUDA toolkit of another minor (checks/tensorflow_toolkit.py), and the CUDA build of
TensorFlow derived from "installed with pip" (checks/derive.py), read end to end from pasted text."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.checks.tensorflow_toolkit import tf_toolkit_of_another_minor
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import (CudaToolkit, Facts, Finding, Fix, Frameworks, Gpu, Host, Libraries, Section, Severity,
                             TensorflowBuild)

# The TF bug template as tensorflow/tensorflow#38090 filled it in (Windows 10, TF 2.1.0 from pip, CUDA 10.2)
FORM = """**System information**
- OS Platform and Distribution: Windows 10
- TensorFlow installed from: {source}
- TensorFlow version (use command below): {version}
- Python version: 3.7.7
- CUDA/cuDNN version: {cuda}
- GPU model and memory: Nvidia GTX 1650
"""


def judged(text: str):
    return run_checks(read_evidence(text, "issue"), load_matrix(), "issue")


def toolkit_findings(report):
    return [f for f in report.findings if f.id == "tf-missing-gpu-libs"]


def test_a_pip_tensorflow_2_1_with_a_cuda_10_2_toolkit_on_windows_lacks_its_cuda_10_1_runtime():
    report = judged(FORM.format(source="pip", version="2.1.0", cuda="10.2.89"))
    (finding,) = toolkit_findings(report)
    assert finding.severity == Severity.WARNING
    assert finding.title == "tensorflow 2.1.0 needs the CUDA 10.1 runtime (cudart64_101.dll), but the CUDA toolkit here is 10.2"
    why = report.facts.provenance["frameworks.tensorflow.is_cuda_build"]
    assert why.startswith("derived: the package index's tensorflow 2.1.0 wheel for Windows x86_64 is the CUDA build (installed with pip")


def test_the_same_minor_another_source_or_a_release_after_the_windows_gpu_builds_say_nothing():
    assert toolkit_findings(judged(FORM.format(source="pip", version="2.1.0", cuda="10.1"))) == []
    assert toolkit_findings(judged(FORM.format(source="binary", version="2.1.0", cuda="10.2"))) == []  # conda's binary too
    assert toolkit_findings(judged(FORM.format(source="pip", version="2.11.0", cuda="10.2"))) == []  # no CUDA build on Windows
    assert toolkit_findings(judged(FORM.format(source="pip", version="1.15.0", cuda="10.2"))) == []  # 1.x: tensorflow-gpu was the GPU one
    assert toolkit_findings(judged(FORM.format(source="pip", version="2.4.0", cuda="11.0"))) == []  # CUDA 11: one soname per major


# -- the check itself, from Facts (mutation testing of checks/tensorflow_toolkit.py) ---------------------------------

MATRIX = load_matrix()
LINUX = Host(os="linux", arch="x86_64", python="3.7.7")
CUDA_101 = TensorflowBuild(version="2.1.0", is_cuda_build=True)  # the matrix: TF 2.1 is built for CUDA 10.1


def tf_facts(*toolkits: str | None, tf=CUDA_101, host=LINUX, **more) -> Facts:
    return Facts(host=host, frameworks=Frameworks(tensorflow=tf) if tf else None,
                 cuda_toolkits=tuple(CudaToolkit(version=v, path="/usr/local/cuda") for v in toolkits), **more)


def checked(facts: Facts, matrix=MATRIX) -> list[Finding]:
    return list(tf_toolkit_of_another_minor(facts, matrix))


def test_the_finding_whole_on_linux_with_two_toolkits_of_other_minors():
    assert checked(tf_facts("10.0.130", "10.2.89")) == [Finding(
        "tf-missing-gpu-libs", Severity.WARNING, Section.TENSORFLOW,
        "tensorflow 2.1.0 needs the CUDA 10.1 runtime (libcudart.so.10.1), but the CUDA toolkit here is 10.0.130, 10.2.89",
        ("tensorflow 2.1.0 is a CUDA 10.1 build", "CUDA toolkit: 10.0.130, 10.2.89",
         "before CUDA 11 each CUDA minor has its own runtime library, so another minor's toolkit does not provide it"),
        Fix("Install the CUDA 10.1 toolkit (beside the other) and cuDNN for CUDA 10.1, and put its libraries on the loader "
            "path; or install the TensorFlow release built for the CUDA you have",
            ("export LD_LIBRARY_PATH=/usr/local/cuda-10.1/lib64:$LD_LIBRARY_PATH   # Windows: add CUDA\\v10.1\\bin to PATH",),
            "https://www.tensorflow.org/install/source#gpu"))]


def test_the_windows_runtime_is_named_by_its_dll():
    (finding,) = checked(tf_facts("10.2", host=Host(os="Windows", arch="amd64")))
    assert finding.title == "tensorflow 2.1.0 needs the CUDA 10.1 runtime (cudart64_101.dll), but the CUDA toolkit here is 10.2"


def test_the_build_s_own_cuda_is_compared_by_its_minor():
    tf = TensorflowBuild(version="2.1.0", is_cuda_build=True, cuda="10.1.243")  # a patch level from build info
    assert checked(tf_facts("10.1.105", tf=tf)) == []
    (finding,) = checked(tf_facts("10.2.89", tf=tf))
    assert finding.title.startswith("tensorflow 2.1.0 needs the CUDA 10.1 runtime (libcudart.so.10.1)")
    assert finding.evidence[0] == "tensorflow 2.1.0 is a CUDA 10.1.243 build"


@pytest.mark.parametrize("facts", [
    tf_facts("10.1.243"),  # the same minor, patch level aside
    tf_facts("10.2", "10.1"),  # one of the toolkits is the build's minor
    tf_facts("10"),  # a toolkit version without its minor says nothing
    tf_facts(None),  # nor one without a version
    tf_facts(),
    tf_facts("10.2", tf=None),  # no TensorFlow
    tf_facts("10.2", tf=TensorflowBuild(version="2.1.0", is_cuda_build=False)),  # its CPU build
    tf_facts("10.2", tf=TensorflowBuild(version="2.1.0", is_cuda_build=True, cuda="10")),  # the build's minor unknown
    tf_facts("10.2", tf=TensorflowBuild(version="2.1.0", is_cuda_build=True, cuda="unknown")),
    tf_facts("10.2", tf=TensorflowBuild(version="2.4.0", is_cuda_build=True)),  # CUDA 11: one runtime per major
    tf_facts("10.2", gpus=()),  # no NVIDIA GPU: other checks say so
    tf_facts("10.2", libraries=Libraries(libcudart=())),  # the loader's CUDA runtimes are known: tensorflow_libs judges them
])
def test_nothing_to_say(facts):
    assert checked(facts) == []


def test_a_gpu_present_or_unknown_is_judged_and_no_matrix_judges_nothing():
    assert len(checked(tf_facts("10.2", gpus=(Gpu(name="GeForce GTX 1650"),)))) == 1
    assert len(checked(tf_facts("10.2"))) == 1  # the GPU list unknown
    assert checked(tf_facts("10.2"), None) == []


def test_a_cudnn_stated_alone_is_no_word_on_the_loaders_cuda_runtime():
    # https://github.com/tensorflow/tensorflow/issues/26298: "Cudnn 7.4.1.5 or 7.5" beside a CUDA 10.1 toolkit
    from gpudoctor.model import Library

    (f,) = checked(tf_facts("10.2", libraries=Libraries(libcudnn=(Library(path=None, version="7.5"),))))
    assert f.id == "tf-missing-gpu-libs"
