"""Issue 20 classes 1 and 2 pinned for mutation testing: an arch list without a version decides the arch rule
(arch._arch_list_only and the PTX path that skips the driver verdict when the build's CUDA is unknown), and the cuDNN
section's status when a cuDNN is present, absent (a whole package list, an empty loader list) or unknown
(coverage._cudnn)."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import arch as a
from gpudoctor.checks import coverage as c
from gpudoctor.checks._builds import Build
from gpudoctor.model import Finding, Fix, Section, Severity, Status
from tests.checks.test_version_rules import MATRIX, machine, tf, torch

RTX5090 = (("NVIDIA GeForce RTX 5090", "12.0"),)
A100 = (("NVIDIA A100-SXM4-40GB", "8.0"),)
GPU0 = "GPU 0 (NVIDIA GeForce RTX 5090)"
SASS_RULE = "a GPU runs SASS of its own major with an equal or lower minor, or PTX of an equal or lower compute capability"
TORCH_FIX = Fix("Install a PyTorch build compiled for compute capability 12.0: install torch 2.11.0+cu128",
                ("pip install torch==2.11.0 torchvision==0.26.0 --index-url https://download.pytorch.org/whl/cu128",),
                "https://pytorch.org/get-started/previous-versions/")


def torch_list(arch, version=None, cuda=None):
    return {"version": version, "cuda": cuda, "hip": None, "arch_list": arch}


def on_5090(**kw):
    return machine(driver="570.86", driver_cuda="12.8", gpus=RTX5090, **kw)


# -- arch._arch_list_only --------------------------------------------------------------------------------------------


def test_a_torch_arch_list_without_a_version_decides_the_rule():
    (f,) = a.gpu_arch_not_in_build(on_5090(torch=torch_list(["sm_50", "sm_80", "sm_90"])), MATRIX)
    assert f == Finding(
        "gpu-arch-not-in-build", Severity.ERROR, Section.TORCH,
        f"torch (version unknown) has no code for {GPU0} (compute capability 12.0)",
        (f"{GPU0} has compute capability 12.0", "torch (version unknown) is compiled for sm_50 sm_80 sm_90 (read from the installed build)", SASS_RULE),
        TORCH_FIX)


def test_a_tensorflow_compute_capability_list_without_a_version_decides_the_rule():
    tf_caps = {"version": None, "is_cuda_build": None, "cuda": None, "cudnn": None, "compute_capabilities": ["3.5", "8.0"]}
    (f,) = a.gpu_arch_not_in_build(on_5090(tf=tf_caps), MATRIX)
    assert f == Finding(
        "gpu-arch-not-in-build", Severity.ERROR, Section.TENSORFLOW,
        f"tensorflow (version unknown) has no code for {GPU0} (compute capability 12.0)",
        (f"{GPU0} has compute capability 12.0", "tensorflow (version unknown) is compiled for 3.5 8.0 (read from the installed build)", SASS_RULE),
        Fix("Install a TensorFlow build compiled for compute capability 12.0: install tensorflow 2.21.0 (and-cuda)",
            ("pip install 'tensorflow[and-cuda]==2.21.0'",), "https://www.tensorflow.org/install/pip"))


def test_ptx_only_with_the_build_s_cuda_unknown_skips_the_driver_verdict():
    (f,) = a.gpu_arch_not_in_build(on_5090(torch=torch_list(["sm_80", "compute_90"])), MATRIX)
    assert f == Finding(
        "gpu-arch-ptx-only", Severity.WARNING, Section.TORCH,
        f"torch (version unknown) runs on {GPU0} only through PTX JIT: the first start compiles kernels (slow)",
        (f"{GPU0} has compute capability 12.0",
         "torch (version unknown) is compiled for sm_80 compute_90 (read from the installed build): no SASS for 12.0, PTX for a lower compute capability"),
        Fix("For native code on 12.0 (no JIT on first start): install torch 2.11.0+cu128",
            ("pip install torch==2.11.0 torchvision==0.26.0 --index-url https://download.pytorch.org/whl/cu128",),
            "https://pytorch.org/get-started/previous-versions/"))


def test_arch_list_only_builds():
    assert a._arch_list_only(on_5090(torch=torch_list(["compute_90"], cuda="12.1")), MATRIX) == [
        Build("torch", "(version unknown)", "12.1", None, ("compute_90",), "snapshot", True, False)]
    assert a._arch_list_only(on_5090(torch=torch_list(["sm_90"])), MATRIX) == [
        Build("torch", "(version unknown)", "(CUDA version unknown)", None, ("sm_90",), "snapshot", True, False)]
    caps = {"version": None, "cuda": "12.2", "compute_capabilities": ["8.0"]}
    assert a._arch_list_only(on_5090(tf=caps), MATRIX) == [
        Build("tensorflow", "(version unknown)", "12.2", None, ("8.0",), "snapshot", True, False)]
    both = a._arch_list_only(on_5090(torch=torch_list(["sm_90"]), tf={"version": None, "compute_capabilities": ["8.0"]}), MATRIX)
    assert [(x.framework, x.cuda) for x in both] == [("torch", "(CUDA version unknown)"), ("tensorflow", "(CUDA version unknown)")]


@pytest.mark.parametrize("frameworks", [
    {"torch": torch_list(["gfx90a"])},  # a ROCm build's list proves no CUDA build
    {"torch": torch_list([])},
    {"torch": torch_list(None)},
    {"torch": torch_list(["sm_80"], version="2.3.0+cu121", cuda="12.1")},  # a build the version rules know already
    {"tf": {"version": None, "compute_capabilities": []}},
    {"tf": tf("2.15.0", "12.2", "8")},
    {},
])
def test_no_arch_list_build_where_the_list_proves_nothing_or_the_build_is_known(frameworks):
    facts = on_5090(**frameworks)
    assert a._arch_list_only(facts, MATRIX) == []
    assert a._arch_list_only(dataclasses.replace(facts, frameworks=None), MATRIX) == []


# -- coverage._cudnn ---------------------------------------------------------------------------------------------------

TF = tf("2.16.1", "12.3", "8")
NO_WHEEL = {"tensorflow": "2.16.1", "nvidia-cudnn-cu12": None}
ERROR_TEXT = "no cuDNN: none on the loader path and no nvidia-cudnn wheel, and TensorFlow needs one"
UNKNOWN_LOADER = ("no nvidia-cudnn wheel in the whole package list; whether a system cuDNN is on the loader path is unknown: "
                  "paste `ldconfig -p | grep cudnn`")
NONE_KNOWN = "TensorFlow needs a cuDNN and none is known: paste `pip list | grep nvidia` or the cuDNN version"


@pytest.mark.parametrize(("facts", "status"), [
    (machine(gpus=A100, tf=TF, libcudnn=[("/usr/lib/libcudnn.so.8", "8.9.7")]), (Status.OK, None)),
    (machine(gpus=A100, tf=TF, packages={"nvidia-cudnn-cu12": "8.9.7.29"}), (Status.OK, None)),
    (machine(gpus=A100, tf=TF, packages={"cudnn": "8.9.7"}), (Status.OK, None)),
    (machine(gpus=A100, tf=TF, packages={"nvidia-cudnn-cu12": None, "nvidia-cudnn-cu11": "8.6"}), (Status.OK, None)),
    (machine(gpus=A100, tf=TF, packages=NO_WHEEL, libcudnn=[]), (Status.ERROR, ERROR_TEXT)),
    # the GPU unknown: a warning, as tf-missing-gpu-libs says it then (first pinned as an error: fixed)
    (dataclasses.replace(machine(tf=TF, packages=NO_WHEEL, libcudnn=[]), gpus=None), (Status.WARNING, ERROR_TEXT)),
    (machine(gpus=(), tf=TF, packages=NO_WHEEL, libcudnn=[]), (Status.OK, None)),  # probed: no GPU, nothing needs it
    (machine(gpus=A100, tf=TF, packages=NO_WHEEL), (Status.NOT_JUDGED, UNKNOWN_LOADER)),
    (machine(gpus=A100, tf=TF, packages={"cudnn": None, "tensorflow": "2.16.1"}), (Status.NOT_JUDGED, NONE_KNOWN)),
    (machine(gpus=A100, tf=TF, libcudnn=[]), (Status.NOT_JUDGED, NONE_KNOWN)),
    (machine(gpus=(), tf=TF, libcudnn=[]), (Status.OK, None)),
    (machine(gpus=A100, tf=tf("2.16.1", None, None, is_cuda_build=False), packages=NO_WHEEL, libcudnn=[]), (Status.OK, None)),
    (machine(gpus=A100, torch=torch("2.3.1+cu121", "12.1"), packages={"nvidia-cudnn-cu12": None}), (Status.OK, None)),
    (machine(gpus=A100, torch=torch("2.3.1+cu121", "12.1"), libcudnn=[]), (Status.OK, None)),
    (machine(gpus=A100, tf=TF), (Status.NOT_JUDGED, NONE_KNOWN)),
    (machine(gpus=A100, torch=torch("2.3.1+cu121", "12.1")), (Status.NOT_APPLICABLE, "PyTorch wheels bring their own cuDNN")),
    (machine(gpus=A100), (Status.NOT_APPLICABLE, "no framework that needs it is known")),
])
def test_the_cudnn_section(facts, status):
    assert c._cudnn(facts) == status
