"""Regression (found by mutation testing for issue 20): with the GPU unknown, tf-missing-gpu-libs said "Install
TensorFlow with its CUDA libraries (the `and-cuda` extra): install tensorflow 2.16.1 (cpu)" and offered
`pip install tensorflow==2.16.1`, which installs no CUDA library: the solver chose for a machine without a GPU. The fix
now installs the `and-cuda` extra whether or not the GPU is known."""

from __future__ import annotations

import dataclasses

from gpudoctor.checks import tensorflow_libs as t
from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Finding, Fix, Section, Severity
from tests.checks.test_version_rules import MATRIX, machine, tf

SUMMARY = "Install TensorFlow with its CUDA libraries (the `and-cuda` extra)"
PIP_URL = "https://www.tensorflow.org/install/pip"
ABSENT = {"tensorflow": "2.16.1", "nvidia-cudnn-cu12": None, "nvidia-cuda-runtime-cu12": None}


def gpu_unknown(**kw):
    return dataclasses.replace(machine(tf=tf("2.16.1", "12.3", "8"), **kw), gpus=None)


def test_wheels_absent_with_the_gpu_unknown_installs_the_and_cuda_extra():
    (f,) = t.tf_missing_gpu_libs(gpu_unknown(packages=ABSENT), MATRIX)
    assert f == Finding(
        "tf-missing-gpu-libs", Severity.WARNING, Section.TENSORFLOW,
        "tensorflow 2.16.1 has no CUDA libraries from pip (`tensorflow[and-cuda]`): unless a system CUDA 12.3 and cuDNN are on the "
        "loader path, it runs on the CPU",
        ("tensorflow 2.16.1 is a CUDA 12.3 build (cuDNN 8.9)",
         "no nvidia-cuda-runtime-cu12 wheel in the whole package list (whether a system libcudart is on the loader path is not known)",
         "no nvidia-cudnn-cu12 wheel in the whole package list (whether a system libcudnn is on the loader path is not known)"),
        Fix(SUMMARY, ("pip install 'tensorflow[and-cuda]==2.16.1'",), PIP_URL))


def test_libraries_proven_missing_with_the_gpu_unknown_installs_the_and_cuda_extra():
    (f,) = t.tf_missing_gpu_libs(gpu_unknown(packages={"tensorflow": "2.16.1"}, libcudnn=[], libcudart=[]), MATRIX)
    assert f == Finding(
        "tf-missing-gpu-libs", Severity.WARNING, Section.TENSORFLOW,
        "tensorflow 2.16.1 cannot use a GPU: the CUDA libraries it was built for are not installed (if this machine has an NVIDIA GPU)",
        ("tensorflow 2.16.1 is a CUDA 12.3 build (cuDNN 8.9)",
         "no libcudart.so.12 found by the loader and no nvidia-cuda-runtime-cu12 wheel installed",
         "no libcudnn.so.8 found by the loader and no nvidia-cudnn-cu12 wheel installed"),
        Fix(SUMMARY, ("pip install 'tensorflow[and-cuda]==2.16.1'",), PIP_URL))


def test_a_version_without_its_patch_installs_the_extra_unpinned():
    facts = dataclasses.replace(machine(tf=tf("2.16", "12.3", "8"), packages={"tensorflow": "2.16", "nvidia-cudnn-cu12": None,
                                                                             "nvidia-cuda-runtime-cu12": None}), gpus=None)
    (f,) = t.tf_missing_gpu_libs(facts, MATRIX)
    assert f.fix == Fix(SUMMARY, ("pip install 'tensorflow[and-cuda]'",), PIP_URL)


def test_a_pasted_pip_list_without_gpu_facts_reports_the_and_cuda_install():
    pip_list = "Package    Version\n---------- -------\nkeras      3.3.3\ntensorflow 2.16.1\n"
    report = run_checks(read_evidence("I run this on Ubuntu 22.04 with a fresh venv.\n" + pip_list), load_matrix(), "paste")
    (f,) = [f for f in report.findings if f.id == "tf-missing-gpu-libs"]
    assert f.fix.commands == ("pip install 'tensorflow[and-cuda]==2.16.1'",) and "(cpu)" not in f.fix.summary
