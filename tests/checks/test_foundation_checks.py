"""The foundation checks (GPU/driver, environment, framework builds) on snapshots of real situations: each
fixture must produce exactly the expected finding ids, every warning or error carries evidence and a fix."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import environment, frameworks, gpu
from gpudoctor.checks.environment import visible_gpu_count
from gpudoctor.model import Facts, Gpu, Host, Severity
from tests.conftest import load_facts

FOUNDATION = (*gpu.CHECKS, *environment.CHECKS, *frameworks.CHECKS)


def run(facts: Facts):
    return [finding for check in FOUNDATION for finding in check(facts, None)]


def ids(facts: Facts) -> dict[str, str]:
    return {f.id: f.severity.label for f in run(facts)}


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("healthy-h100", {"gpus-found": "ok"}),
        ("no-gpu-cuda-builds", {"no-nvidia-gpu": "info", "torch-cuda-build-no-gpu": "info", "tf-cuda-build-no-gpu": "info"}),
        ("laptop-cpu-wheel", {"gpus-found": "ok", "torch-cpu-only-build": "error"}),
        ("nouveau", {"nouveau-loaded": "error"}),
        ("gpu-without-driver", {"gpu-without-driver": "error"}),
        ("driver-library-mismatch", {"nvml-driver-library-mismatch": "error"}),
        ("wsl1", {"no-nvidia-gpu": "info", "wsl1-no-gpu-support": "error"}),
        ("wsl2-no-libcuda", {"no-nvidia-gpu": "info", "wsl-libcuda-not-on-loader-path": "error", "torch-cuda-build-no-gpu": "info"}),
        ("container-without-runtime", {"container-without-gpu-runtime": "error"}),
        ("cuda-visible-devices-wrong", {"gpus-found": "ok", "cuda-visible-devices-hides-all-gpus": "error",
                                        "gpu-memory-in-use": "warning", "gpu-ecc-uncorrected-errors": "warning",
                                        "gpu-pcie-link-narrowed": "info"}),
        ("tf-cpu-shadows-gpu", {"gpus-found": "ok", "tf-cpu-package-shadows-gpu": "error"}),
    ],
)
def test_fixture_gives_exactly_these_findings(fixture, expected):
    assert ids(load_facts(fixture)) == expected


@pytest.mark.parametrize("fixture", ["laptop-cpu-wheel", "nouveau", "gpu-without-driver", "driver-library-mismatch", "wsl1",
                                     "wsl2-no-libcuda", "container-without-runtime", "cuda-visible-devices-wrong", "tf-cpu-shadows-gpu"])
def test_every_problem_has_evidence_and_a_fix_with_commands(fixture):
    problems = [f for f in run(load_facts(fixture)) if f.severity >= Severity.WARNING]
    assert problems
    for finding in problems:
        assert finding.evidence, finding.id
        assert finding.fix and finding.fix.commands, finding.id


def test_unknown_facts_raise_no_error():
    # A snapshot that says nothing must not produce a single warning or error: unknown is not broken.
    assert all(f.severity < Severity.WARNING for f in run(Facts()))


def test_mismatch_evidence_names_both_versions():
    (finding,) = [f for f in run(load_facts("driver-library-mismatch")) if f.id == "nvml-driver-library-mismatch"]
    assert "loaded kernel module: 550.90.07" in finding.evidence
    assert "user-space driver library (libcuda): 550.107.02" in finding.evidence
    assert "sudo reboot" in finding.fix.commands


def test_cpu_wheel_without_gpu_is_only_a_note():
    facts = load_facts("laptop-cpu-wheel")
    no_gpu = dataclasses.replace(facts, gpus=(), pci_devices=(), driver=None)
    assert ids(no_gpu) == {"no-nvidia-gpu": "info", "torch-cpu-only-build": "info"}


def test_cpu_wheel_on_macos_is_not_flagged():
    facts = load_facts("laptop-cpu-wheel")
    mac = dataclasses.replace(facts, host=Host(os="darwin"), gpus=(), pci_devices=None, driver=None)
    assert "torch-cpu-only-build" not in ids(mac)


def test_gpu_memory_below_half_is_not_a_warning():
    facts = load_facts("cuda-visible-devices-wrong")
    calm = dataclasses.replace(facts, gpus=tuple(dataclasses.replace(g, memory_used_mib=100, ecc_uncorrected_errors=0) for g in facts.gpus))
    assert "gpu-memory-in-use" not in ids(calm)


GPUS = (Gpu(index=0, uuid="GPU-aaaa-1"), Gpu(index=1, uuid="GPU-bbbb-2"))


@pytest.mark.parametrize(
    ("value", "visible"),
    [("0", 1), ("0,1", 2), ("1,0", 2), ("", 0), ("-1", 0), ("2", 0), ("0,7,1", 1), ("GPU-bbbb", 1), ("GPU-zzzz", 0),
     ("NoDevFiles", 0), ("0,0", 1)],
)
def test_cuda_visible_devices_is_read_like_cuda_reads_it(value, visible):
    assert visible_gpu_count(value, GPUS) == visible


def test_cuda_visible_devices_pointing_at_existing_gpu_is_fine():
    facts = load_facts("cuda-visible-devices-wrong")
    ok = dataclasses.replace(facts, host=dataclasses.replace(facts.host, env={"CUDA_VISIBLE_DEVICES": "1"}))
    assert "cuda-visible-devices-hides-all-gpus" not in ids(ok)


def test_tf_cpu_alone_without_gpu_is_fine():
    facts = load_facts("tf-cpu-shadows-gpu")
    alone = dataclasses.replace(facts, gpus=(), pci_devices=(), driver=None,
                                python_packages={"tensorflow": None, "tensorflow-cpu": "2.16.1"})
    assert "tf-cpu-package-shadows-gpu" not in ids(alone)


def test_deep_import_error_is_an_error_with_a_reinstall_fix():
    facts = load_facts("healthy-h100")
    broken = dataclasses.replace(facts, frameworks=dataclasses.replace(
        facts.frameworks, torch=dataclasses.replace(facts.frameworks.torch, import_error="ImportError: libcudnn.so.9: cannot open shared object file")))
    (finding,) = [f for f in run(broken) if f.id == "framework-import-failed"]
    assert finding.severity == Severity.ERROR and "libcudnn.so.9" in finding.title
    assert finding.fix.commands[0] == "pip uninstall -y torch"


def test_deep_cuda_unavailable_on_a_gpu_machine_is_an_error():
    facts = load_facts("healthy-h100")
    torch = dataclasses.replace(facts.frameworks.torch, cuda_available=False, device_count=0)
    unavailable = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, torch=torch))
    assert ids(unavailable)["torch-cuda-unavailable"] == "error"
    available = dataclasses.replace(facts, frameworks=dataclasses.replace(
        facts.frameworks, torch=dataclasses.replace(torch, cuda_available=True, device_count=1)))
    assert ids(available)["torch-cuda-available"] == "ok"
