"""Issue 20, class 3: TensorFlow's library rules in the era they were built for, with or without the GPU known."""

from __future__ import annotations

import json

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Severity


def _findings(tf: dict, libraries: dict) -> dict[str, Severity]:
    snapshot = {"host": {"os": "linux"}, "frameworks": {"tensorflow": {"is_cuda_build": True, **tf}}, "libraries": libraries}
    report = run_checks(read_evidence(json.dumps(snapshot)), load_matrix())
    return {f.id: f.severity for f in report.findings}


def test_cudnn_of_another_major_than_the_build():  # TF 1.3 built with cuDNN 5.1, cuDNN 6.0 loaded
    assert _findings({"version": "1.3.0", "cudnn": "5.1"}, {"libcudnn": [{"path": "/usr/lib/libcudnn.so.6", "version": "6.0.21"}]}) \
        == {"cudnn-version-mismatch": Severity.ERROR}


@pytest.mark.parametrize(("version", "loaded", "expected"), [
    ("1.4.0", "7.1.4", {"cudnn-version-mismatch": Severity.ERROR}),  # the exact-minor era (tensorflow.toml)
    ("1.6.0", "7.1.2", {"cudnn-version-mismatch": Severity.ERROR}),  # tensorflow/tensorflow#17566
    ("1.12.0", "7.4.1", {}),  # by 1.12 a newer minor is accepted (tensorflow/tensorflow#23715)
    ("1.4.0", "7.0.5", {}),  # the minor it was built with
])
def test_the_exact_minor_era(version, loaded, expected):
    cudnn = "7.0" if version != "1.12.0" else "7.2"
    assert _findings({"version": version, "cudnn": cudnn}, {"libcudnn": [{"path": "/usr/lib/libcudnn.so.7", "version": loaded}]}) == expected


def test_a_cuda_10_0_build_where_only_cuda_9_0_exists_with_the_gpu_unknown():
    found = _findings({"version": "1.13.1"}, {"libcudart": [{"path": "/usr/local/cuda-9.0/lib64/libcudart.so.9.0", "version": "9.0.176"}]})
    assert found == {"tf-missing-gpu-libs": Severity.WARNING}  # an error once a GPU is known
