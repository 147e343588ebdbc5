"""A described machine and what a probed one hides (envgen/describe.py): the accepted spellings, the one-line
errors, the target summary, and each warning facts_warnings gives before files are written (issue 11)."""

from __future__ import annotations

import pytest

from gpudoctor.envgen.describe import (
    DescriptionError,
    check_driver_version,
    check_python_version,
    facts_warnings,
    parse_compute_capability,
    resolve_arch,
    summarize_target,
    target_from_description,
)
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.solver.solve import Target
from gpudoctor.model import Driver, Facts, Gpu, PciDevice, ProbeError

MATRIX = load_matrix()


def target(os="linux", python=None, driver_version=None, driver_cuda=None, compute_capabilities=(), **rest):
    return Target(os, python, driver_version, driver_cuda, compute_capabilities, **rest)


@pytest.mark.parametrize(("text", "cc"), [
    ("8.9", "8.9"), (" 8.9 ", "8.9"), ("12.0", "12.0"), ("08.6", "8.6"), ("sm_89", "8.9"), ("SM89", "8.9"), ("compute_120", "12.0"),
    ("sm_90a", "9.0"), ("RTX 4090", None), ("8.10", None), ("123.0", None), ("sm_8", None), ("", None),
])
def test_parse_compute_capability(text, cc):
    assert parse_compute_capability(text) == cc


@pytest.mark.parametrize("text", ["550", "550.54", "550.54.15", " 580.65.06 ", "1000.1.100"])
def test_driver_versions_and_branches_are_accepted(text):
    assert check_driver_version(text) == text.strip()


@pytest.mark.parametrize("text", ["55", "55000", "550.54.15.1", "550.1234", "r550", "latest"])
def test_other_driver_spellings_are_one_line_errors(text):
    with pytest.raises(DescriptionError, match=r"^--driver '.*': expected an NVIDIA driver version such as 550.54.15, 535.104 or a branch such as 550$"):
        check_driver_version(text)


def test_python_versions():
    assert check_python_version(" 3.11 ") == "3.11"
    assert check_python_version("3.12", ("3.10", "3.12")) == "3.12"
    with pytest.raises(DescriptionError, match=r"^--python '3': expected a Python minor version such as 3.11$"):
        check_python_version("3")
    with pytest.raises(DescriptionError, match=r"^--python '2.7': expected"):
        check_python_version("2.7")
    # the range is ordered as versions, not as text (3.9 before 3.10)
    with pytest.raises(DescriptionError) as caught:
        check_python_version("3.14", ("3.10", "3.9", "3.11", "3.12"))
    assert str(caught.value) == "--python 3.14: no release in the compatibility matrix has wheels for it (it knows 3.9–3.12)"


def test_the_cpu_architecture_of_a_described_machine():
    assert resolve_arch(MATRIX, "linux", None, (), ()) == "x86_64"
    assert resolve_arch(MATRIX, "darwin", None, (), ()) == "arm64"
    assert resolve_arch(MATRIX, "linux", "arm64", (), ()) == "aarch64"
    with pytest.raises(DescriptionError, match=r"^--arch 'sparc': expected x86_64 or aarch64 \(arm64\)$"):
        resolve_arch(MATRIX, "linux", "sparc", (), ())
    with pytest.raises(DescriptionError, match=r"^--os windows --arch aarch64: gpudoctor targets Windows on x86_64 only"):
        resolve_arch(MATRIX, "windows", "aarch64", (), ())
    with pytest.raises(DescriptionError, match=r"^--os wsl --arch arm64: "):
        resolve_arch(MATRIX, "wsl", "arm64", (), ())


def test_description_errors():
    with pytest.raises(DescriptionError, match=r"^--os 'beos': expected one of linux, windows, wsl, darwin$"):
        target_from_description(MATRIX, os="beos")
    with pytest.raises(DescriptionError, match=r"^--driver describes the GPU's driver: give the GPU too \(--gpu NAME\)$"):
        target_from_description(MATRIX, driver="550.54.15")
    with pytest.raises(DescriptionError, match=r"^--os darwin with --gpu: macOS has no CUDA"):
        target_from_description(MATRIX, gpus=("RTX 4090",), os="darwin")
    with pytest.raises(DescriptionError, match=r"^unknown GPU 'Voodoo 5': give a name such as"):
        target_from_description(MATRIX, gpus=(" Voodoo 5 ",))


def test_a_wsl_description_is_linux_with_the_windows_driver():
    described = target_from_description(MATRIX, gpus=("RTX 4090", "8.6"), driver="560.94", os="wsl", python="3.11")
    assert described == target(os="linux", python="3.11", driver_version="560.94", driver_cuda=None, compute_capabilities=("8.9", "8.6"),
                            wsl=True, arch="x86_64")


