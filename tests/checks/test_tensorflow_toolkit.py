"""tf-missing-gpu-libs from a CUDA toolkit of another minor (checks/tensorflow_toolkit.py), and the CUDA build of
TensorFlow derived from "installed with pip" (checks/derive.py), read end to end from pasted text."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Severity

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
