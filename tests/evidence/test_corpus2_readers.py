"""Class fixes found by the platform threads of the corpus (tests/data/threads/): each rule on real pasted lines."""

from __future__ import annotations

from gpudoctor.checks import run_checks, xid
from gpudoctor.evidence import read_many
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, KernelLog, Severity, XidEvent
from gpudoctor.xid_text import parse_kernel_log

MATRIX = load_matrix()

# NVIDIA/NVSentinel#155: the driver's multi-line form of "fallen off the bus"
SPLIT_OFF_BUS = """[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0
               NVRM: (PCI ID: 10de:26b5) installed in this system has
               NVRM: fallen off the bus and is not responding to commands.
[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s)."""


def _ids(text: str) -> dict[str, Severity]:
    return {f.id: f.severity for f in run_checks(read_many([(text, "paste")]), MATRIX).findings}


def test_the_split_fallen_off_the_bus_message_names_its_gpu():
    _, off_bus = parse_kernel_log(SPLIT_OFF_BUS)
    assert [(o.line, o.pci_bus_id) for o in off_bus] == [(1, "0000:b3:00.0")]
    assert _ids(SPLIT_OFF_BUS)["gpu-fallen-off-bus"] == Severity.ERROR


def test_an_announced_gpu_without_the_off_bus_words_is_not_read_as_lost():
    text = "NVRM: The NVIDIA GPU 0000:b3:00.0\nNVRM: (PCI ID: 10de:26b5) installed in this system is\nNVRM: supported through the NVIDIA 470.xx Legacy drivers."
    assert parse_kernel_log(text) == ([], [])


def test_xid_45_brings_the_xid_it_names_into_the_judgement():
    # NVIDIA/open-gpu-kernel-modules#1150: only the Xid 45 lines survived; they name Xid 149 (NVLink) as the cause
    log = KernelLog("dmesg", (XidEvent(45, "0000:dc:00", "Ch 00000001 caused by previous Xid 149"),), ())
    (finding,) = xid.gpu_xid_errors(Facts(kernel_log=log), MATRIX)
    assert finding.severity == Severity.WARNING  # 149 is not in the table: a warning pointing at NVIDIA's catalog
    assert "Xid 45, 149" in finding.title
    assert any(e.startswith("Xid 149 on 0000:dc:00, once: not in gpudoctor's Xid table") for e in finding.evidence)


def test_xid_45_alone_or_with_its_cause_logged_stays_informational():
    alone = KernelLog("dmesg", (XidEvent(45, "0000:dc:00", "Ch 00000001"),), ())
    (finding,) = xid.gpu_xid_errors(Facts(kernel_log=alone), MATRIX)
    assert finding.severity == Severity.INFO
    both = KernelLog("dmesg", (XidEvent(13, "0000:dc:00", "Graphics Exception"), XidEvent(45, "0000:dc:00", "Ch 1 caused by previous Xid 13")), ())
    (finding,) = xid.gpu_xid_errors(Facts(kernel_log=both), MATRIX)
    assert finding.title.startswith("The NVIDIA driver logged Xid 13, 45 since boot")


def test_the_hip_no_binary_error_alone_is_a_finding():
    # ROCm/legacy-rocm-build#2061: the reporter pasted only the runtime's error
    found = _ids("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!")
    assert found.get("hip-no-binary-for-gpu") == Severity.ERROR


def test_no_hip_finding_without_the_error():
    assert "hip-no-binary-for-gpu" not in _ids("HIP runtime version: 6.2.41133\nMIOpen runtime version: 3.2.0\nIs CUDA available: True")


def test_collect_env_on_a_mac_gives_macos_and_the_pythons_architecture():
    # pytorch/pytorch#78343
    facts = read_many([("PyTorch version: 1.13.0.dev20220525\nOS: macOS 12.2.1 (arm64)\n"
                        "Python platform: macOS-12.2.1-arm64-arm-64bit\nIs CUDA available: False\n", "collect_env")])
    assert (facts.host.apple.macos, facts.host.apple.python_arch) == ("12.2.1", "arm64")
    rosetta = read_many([("PyTorch version: 2.2.2\nPython platform: macOS-14.4-x86_64-i386-64bit\nIs CUDA available: False\n", "collect_env")])
    assert rosetta.host.apple.python_arch == "x86_64"
