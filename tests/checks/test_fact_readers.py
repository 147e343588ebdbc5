"""The small readers the checks share (checks/_facts.py): unknown (None) and absent kept apart, a torch build told
from every key that can tell it, and cuDNN integers read as versions."""

from __future__ import annotations

import pytest

from gpudoctor.checks._facts import (
    cudnn_version,
    extension_toolkit,
    driver_loaded,
    env,
    gpu_implied_but_unlisted,
    gpu_label,
    gpu_presence,
    gpus,
    package,
    symptoms,
    torch_build_kind,
)
from gpudoctor.model import CudaToolkit, Driver, Facts, Gpu, Host, PciDevice, Symptom, TorchBuild

GPU = Gpu(index=0, name="NVIDIA H100")
NVIDIA_BUS = PciDevice(bus_id="0000:01:00.0", vendor_id="0x10de", driver="nvidia")


@pytest.mark.parametrize(("facts", "present"), [
    (Facts(gpus=(GPU,)), True),
    (Facts(gpus=(), pci_devices=(NVIDIA_BUS,)), True),
    (Facts(pci_devices=(NVIDIA_BUS,)), True),
    (Facts(driver=Driver(version="570.86.15")), True),
    (Facts(driver=Driver(kernel_module="nvidia")), True),
    (Facts(gpus=(), pci_devices=()), False),
    (Facts(gpus=None, pci_devices=()), False),
    (Facts(gpus=(), pci_devices=None), False),
    (Facts(), None),
    (Facts(driver=Driver(kernel_module="nouveau")), None),
    (Facts(driver=Driver()), None),
    (Facts(gpus=(), pci_devices=(), driver=Driver(nvml_error="NVML Shared Library Not Found")), False),
])
def test_gpu_presence_keeps_unknown_and_absent_apart(facts, present):
    assert gpu_presence(facts) is present


def test_a_driver_implies_a_gpu_only_when_no_gpu_list_says_so():
    assert gpu_implied_but_unlisted(Facts(driver=Driver(version="570.86.15"))) == (
        "NVIDIA driver 570.86.15 reports its version, so an NVIDIA GPU is present (the GPU list is unknown)")
    assert gpu_implied_but_unlisted(Facts(driver=Driver(cuda_version="12.8"))) == (
        "the NVIDIA driver reports CUDA 12.8, so an NVIDIA GPU is present (the GPU list is unknown)")
    assert gpu_implied_but_unlisted(Facts(driver=Driver(kernel_module="nvidia"))) == (
        "the nvidia kernel module is loaded, so an NVIDIA GPU is present (the GPU list is unknown)")
    assert gpu_implied_but_unlisted(Facts(driver=Driver(kernel_module="nouveau"))) is None
    assert gpu_implied_but_unlisted(Facts()) is None
    assert gpu_implied_but_unlisted(Facts(gpus=(GPU,), driver=Driver(version="570.86.15"))) is None
    assert gpu_implied_but_unlisted(Facts(pci_devices=(NVIDIA_BUS,), driver=Driver(version="570.86.15"))) is None
    assert gpu_implied_but_unlisted(Facts(gpus=(), pci_devices=(), driver=Driver(version="570.86.15"))) is not None


def test_driver_loaded_needs_a_version_or_the_nvidia_module():
    assert driver_loaded(Facts(driver=Driver(version="570.86.15"))) is True
    assert driver_loaded(Facts(driver=Driver(kernel_module="nvidia"))) is True
    assert driver_loaded(Facts(driver=Driver(kernel_module="nouveau"))) is False
    assert driver_loaded(Facts(driver=Driver())) is False
    assert driver_loaded(Facts()) is False


@pytest.mark.parametrize(("torch", "kind"), [
    (TorchBuild(build="xpu", cuda="12.6"), "xpu"),  # the build key wins over everything else
    (TorchBuild(cuda="12.6", hip="6.2"), "cuda"),
    (TorchBuild(hip="6.2"), "rocm"),
    (TorchBuild(version="2.7.0+cpu"), "cpu"),
    (TorchBuild(version="2.7.0+CPU"), "cpu"),
    (TorchBuild(version="2.1.0+cpu.cxx11.abi"), "cpu"),
    (TorchBuild(version="2.7.0+cpux"), None),
    (TorchBuild(version="2.7.0+cu126"), "cuda"),
    (TorchBuild(version="1.13.1+cu92"), "cuda"),
    (TorchBuild(version="2.7.0+cu1"), None),
    (TorchBuild(version="2.7.0+rocm6.2.4"), "rocm"),
    (TorchBuild(version="2.7.0+xpu"), "xpu"),
    (TorchBuild(version="2.7.0"), None),
    (TorchBuild(version="2.7.0", arch_list=("sm_80", "sm_90")), "cuda"),
    (TorchBuild(version="2.7.0", arch_list=("compute_90",)), "cuda"),
    (TorchBuild(version="2.7.0", arch_list=("gfx90a",)), None),
    (TorchBuild(version="2.7.0", arch_list=()), None),
    (TorchBuild(), None),
])
def test_torch_build_kind_from_each_key_that_tells_it(torch, kind):
    assert torch_build_kind(torch) == kind


