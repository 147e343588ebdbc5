"""The framework builds read from the facts and completed from the matrix (checks/_builds.py), and the one fix
builder the version rules share (issue 11: mutation score of checks/_builds.py)."""

from __future__ import annotations

import pytest

from gpudoctor.checks import _builds as b
from gpudoctor.model import Facts, Fix, Gpu, Host, Section
from tests.checks.test_version_rules import MATRIX, machine, tf, torch

A100 = (("NVIDIA A100-SXM4-40GB", "8.0"),)
TORCH_PREVIOUS = "https://pytorch.org/get-started/previous-versions/"
CU126 = "pip install torch==2.14.1 torchvision==0.29.1 --index-url https://download.pytorch.org/whl/cu126"


def only(facts):
    (build,) = b.builds(facts, MATRIX)
    return build


def summary(build):
    return (build.version, build.cuda, build.cudnn, build.arch_source, build.known)


@pytest.mark.parametrize(("facts", "expected"), [
    (machine(torch=torch("2.7.1+cu128", None)), ("2.7.1+cu128", "12.8", None, "matrix", True)),  # CUDA read from the tag
    (machine(torch=torch("2.7.1+cu128", "12.8", ["sm_80"])), ("2.7.1+cu128", "12.8", None, "snapshot", True)),
    (machine(torch=torch("2.7.1+cpu", "12.8")), ("2.7.1+cpu", None, None, None, True)),  # the cpu tag wins
    (machine(torch=torch("2.7.1+cu12", None)), ("2.7.1+cu12", None, None, None, True)),  # no cuXYZ tag: CUDA unknown
    (machine(torch=None, packages={"torch": "2.7.1"}), ("2.7.1", None, None, None, True)),
    (machine(torch=torch("9.9.9+cu128", "12.8")), ("9.9.9+cu128", "12.8", None, None, False)),  # newer than the matrix
])
def test_the_torch_build(facts, expected):
    build = only(facts)
    assert summary(build) == expected
    assert (build.framework, build.section, build.name, build.label) == ("torch", Section.TORCH, "PyTorch", f"torch {expected[0]}")


def test_a_torch_build_known_to_the_matrix_carries_its_variant_and_arch():
    build = only(machine(torch=torch("2.7.1+cu128", None)))
    assert build.torch_variant.tag == "cu128" and build.torch_release is not None and build.cuda_major == 12
    assert build.arch == ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120")
    assert build.arch_confirmed is True
    assert only(machine(torch=torch("2.7.1+cpu", None))).cuda_major is None


@pytest.mark.parametrize("facts", [
    machine(torch={"version": "2.7.1+rocm6.3", "hip": "6.3", "cuda": None}),  # ROCm: not judged by the CUDA rules
    machine(torch={"version": "nightly", "cuda": "12.8"}),
    machine(torch=None, packages={}),
    Facts(),
])
def test_no_torch_build_to_judge(facts):
    assert [x for x in b.builds(facts, MATRIX) if x.framework == "torch"] == []


@pytest.mark.parametrize(("facts", "expected"), [
    (machine(tf=tf("2.16.1", None, None)), ("2.16.1", "12.3", "8.9", "matrix", True)),  # CUDA and cuDNN from the release
    (machine(tf=tf("2.16.1", "12.3", "8")), ("2.16.1", "12.3", "8.9", "matrix", True)),  # a major-only cuDNN: the tested one
    (machine(tf=tf("2.16.1", "12.3", "8.9.7")), ("2.16.1", "12.3", "8.9.7", "matrix", True)),
    (machine(tf=tf("2.16.1", "12.3", "9")), ("2.16.1", "12.3", "9", "matrix", True)),  # another major is kept as reported
    (machine(tf=tf("2.16.1", None, None, is_cuda_build=False)), ("2.16.1", None, None, None, True)),
    (machine(tf={"version": "2.16.1", "is_cuda_build": True, "compute_capabilities": ["sm_80"]}), ("2.16.1", "12.3", "8.9", "snapshot", True)),
    (machine(tf=None, packages={"tensorflow-gpu": "1.13.1"}), ("1.13.1", "10.0", "7.4", "matrix", True)),  # the -gpu distribution
    (machine(tf=None, packages={"tensorflow": "1.13.1"}), ("1.13.1", None, None, None, True)),  # CUDA build unknown
    (machine(tf=None, packages={"tensorflow": "1.14.0", "tensorflow-gpu": "1.13.1"}), ("1.14.0", None, None, None, True)),
    (machine(tf=tf("3.99.0", "12.3", "8")), ("3.99.0", "12.3", "8", None, False)),
])
def test_the_tensorflow_build(facts, expected):
    build = only(facts)
    assert summary(build) == expected
    assert (build.framework, build.section, build.name) == ("tensorflow", Section.TENSORFLOW, "TensorFlow")