@pytest.mark.parametrize(("described", "names", "summary"), [
    (target(os="linux", driver_version="580.65.06", compute_capabilities=("7.0",), arch="x86_64"), ("Tesla V100",),
     "Tesla V100 (CC 7.0), NVIDIA driver 580.65.06, Linux x86_64"),
    (target(os="linux", driver_version="580.65.06", driver_cuda="13.0", compute_capabilities=("7.0", "7.0", "8.9"), arch="x86_64"),
     ("Tesla V100", "Tesla V100", "8.9"), "2x Tesla V100 (CC 7.0) + GPU with CC 8.9, NVIDIA driver 580.65.06 (CUDA 13.0), Linux x86_64"),
    (target(os="linux", driver_version="550", compute_capabilities=("8.9", "8.9"), arch="x86_64", python="3.12"), ("RTX 4090",),
     "2x GPU with CC 8.9, NVIDIA driver branch R550, Linux x86_64, Python 3.12"),
    (target(os="windows", compute_capabilities=("8.6",), arch="x86_64"), (), "GPU with CC 8.6, no NVIDIA driver known, Windows (native) x86_64"),
    (target(os="linux", wsl=True, arch="x86_64"), (), "no usable NVIDIA GPU, Linux on WSL x86_64"),
    (target(os="darwin", arch="arm64"), (), "no usable NVIDIA GPU, macOS arm64"),
])
def test_summarize_target(described, names, summary):
    assert summarize_target(described, names) == summary


CPU_TARGET = target(os="linux", arch="x86_64")
NVIDIA_VGA = PciDevice(bus_id="0000:01:00.0", vendor_id="10DE", device_id="2684", driver=None, device_class="0x030000")


def test_a_gpu_on_the_bus_without_a_driver_is_warned_about():
    (warning,) = facts_warnings(Facts(pci_devices=(NVIDIA_VGA,), gpus=()), CPU_TARGET)
    assert warning == (
        "an NVIDIA GPU is on the PCI bus (0000:01:00.0, device 10de:2684) but no NVIDIA driver reports it (kernel driver: none), so "
        "these are CPU builds: fix the driver first (`gpudoctor check` says how) and run `gpudoctor env` again, or describe the "
        "machine with --gpu NAME --driver VERSION")
    bound = PciDevice(bus_id="0000:01:00.0", vendor_id="10de", device_id="2684", driver="nouveau", device_class=None)
    (warning,) = facts_warnings(Facts(pci_devices=(bound,), gpus=(), driver=Driver(nvml_error="NVML Shared Library Not Found")), CPU_TARGET)
    assert "(kernel driver: nouveau; NVML: NVML Shared Library Not Found)" in warning


def test_other_pci_devices_are_not_gpus():
    audio = PciDevice(bus_id="0000:01:00.1", vendor_id="10de", device_id="22ba", device_class="0x040300")
    intel = PciDevice(bus_id="0000:00:02.0", vendor_id="8086", device_id="a780", device_class="0x030000")
    assert facts_warnings(Facts(pci_devices=(audio, intel), gpus=()), CPU_TARGET) == []


def test_an_unprobed_gpu_list_is_warned_about_with_the_probe_errors():
    (warning,) = facts_warnings(Facts(probe_errors=(ProbeError("nvml", "timed out"), ProbeError("pci", "no /sys"))), CPU_TARGET)
    assert warning == ("whether this machine has an NVIDIA GPU is unknown (nvml: timed out; pci: no /sys), so these are CPU builds: "
                       "describe the GPU with --gpu NAME --driver VERSION for GPU builds")
    (warning,) = facts_warnings(Facts(), CPU_TARGET)
    assert "is unknown (not probed)" in warning


def test_gpus_of_unknown_capability_are_named():
    one_known = target(os="linux", compute_capabilities=("8.9",), arch="x86_64")
    facts = Facts(gpus=(Gpu(index=0, name="RTX 4090", compute_capability="8.9"), Gpu(index=1, name="Mystery"), Gpu(index=2)))
    assert facts_warnings(facts, one_known) == [
        "compute capability unknown for Mystery, GPU 2: the choice covers only the others; describe them with --gpu CC (e.g. --gpu 8.9)"]
    assert facts_warnings(Facts(gpus=(Gpu(index=0, compute_capability="8.9"),)), one_known) == []
    assert facts_warnings(Facts(gpus=()), CPU_TARGET) == []  # probed: no GPU, nothing hidden
