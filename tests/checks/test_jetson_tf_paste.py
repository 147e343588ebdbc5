"""TensorFlow on a Jetson named in a form or in words: a version without NVIDIA's +nv tag came from PyPI and has
no CUDA for the Jetson's GPU (checks/platforms_jetson.py)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

# https://github.com/tensorflow/tensorflow/issues/62711 (TensorFlow's issue form)
FORM = "### TensorFlow version\n\n2.13.1\n\n### Mobile device\n\nNVIDIA Jetson AGX Orin\n"


def _ids(text: str) -> set[str]:
    return {f.id for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings}


def test_a_pypi_tensorflow_on_a_jetson_is_not_the_jetson_build():
    assert "jetson-tf-not-jetson-build" in _ids(FORM)
    assert "jetson-tf-not-jetson-build" in _ids("I run tensorflow 2.13.1 on my Jetson Orin Nano, no GPU is found.\n")


def test_nvidias_jetson_wheel_is_not_blamed():
    assert "jetson-tf-not-jetson-build" not in _ids(FORM.replace("2.13.1", "2.11.0+nv23.01"))
