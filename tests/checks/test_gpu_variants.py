"""gpu-package-cpu-variant from a package list (checks/gpu_variants.py, pairs in matrices/accelerators.toml)."""

from __future__ import annotations

import pytest

from gpudoctor.checks.gpu_variants import gpu_package_cpu_variant
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Finding, Fix, Gpu, Host, Section, Severity

MATRIX = load_matrix()
GPU = (Gpu(index=0, name="NVIDIA GeForce RTX 3090"),)


def run(packages: dict, **facts) -> list:
    return list(gpu_package_cpu_variant(Facts(python_packages=packages, **facts), MATRIX))


def test_the_pairs_come_from_the_matrix():
    assert MATRIX.platform_tables.accelerators.cpu_variants == {
        "onnxruntime": "onnxruntime-gpu", "paddlepaddle": "paddlepaddle-gpu", "mxnet": "mxnet-cu*", "cntk": "cntk-gpu"}


def test_both_installed_is_a_warning_whatever_the_gpu():
    # https://github.com/PaddlePaddle/Paddle/issues/38265: paddlepaddle and paddlepaddle-gpu in one environment
    (f,) = run({"paddlepaddle": "2.2.1", "paddlepaddle-gpu": "2.2.1"})
    assert (f.id, f.severity) == ("gpu-package-cpu-variant", Severity.WARNING)
    assert f.evidence == ("paddlepaddle 2.2.1", "paddlepaddle-gpu 2.2.1")
    assert f.fix.commands == ("pip uninstall -y paddlepaddle paddlepaddle-gpu && pip install paddlepaddle-gpu",)
    (m,) = run({"mxnet": "1.9.1", "mxnet-cu112": "1.9.1"})
    assert m.evidence[1] == "mxnet-cu112 1.9.1"


@pytest.mark.parametrize(("gpus", "severity"), [(GPU, Severity.WARNING), (None, Severity.WARNING)])
def test_the_cpu_build_alone_on_a_gpu_machine(gpus, severity):
    # https://github.com/PaddlePaddle/PaddleOCR/issues/16093: "paddlepaddle==3.1.0 ... use cpu for inference"
    (f,) = run({"paddlepaddle": "3.1.0"}, gpus=gpus)
    assert f.severity == severity
    assert f.title.startswith("paddlepaddle is the CPU-only build: its CUDA build is the separate package paddlepaddle-gpu")
    assert ("not known" in f.title) == (gpus is None)


def test_no_finding_where_the_cpu_build_is_right_or_absent():
    assert run({"onnxruntime": "1.16.0"}, gpus=(), pci_devices=()) == []  # no NVIDIA GPU
    assert run({"onnxruntime": "1.16.0"}, host=Host(os="darwin")) == []  # no CUDA on macOS
    assert run({"onnxruntime-gpu": "1.16.0"}, gpus=GPU) == []
    assert run({"onnxruntime": None, "onnxruntime-gpu": "1.16.0"}, gpus=GPU) == []  # listed as absent
    assert run({"torch": "2.4.0"}, gpus=GPU) == []
    assert list(gpu_package_cpu_variant(Facts(python_packages={"onnxruntime": "1.16.0"}, gpus=GPU), None)) == []


def both(cpu: str, gpu: str, version: str) -> Finding:
    return Finding(
        "gpu-package-cpu-variant", Severity.WARNING, Section.ENVIRONMENT,
        f"{cpu} (the CPU-only build) is installed beside {gpu}: both provide the same module, and the CPU one's files win",
        (f"{cpu} {version}", f"{gpu} {version}"),
        Fix(f"Uninstall both, then install only {gpu}", (f"pip uninstall -y {cpu} {gpu} && pip install {gpu}",)))


def test_both_installed_pinned():
    assert run({"onnxruntime": "1.16.0", "onnxruntime-gpu": "1.16.0"}) == [both("onnxruntime", "onnxruntime-gpu", "1.16.0")]


def test_the_cpu_build_alone_pinned_with_the_gpu_glob_spelled_out():
    # mxnet's CUDA builds are mxnet-cu112 and the like: the glob is named as a pattern in the evidence, with XXX in the fix
    assert run({"mxnet": "1.9.1"}, gpus=GPU) == [Finding(
        "gpu-package-cpu-variant", Severity.WARNING, Section.ENVIRONMENT,
        "mxnet is the CPU-only build: its CUDA build is the separate package mxnet-cuXXX",
        ("mxnet 1.9.1", "no mxnet-cu* installed"),
        Fix("Uninstall mxnet and install mxnet-cuXXX for your CUDA", ("pip uninstall -y mxnet && pip install mxnet-cuXXX",)))]


def test_another_package_beside_the_cpu_build_is_not_its_gpu_build():
    (f,) = run({"onnxruntime": "1.16.0", "torch": "2.4.0", "rembg": "2.0.50"}, gpus=GPU)
    assert f.title.startswith("onnxruntime is the CPU-only build") and f.evidence == ("onnxruntime 1.16.0", "no onnxruntime-gpu installed")


def test_each_pair_is_judged_after_another_has_spoken():
    # both of one pair, then the CPU build alone of the next; and a pair skipped for want of a GPU, then both of the next
    found = run({"onnxruntime": "1.16.0", "onnxruntime-gpu": "1.16.0", "paddlepaddle": "2.5.0"}, gpus=GPU)
    assert [f.title.split(" ")[0] for f in found] == ["onnxruntime", "paddlepaddle"]
    assert found[0] == both("onnxruntime", "onnxruntime-gpu", "1.16.0")
    assert run({"onnxruntime": "1.16.0", "paddlepaddle": "2.5.0", "paddlepaddle-gpu": "2.5.0"}, gpus=(), pci_devices=()) == [
        both("paddlepaddle", "paddlepaddle-gpu", "2.5.0")]


def test_the_cpu_build_alone_where_the_gpu_is_not_known_says_so_in_the_title():
    (f,) = run({"paddlepaddle": "3.1.0"})
    assert f.title == ("paddlepaddle is the CPU-only build: its CUDA build is the separate package paddlepaddle-gpu"
                       " (whether this machine has an NVIDIA GPU is not known)")