def test_env_and_package_are_unknown_without_their_facts():
    assert env(Facts(), "CUDA_HOME") is None
    assert env(Facts(host=Host()), "CUDA_HOME") is None
    assert env(Facts(host=Host(env={"CUDA_HOME": "/usr/local/cuda"})), "CUDA_HOME") == "/usr/local/cuda"
    assert env(Facts(host=Host(env={"CUDA_HOME": "/usr/local/cuda"})), "CUDA_PATH") is None
    assert package(Facts(), "torch") is None
    assert package(Facts(python_packages={"torch": "2.7.0"}), "torch") == "2.7.0"
    assert gpus(Facts()) == () and gpus(Facts(gpus=(GPU,))) == (GPU,)


def test_gpu_label_says_what_is_known():
    assert gpu_label(Gpu(index=1, name="NVIDIA A100", compute_capability="8.0")) == "GPU 1: NVIDIA A100, compute capability 8.0"
    assert gpu_label(Gpu(index=0, name="NVIDIA A100")) == "GPU 0: NVIDIA A100"
    assert gpu_label(Gpu()) == "GPU ?: unknown model"


def test_symptoms_of_one_kind():
    missing = Symptom("missing-library", "libcudnn.so.8: cannot open shared object file")
    arch = Symptom("unsupported-arch", "sm_120 is not compatible")
    facts = Facts(symptoms=(missing, arch))
    assert symptoms(facts, "missing-library") == [missing]
    assert symptoms(facts, "nothing") == []
    assert symptoms(Facts(), "missing-library") == []


@pytest.mark.parametrize(("text", "version"), [
    ("90100", "9.1.0"), ("10000", "1.0.0"), ("91002", "9.10.2"), ("8902", "8.9.2"), ("9999", "9.9.99"), ("7605", "7.6.5"),
    ("8.9.2", "8.9.2"), ("", ""), ("123456789", "12345.67.89"), ("1234567890", "1234567890"), ("n/a", "n/a"),
])
def test_cudnn_integers_read_as_versions(text, version):
    assert cudnn_version(text) == version


def _toolkits(*toolkits, env=None):
    return Facts(host=Host(env=env or {}), cuda_toolkits=tuple(CudaToolkit(version=v, path=p, on_path=on) for v, p, on in toolkits))


def test_the_toolkit_cpp_extension_would_build_with():
    t118, t126 = ("11.8", "/usr/local/cuda-11.8", False), ("12.6", "/usr/local/cuda-12.6", True)
    found = extension_toolkit(_toolkits(t118, t126, env={"CUDA_HOME": "/usr/local/cuda-11.8/"}))
    assert (found[0].version, found[1]) == ("11.8", "CUDA_HOME=/usr/local/cuda-11.8/")  # CUDA_HOME wins over PATH
    found = extension_toolkit(_toolkits(t118, t126, env={"CUDA_PATH": "/usr/local/cuda-11.8"}))
    assert (found[0].version, found[1]) == ("11.8", "CUDA_PATH=/usr/local/cuda-11.8")
    assert extension_toolkit(_toolkits(t118, t126, env={"CUDA_HOME": "/opt/elsewhere"})) is None  # a directory no probe saw
    found = extension_toolkit(_toolkits(("11.8", "/usr/local/cuda-11.8/", False), env={"CUDA_HOME": "/usr/local/cuda-11.8"}))
    assert found[0].version == "11.8"  # the same directory, written with a trailing slash
    found = extension_toolkit(_toolkits(t118, t126))
    assert (found[0].version, found[1]) == ("12.6", "nvcc on PATH")
    found = extension_toolkit(_toolkits(t118))
    assert (found[0].version, found[1]) == ("11.8", "the only CUDA toolkit found (not on PATH, no CUDA_HOME)")
    found = extension_toolkit(_toolkits(("11.8", "/usr/local/cuda-11.8", None)))
    assert found[1] == "the only CUDA toolkit found (whether nvcc is on PATH is unknown)"
    assert extension_toolkit(_toolkits(t118, ("12.6", "/usr/local/cuda-12.6", False))) is None  # two, neither on PATH
    assert extension_toolkit(Facts()) is None