def test_both_builds_torch_first():
    facts = machine(torch=torch("2.7.1+cu128", "12.8"), tf=tf("2.16.1", "12.3", "8"))
    assert [x.framework for x in b.builds(facts, MATRIX)] == ["torch", "tensorflow"]


def test_host_readers():
    assert b.host_os(Facts(host=Host(os="Linux"))) == "linux"
    assert b.host_os(Facts(host=Host())) is None and b.host_os(Facts()) is None
    assert b.is_wsl(Facts(host=Host(wsl=2))) is True
    assert b.is_wsl(Facts(host=Host(wsl=None))) is False and b.is_wsl(Facts()) is False
    assert b.python_minor(Facts(host=Host(python="3.11.9"))) == "3.11"
    assert b.python_minor(Facts(host=Host(python="3.12"))) == "3.12"
    assert b.python_minor(Facts(host=Host(python="3"))) is None
    assert b.python_minor(Facts(host=Host(python="unknown"))) is None
    assert b.python_minor(Facts()) is None


def test_gpu_readers():
    assert b.gpu_cc(Gpu(name="NVIDIA A100-SXM4-40GB", compute_capability="8.0"), None) == "8.0"
    assert b.gpu_cc(Gpu(name="NVIDIA GeForce GTX 1080"), MATRIX) == "6.1"  # from its name
    assert b.gpu_cc(Gpu(name="NVIDIA GeForce GTX 1080"), None) is None
    assert b.gpu_cc(Gpu(), MATRIX) is None
    assert b.gpu_name(Gpu(index=1, name="Tesla T4")) == "GPU 1 (Tesla T4)"
    assert b.gpu_name(Gpu()) == "GPU ? (unknown model)"


@pytest.mark.parametrize(("driver", "build", "older"), [
    ("12.4", "12.6", True), ("12.6", "12.6", False), ("12.6.1", "12.6.3", False), ("13.0", "12.8", False), ("11.8", "12.0", True),
    (None, "12.6", False), ("12.4", None, False), ("x", "12.6", False),
])
def test_older_cuda_compares_major_and_minor(driver, build, older):
    assert b.older_cuda(driver, build) is older


def test_install_fix_installs_the_newest_build_that_fits_after_the_first_commands():
    facts = machine(driver="550.54.15", driver_cuda="12.4", gpus=A100)
    fix = b.install_fix(facts, MATRIX, "torch", "Reinstall", extra="then restart", first=("pip uninstall -y torch",))
    assert fix == Fix("Reinstall: install torch 2.14.1+cu126; then restart", ("pip uninstall -y torch", CU126), TORCH_PREVIOUS)


def test_install_fix_prefers_a_version_that_fits_and_falls_back_to_the_newest():
    facts = machine(driver="550.54.15", driver_cuda="12.4", gpus=A100)
    assert b.install_fix(facts, MATRIX, "torch", "Reinstall", prefer_version="2.4.1") == Fix(
        "Reinstall: install torch 2.4.1+cu121",
        ("pip install torch==2.4.1 torchvision==0.19.1 --index-url https://download.pytorch.org/whl/cu121",), TORCH_PREVIOUS)
    assert b.install_fix(facts, MATRIX, "torch", "Reinstall", prefer_version="1.0.0").commands == (CU126,)


def test_install_fix_says_when_another_python_is_needed():
    facts = machine(driver="550.54.15", driver_cuda="12.4", gpus=A100, python="3.14.0")
    assert b.install_fix(facts, MATRIX, "tensorflow", "Install", extra="x") == Fix(
        "Install: install tensorflow 2.21.0 (and-cuda) in a Python 3.13 environment (this Python 3.14 has no wheel of it); x",
        ("pip install 'tensorflow[and-cuda]==2.21.0'",), "https://www.tensorflow.org/install/pip")


def test_install_fix_offers_no_command_when_nothing_fits():
    facts = machine(driver="340.108", driver_cuda="6.5", gpus=(("GeForce GTX 680", "3.0"),))
    assert b.solve_for(facts, MATRIX, "torch") == (None, "no build of any torch release fits this machine")
    assert b.install_fix(facts, MATRIX, "torch", "Reinstall", extra="then restart", first=("pip uninstall -y torch",)) == Fix(
        "Reinstall. No torch build fits this machine as it is (no build of any torch release fits this machine); then restart",
        (), TORCH_PREVIOUS)
    assert b.install_fix(facts, MATRIX, "torch", "Reinstall").summary.endswith("fits this machine)")


def test_install_fix_without_a_matrix_keeps_only_the_first_commands():
    assert b.install_fix(Facts(), None, "tensorflow", "Reinstall", first=("x",)) == Fix("Reinstall", ("x",), "https://www.tensorflow.org/install/pip")
    assert b.install_fix(Facts(), None, "torch", "Reinstall").url == TORCH_PREVIOUS
