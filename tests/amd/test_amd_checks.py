"""The AMD checks on hand-built facts of the kind the probe and the readers produce, against the shipped matrix."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.matrix import load_matrix
from gpudoctor.model import AmdGpu, Facts, Frameworks, Host, Rocm, Severity, TorchBuild

RX5700XT = AmdGpu(0, "AMD Radeon RX 5700 XT", "gfx1010")
RX7900XTX = AmdGpu(0, "AMD Radeon RX 7900 XTX", "gfx1100")
RX6700XT = AmdGpu(0, "AMD Radeon RX 6700 XT", "gfx1031")


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def amd_machine(gpu: AmdGpu, torch: TorchBuild | None, env: dict | None = None, rocm: Rocm | None = None) -> Facts:
    return Facts(host=Host(os="linux", env=env or {}), gpus=(), pci_devices=(), amd_gpus=(gpu,),
                 rocm=rocm or Rocm(version="6.2.4", amdgpu_loaded=True, device_groups=("render",), user_groups=("u", "render"), user_is_root=False),
                 python_packages={"torch": torch.version if torch else None}, frameworks=Frameworks(torch=torch))


def ids(report, severity=None):
    return {f.id for f in report.findings if severity is None or f.severity == severity}


def test_gfx1010_is_not_in_the_official_rocm_wheel(matrix):
    report = run_checks(amd_machine(RX5700XT, TorchBuild(version="2.5.1+rocm6.2", hip="6.2", build="rocm")), matrix)
    finding = next(f for f in report.findings if f.id == "gpu-gfx-not-in-rocm-build")
    assert finding.severity == Severity.ERROR
    assert "gfx1010" in finding.title
    assert any("HSA_OVERRIDE_GFX_VERSION" in c or "PYTORCH_ROCM_ARCH=gfx1010" in c for c in finding.fix.commands)
    assert "torch-cpu-only-build" not in ids(report) and "no-nvidia-gpu" not in ids(report)


def test_a_supported_gpu_with_its_wheel_is_healthy(matrix):
    report = run_checks(amd_machine(RX7900XTX, TorchBuild(version="2.8.0+rocm6.4", hip="6.4", build="rocm"),
                                    rocm=Rocm(version="6.4.1", amdgpu_loaded=True, user_groups=("render",), device_groups=("render",), user_is_root=False)), matrix)
    assert ids(report, Severity.ERROR) == set() and ids(report, Severity.WARNING) == set()
    assert "amd-gpus-found" in ids(report) and "no-nvidia-gpu" not in ids(report)


def test_the_override_onto_a_carried_target_is_a_warning_and_said_for_what_it_is(matrix):
    facts = amd_machine(RX6700XT, TorchBuild(version="2.5.1+rocm6.2", hip="6.2", build="rocm"), env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})
    report = run_checks(facts, matrix)
    gfx = next(f for f in report.findings if f.id == "gpu-gfx-not-in-rocm-build")
    assert gfx.severity == Severity.WARNING and "gfx1030" in gfx.title
    override = next(f for f in report.findings if f.id == "hsa-override-gfx-version-set")
    assert override.severity == Severity.INFO and "gfx1030" in override.title
    assert any("does not support" in e for e in override.evidence)


def test_a_non_official_rocm_build_is_not_judged_by_the_wheel_table(matrix):
    report = run_checks(amd_machine(RX5700XT, TorchBuild(version="2.4.0a0+git1234", hip="6.2", build="rocm")), matrix)
    assert "gpu-gfx-not-in-rocm-build" not in ids(report)


def test_cpu_or_cuda_torch_on_an_amd_machine_gets_the_rocm_route(matrix):
    for torch in (TorchBuild(version="2.8.0+cpu", build="cpu"), TorchBuild(version="2.8.0+cu128", cuda="12.8", build="cuda")):
        report = run_checks(amd_machine(RX7900XTX, torch), matrix)
        finding = next(f for f in report.findings if f.id == "torch-not-rocm-on-amd-gpu")
        assert finding.severity == Severity.ERROR
        assert any("--index-url https://download.pytorch.org/whl/rocm" in c for c in finding.fix.commands)
        assert not ids(report) & {"torch-cpu-only-build", "torch-cuda-build-no-gpu", "no-nvidia-gpu"}


def test_user_not_in_render_group_unless_root(matrix):
    outside = Rocm(version="6.4.1", amdgpu_loaded=True, device_groups=("render", "video"), user_groups=("alice", "video"), user_is_root=False)
    report = run_checks(amd_machine(RX7900XTX, None, rocm=outside), matrix)
    finding = next(f for f in report.findings if f.id == "user-not-in-render-group")
    assert finding.fix.commands == ("sudo usermod -a -G render $LOGNAME",)
    root = Rocm(version="6.4.1", amdgpu_loaded=True, device_groups=("render",), user_groups=("root",), user_is_root=True)
    assert "user-not-in-render-group" not in ids(run_checks(amd_machine(RX7900XTX, None, rocm=root), matrix))


def test_amdgpu_not_loaded_only_where_amd_is_expected(matrix):
    report = run_checks(amd_machine(RX7900XTX, None, rocm=Rocm(version="6.4.1", amdgpu_loaded=False)), matrix)
    assert "amdgpu-driver-not-loaded" in ids(report, Severity.ERROR)
    plain = Facts(host=Host(os="linux"), gpus=(), pci_devices=(), amd_gpus=(), rocm=Rocm(amdgpu_loaded=False, user_groups=("u",), user_is_root=False))
    assert not ids(run_checks(plain, matrix)) & {"amdgpu-driver-not-loaded", "amd-gpus-found", "user-not-in-render-group"}


def test_rocm_major_mismatch_is_a_warning(matrix):
    facts = amd_machine(RX7900XTX, TorchBuild(version="2.8.0+rocm6.4", hip="6.4", build="rocm"),
                        rocm=Rocm(version="5.7.1", amdgpu_loaded=True, user_is_root=True))
    assert "rocm-version-mismatch" in ids(run_checks(facts, matrix), Severity.WARNING)


def test_unknown_amd_facts_raise_nothing(matrix):
    facts = Facts(host=Host(os="linux"), frameworks=Frameworks(torch=TorchBuild(version="2.8.0+rocm6.4", hip="6.4", build="rocm")))
    report = run_checks(facts, matrix)
    assert not ids(report, Severity.ERROR) and "torch-cpu-only-build" not in ids(report)
