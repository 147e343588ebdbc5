"""checks/rocm_builds.py finding by finding (issue 11: its mutation score): a ROCm torch judged against the AMD
GPUs' gfx targets, the system's ROCm, a CUDA/CPU torch on an AMD-only machine and the runtime's own error.

The wheel table is built here (the real RocmTable/RocmWheel types, in a real Matrix) so that the expected fix
commands stay literal and do not move when matrices/rocm.toml gains a release."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import rocm_builds as rb
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.rocm import RocmTable, RocmWheel
from gpudoctor.model import AmdGpu, Facts, Finding, Fix, Frameworks, Host, PciDevice, Rocm, Section, Severity, Symptom, TorchBuild

SRC = ("https://pytorch.org/get-started/previous-versions/",)
W25 = RocmWheel("2.5", ("6.1", "6.2"), ("gfx900", "gfx906", "gfx1030", "gfx1100"), True, True, SRC, "2026-11-24")
W26 = RocmWheel("2.6", ("6.2.4",), ("gfx900", "gfx906", "gfx1030", "gfx1100", "gfx1101"), False, True, SRC, "2026-11-24")
W28 = RocmWheel("2.8", ("6.3", "6.4"), ("gfx900", "gfx1030", "gfx1100", "gfx1101", "gfx1201"), True, True, SRC, "2026-11-24")
W29 = RocmWheel("2.9", ("6.4",), ("gfx900", "gfx1030", "gfx1100", "gfx1101", "gfx1201"), False, True, SRC, "2026-11-24")
W210 = RocmWheel("2.10", ("7.0", "7.1"), ("gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1201"), False, False, SRC, "2026-11-24")
TABLE = RocmTable((W25, W26, W28, W29, W210), (), "https://download.pytorch.org/whl/", "https://rocm.docs.amd.com/", SRC, "2026-11-24")

RX5700XT = AmdGpu(0, "AMD Radeon RX 5700 XT", "gfx1010")
RX6700XT = AmdGpu(0, "AMD Radeon RX 6700 XT", "gfx1031")
RX7900XTX = AmdGpu(1, "AMD Radeon RX 7900 XTX", "gfx1100")
INVALID = Symptom("hip-no-binary-for-gpu", "RuntimeError: HIP error: invalid device function", "torch")
NO_BINARY = Symptom("hip-no-binary-for-gpu", "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!")
PREVIOUS = "https://pytorch.org/get-started/previous-versions/"
SOURCE = "https://github.com/ROCm/pytorch#readme"
UNINSTALL = "pip uninstall -y torch torchvision torchaudio"
ROCM64 = TorchBuild(version="2.8.0+rocm6.4", hip="6.4", build="rocm")
CARRIED = "gfx900 gfx1030 gfx1100 gfx1101 gfx1201"


@pytest.fixture(scope="module")
def matrix():
    return dataclasses.replace(load_matrix(), rocm=TABLE)


def machine(torch: TorchBuild | None, *gpus: AmdGpu, env: dict | None = None, symptoms=None, rocm: Rocm | None = None) -> Facts:
    return Facts(host=Host(os="linux", env=env or {}), gpus=(), pci_devices=(), amd_gpus=gpus, rocm=rocm,
                 frameworks=Frameworks(torch=torch), symptoms=symptoms)


def run(rule, facts, matrix):
    return list(rule(facts, matrix))


def test_wheel_for_finds_the_release_series_row():
    for version in ("2.8.0+rocm6.4", "2.8+rocm6.4", "2.8.0rc1+rocm6.4", "2.8.1", "2.8"):  # a release candidate is its series
        assert rb.wheel_for(Facts(frameworks=Frameworks(torch=TorchBuild(version=version, hip="6.2"))), TABLE) is W28
    # a series the table lacks: no row, and the ROCm version does not stand in for it
    assert rb.wheel_for(Facts(frameworks=Frameworks(torch=TorchBuild(version="2.7.0+rocm6.4", hip="6.4"))), TABLE) is None
    assert rb.wheel_for(Facts(frameworks=Frameworks()), TABLE) is None
    assert rb.wheel_for(Facts(), TABLE) is None


def test_wheel_for_an_unknown_version_goes_by_rocm_only_when_its_wheels_agree():
    def by_hip(version, hip):
        return rb.wheel_for(Facts(frameworks=Frameworks(torch=TorchBuild(version=version, hip=hip))), TABLE)
    assert by_hip(None, "6.4") is W28  # 2.8 and 2.9 carry the same targets: the first row speaks for both
    assert by_hip(None, "6.4.43482") is W28
    assert by_hip("2", "6.4") is W28 and by_hip("a.b.c", "6.4") is W28 and by_hip("", "6.4") is W28
    assert by_hip(None, "7.1") is W210
    assert by_hip(None, "6.2") is None  # 2.5 and 2.6 (6.2.4) differ: cannot tell which
    assert by_hip(None, "5.7") is None and by_hip(None, None) is None


def test_rocm_install_fix_installs_the_newest_wheel_that_carries_the_target():
    assert rb.rocm_install_fix(TABLE, "gfx900", "Install it") == Fix(
        "Install it", (UNINSTALL, "pip install 'torch==2.9.*' torchvision --index-url https://download.pytorch.org/whl/rocm6.4"), PREVIOUS)
    assert rb.rocm_install_fix(TABLE, "gfx906", "Install it").commands[1] == (
        "pip install 'torch==2.6.*' torchvision --index-url https://download.pytorch.org/whl/rocm6.2.4")
    # target unknown: the newest wheel, at its newest ROCm
    assert rb.rocm_install_fix(TABLE, None, "Install it").commands == (
        UNINSTALL, "pip install 'torch==2.10.*' torchvision --index-url https://download.pytorch.org/whl/rocm7.1")
    assert rb.rocm_install_fix(None, "gfx1100", "Install it") == Fix("Install it", (), "https://pytorch.org/get-started/locally/")


def test_rocm_install_fix_for_a_target_no_wheel_carries():
    assert rb.rocm_install_fix(TABLE, "gfx1031", "ignored") == Fix(
        "No official PyTorch wheel carries gfx1031: use a supported GPU, build from source, or the unsupported override",
        ("export HSA_OVERRIDE_GFX_VERSION=10.3.0   # unsupported workaround: runs gfx1030 kernels on gfx1031",
         "PYTORCH_ROCM_ARCH=gfx1031 python setup.py develop   # build torch from source for gfx1031 (ROCm/pytorch)"), SOURCE)
    assert rb.rocm_install_fix(TABLE, "gfx1103", "ignored").commands[0] == (
        "export HSA_OVERRIDE_GFX_VERSION=11.0.0   # unsupported workaround: runs gfx1100 kernels on gfx1103")
    assert rb.rocm_install_fix(TABLE, "gfx1200", "ignored").commands[0] == (
        "export HSA_OVERRIDE_GFX_VERSION=12.0.1   # unsupported workaround: runs gfx1201 kernels on gfx1200")
    # no family member with an official target: building is the only route
    assert rb.rocm_install_fix(TABLE, "gfx1010", "ignored") == Fix(
        "No official PyTorch wheel carries gfx1010: use a supported GPU, build from source, or an unofficial build",
        ("PYTORCH_ROCM_ARCH=gfx1010 python setup.py develop   # build torch from source for gfx1010 (ROCm/pytorch)",), SOURCE)


def test_gpu_gfx_not_in_a_confirmed_build_is_an_error_pinned(matrix):
    (finding,) = run(rb.gpu_gfx_not_in_rocm_build, machine(ROCM64, RX5700XT, RX7900XTX, AmdGpu(2)), matrix)
    assert finding == Finding(
        "gpu-gfx-not-in-rocm-build", Severity.ERROR, Section.TORCH,
        "AMD GPU 0: AMD Radeon RX 5700 XT (gfx1010) is not a target of this ROCm build of torch: kernels fail with 'invalid device function'",
        ("AMD GPU 0: AMD Radeon RX 5700 XT (gfx1010)", f"torch 2.8.0+rocm6.4 (ROCm 6.4) official wheels carry: {CARRIED}"),
        Fix("No official PyTorch wheel carries gfx1010: use a supported GPU, build from source, or an unofficial build",
            ("PYTORCH_ROCM_ARCH=gfx1010 python setup.py develop   # build torch from source for gfx1010 (ROCm/pytorch)",), SOURCE))


def test_gpu_gfx_not_in_an_unconfirmed_build_warns_unless_the_log_shows_it(matrix):
    rocm_29 = TorchBuild(version="2.9.0+rocm6.4", hip="6.4", build="rocm")
    (finding,) = run(rb.gpu_gfx_not_in_rocm_build, machine(rocm_29, RX5700XT), matrix)
    assert finding.severity == Severity.WARNING
    assert finding.evidence == ("AMD GPU 0: AMD Radeon RX 5700 XT (gfx1010)", f"torch 2.9.0+rocm6.4 (ROCm 6.4) official wheels carry: {CARRIED}",
                                "the arch list of this release comes from the build scripts, not from the wheel itself")
    (logged,) = run(rb.gpu_gfx_not_in_rocm_build, machine(rocm_29, RX5700XT, symptoms=(INVALID, NO_BINARY)), matrix)
    assert logged.severity == Severity.ERROR
    assert logged.evidence[2:] == ("log: RuntimeError: HIP error: invalid device function",
                                   "the arch list of this release comes from the build scripts, not from the wheel itself")
    (confirmed,) = run(rb.gpu_gfx_not_in_rocm_build, machine(ROCM64, RX5700XT, symptoms=(NO_BINARY,)), matrix)
    assert confirmed.evidence[2:] == ("log: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",)


def test_gpu_gfx_under_an_override_onto_a_carried_target_is_a_warning(matrix):
    (finding,) = run(rb.gpu_gfx_not_in_rocm_build, machine(ROCM64, RX6700XT, env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}), matrix)
    assert finding == Finding(
        "gpu-gfx-not-in-rocm-build", Severity.WARNING, Section.TORCH,
        "gfx1031 is not in this ROCm build; HSA_OVERRIDE_GFX_VERSION makes it run gfx1030 kernels (unsupported)",
        ("AMD GPU 0: AMD Radeon RX 6700 XT (gfx1031)", f"torch 2.8.0+rocm6.4 (ROCm 6.4) official wheels carry: {CARRIED}"),
        Fix("No official PyTorch wheel carries gfx1031: use a supported GPU, build from source, or the unsupported override",
            ("export HSA_OVERRIDE_GFX_VERSION=10.3.0   # unsupported workaround: runs gfx1030 kernels on gfx1031",
             "PYTORCH_ROCM_ARCH=gfx1031 python setup.py develop   # build torch from source for gfx1031 (ROCm/pytorch)"), SOURCE))
    # an override onto a target the build lacks too, or one that names no target: the plain error
    for value in ("10.1.0", "ten"):
        (plain,) = run(rb.gpu_gfx_not_in_rocm_build, machine(ROCM64, RX6700XT, env={"HSA_OVERRIDE_GFX_VERSION": value}), matrix)
        assert plain.severity == Severity.ERROR
        assert plain.title == "AMD GPU 0: AMD Radeon RX 6700 XT (gfx1031) is not a target of this ROCm build of torch: kernels fail with 'invalid device function'"


def test_gpu_gfx_not_in_this_build_but_in_a_newer_one_gets_the_upgrade(matrix):
    rocm_25 = TorchBuild(version="2.5.1+rocm6.2", hip="6.2", build="rocm")
    (finding,) = run(rb.gpu_gfx_not_in_rocm_build, machine(rocm_25, AmdGpu(0, "AMD Radeon RX 9070 XT", "gfx1201")), matrix)
    assert finding == Finding(
        "gpu-gfx-not-in-rocm-build", Severity.ERROR, Section.TORCH,
        "AMD GPU 0: AMD Radeon RX 9070 XT (gfx1201) is not a target of this ROCm build of torch: kernels fail with 'invalid device function'",
        ("AMD GPU 0: AMD Radeon RX 9070 XT (gfx1201)", "torch 2.5.1+rocm6.2 (ROCm 6.2) official wheels carry: gfx900 gfx906 gfx1030 gfx1100"),
        Fix("Install an official build that carries gfx1201",
            (UNINSTALL, "pip install 'torch==2.10.*' torchvision --index-url https://download.pytorch.org/whl/rocm7.1"), PREVIOUS))


def test_gpu_gfx_not_in_rocm_build_one_finding_per_missing_target(matrix):
    # a carried GPU listed first does not end the look at the others
    (after_a_carried_one,) = run(rb.gpu_gfx_not_in_rocm_build, machine(ROCM64, RX7900XTX, AmdGpu(2), RX5700XT), matrix)
    assert after_a_carried_one.evidence[0] == "AMD GPU 0: AMD Radeon RX 5700 XT (gfx1010)"
    found = run(rb.gpu_gfx_not_in_rocm_build, machine(ROCM64, RX5700XT, dataclasses.replace(RX6700XT, index=1)), matrix)
    assert [(f.severity, f.fix.summary) for f in found] == [
        (Severity.ERROR, "No official PyTorch wheel carries gfx1010: use a supported GPU, build from source, or an unofficial build"),
        (Severity.ERROR, "No official PyTorch wheel carries gfx1031: use a supported GPU, build from source, or the unsupported override")]


def test_gpu_gfx_not_in_rocm_build_with_the_version_or_hip_unknown(matrix):
    # version unknown: the row comes from the ROCm version; a build with no local tag is still the official series
    (by_hip,) = run(rb.gpu_gfx_not_in_rocm_build, machine(TorchBuild(hip="6.4", build="rocm"), RX5700XT), matrix)
    assert by_hip.evidence[1] == f"torch (version unknown) (ROCm 6.4) official wheels carry: {CARRIED}"
    (untagged,) = run(rb.gpu_gfx_not_in_rocm_build, machine(TorchBuild(version="2.8.0", build="rocm"), RX5700XT), matrix)
    assert untagged.evidence[1] == f"torch 2.8.0 (ROCm ?) official wheels carry: {CARRIED}"
    # the build kind read from the wheel's tag alone
    assert len(run(rb.gpu_gfx_not_in_rocm_build, machine(TorchBuild(version="2.8.0+rocm6.4"), RX5700XT), matrix)) == 1


def test_gpu_gfx_not_in_rocm_build_is_silent_where_it_cannot_judge(matrix):
    def silent(facts, m=matrix):
        assert run(rb.gpu_gfx_not_in_rocm_build, facts, m) == []
    silent(machine(ROCM64, RX7900XTX, AmdGpu(2, "AMD Radeon RX 6800")))  # carried, and target unknown
    silent(machine(ROCM64, RX5700XT), None)  # no wheel table
    silent(machine(ROCM64, RX5700XT), dataclasses.replace(matrix, rocm=None))  # a matrix without rocm.toml
    silent(machine(None, RX5700XT))
    silent(Facts(amd_gpus=(RX5700XT,)))
    silent(machine(TorchBuild(version="2.8.0+cu128", cuda="12.8", build="cuda"), RX5700XT))
    silent(machine(TorchBuild(version="2.8.0a0+git1234", hip="6.4", build="rocm"), RX5700XT))  # a container's own build of 2.8
    silent(machine(TorchBuild(version="3.0.0+rocm7.9", hip="7.9", build="rocm"), RX5700XT))  # a release the table lacks
    silent(machine(ROCM64))


MISMATCH = Finding(
    "rocm-version-mismatch", Severity.WARNING, Section.TORCH,
    "torch was built with ROCm 6.4, the system has ROCm 5.7.1: a different major release",
    ("torch.version.hip = 6.4", "/opt/rocm: 5.7.1",
     "the wheel brings its own ROCm libraries, but the amdgpu kernel driver and any extension build use the system's"),
    Fix("Install the torch build for ROCm 5.7, or upgrade ROCm to match",
        ('python -c "import torch; print(torch.__version__, torch.version.hip)"',), PREVIOUS))


def test_rocm_version_mismatch_pinned():
    assert run(rb.rocm_version_mismatch, machine(ROCM64, rocm=Rocm(version="5.7.1")), None) == [MISMATCH]
    (newer,) = run(rb.rocm_version_mismatch, machine(ROCM64, rocm=Rocm(version="7.0.2")), None)
    assert newer.title == "torch was built with ROCm 6.4, the system has ROCm 7.0.2: a different major release"
    assert newer.fix.summary == "Install the torch build for ROCm 7.0, or upgrade ROCm to match"


def test_rocm_version_mismatch_is_silent_within_a_major_or_when_unknown():
    def silent(facts):
        assert run(rb.rocm_version_mismatch, facts, None) == []
    silent(machine(TorchBuild(version="2.5.1+rocm6.2", hip="6.2.41133", build="rocm"), rocm=Rocm(version="6.4.1")))
    silent(machine(ROCM64, rocm=Rocm(version="6.0")))
    silent(machine(ROCM64, rocm=Rocm()))
    silent(machine(ROCM64))
    silent(machine(TorchBuild(version="2.8.0+cu128", cuda="12.8", build="cuda"), rocm=Rocm(version="5.7.1")))
    silent(machine(None, rocm=Rocm(version="5.7.1")))
    silent(Facts(rocm=Rocm(version="5.7.1")))


def test_torch_cuda_build_on_amd_gpu_pinned(matrix):
    facts = machine(TorchBuild(version="2.8.0+cu128", cuda="12.8", build="cuda"), AmdGpu(0, "AMD Radeon RX 6800"), AmdGpu(1, "AMD Instinct MI50", "gfx906"))
    assert run(rb.torch_cuda_build_on_amd_gpu, facts, matrix) == [Finding(
        "torch-not-rocm-on-amd-gpu", Severity.ERROR, Section.TORCH,
        "torch 2.8.0+cu128 is a CUDA build on a machine whose GPUs are AMD's: it runs on the CPU",
        ("AMD GPU 0: AMD Radeon RX 6800", "AMD GPU 1: AMD Instinct MI50 (gfx906)",
         "PyTorch reaches AMD GPUs only through its ROCm build (torch.version.hip)"),
        Fix("Install PyTorch's ROCm build",
            (UNINSTALL, "pip install 'torch==2.6.*' torchvision --index-url https://download.pytorch.org/whl/rocm6.2.4"), PREVIOUS))]


def test_torch_cpu_build_on_amd_gpu_and_without_a_table(matrix):
    (cpu,) = run(rb.torch_cuda_build_on_amd_gpu, machine(TorchBuild(version="2.8.0+cpu"), AmdGpu(0)), matrix)
    assert cpu.title == "torch 2.8.0+cpu is a CPU-only build on a machine whose GPUs are AMD's: it runs on the CPU"
    assert cpu.fix.commands[1] == "pip install 'torch==2.10.*' torchvision --index-url https://download.pytorch.org/whl/rocm7.1"
    (no_table,) = run(rb.torch_cuda_build_on_amd_gpu, machine(TorchBuild(version="2.8.0+cpu", build="cpu"), RX7900XTX), None)
    assert no_table.fix == Fix("Install PyTorch's ROCm build", (), "https://pytorch.org/get-started/locally/")
    # the version unknown: no gap where it would stand
    (unversioned,) = run(rb.torch_cuda_build_on_amd_gpu, machine(TorchBuild(cuda="12.8", build="cuda"), RX7900XTX), None)
    assert unversioned.title == "torch is a CUDA build on a machine whose GPUs are AMD's: it runs on the CPU"


def test_torch_cuda_build_on_amd_gpu_is_silent_unless_the_gpus_are_only_amds(matrix):
    cuda = TorchBuild(version="2.8.0+cu128", cuda="12.8", build="cuda")

    def silent(facts):
        assert run(rb.torch_cuda_build_on_amd_gpu, facts, matrix) == []
    silent(machine(ROCM64, RX7900XTX))
    silent(machine(TorchBuild(version="2.8.0+xpu", build="xpu"), RX7900XTX))
    silent(machine(TorchBuild(version="2.8.0"), RX7900XTX))  # build unknown
    silent(machine(cuda))  # no AMD GPU
    silent(machine(None, RX7900XTX))
    silent(Facts(gpus=(), pci_devices=(), amd_gpus=(RX7900XTX,)))
    silent(dataclasses.replace(machine(cuda, RX7900XTX), pci_devices=(PciDevice(bus_id="0000:01:00.0"),)))  # an NVIDIA GPU too
    silent(dataclasses.replace(machine(cuda, RX7900XTX), gpus=None, pci_devices=None))  # NVIDIA presence unknown


def test_hip_no_binary_for_gpu_where_the_build_cannot_be_judged():
    facts = machine(TorchBuild(version="2.4.0a0+git1234", hip="6.2", build="rocm"), RX6700XT,
                    env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, symptoms=(INVALID, NO_BINARY))
    assert run(rb.hip_no_binary_for_gpu, facts, None) == [Finding(
        "hip-no-binary-for-gpu", Severity.ERROR, Section.TORCH,
        "The ROCm build has no code object for gfx1031's gfx target: nothing can run on the GPU",
        ("log: RuntimeError: HIP error: invalid device function", "AMD GPU 0: AMD Radeon RX 6700 XT (gfx1031)",
         "HSA_OVERRIDE_GFX_VERSION=10.3.0 is set, and the build still has no code object for it"),
        Fix("Use a build that carries this GPU's gfx target (rocminfo names it)", (), "https://pytorch.org/get-started/locally/"))]


def test_hip_no_binary_for_gpu_points_a_container_build_at_the_official_wheel_for_its_target(matrix):
    facts = machine(TorchBuild(version="2.4.0a0+git1234", hip="6.2", build="rocm"), AmdGpu(0, "AMD Instinct MI50", "gfx906"), symptoms=(INVALID,))
    (finding,) = run(rb.hip_no_binary_for_gpu, facts, matrix)
    assert finding.fix == Fix("Use a build that carries this GPU's gfx target (rocminfo names it)",
                              (UNINSTALL, "pip install 'torch==2.6.*' torchvision --index-url https://download.pytorch.org/whl/rocm6.2.4"), PREVIOUS)


def test_hip_no_binary_for_gpu_with_the_gpu_unknown(matrix):
    (finding,) = run(rb.hip_no_binary_for_gpu, machine(ROCM64, AmdGpu(0), symptoms=(NO_BINARY,)), matrix)
    assert finding.title == "The ROCm build has no code object for this GPU's gfx target: nothing can run on the GPU"
    assert finding.evidence == ("log: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!", "AMD GPU 0: model unknown")
    assert finding.fix.commands[1] == "pip install 'torch==2.10.*' torchvision --index-url https://download.pytorch.org/whl/rocm7.1"


def test_hip_no_binary_for_gpu_leaves_a_named_target_to_the_build_check(matrix):
    facts = machine(ROCM64, RX5700XT, symptoms=(INVALID,))
    assert [f.id for f in run(rb.gpu_gfx_not_in_rocm_build, facts, matrix)] == ["gpu-gfx-not-in-rocm-build"]
    assert run(rb.hip_no_binary_for_gpu, facts, matrix) == []
    assert run(rb.hip_no_binary_for_gpu, machine(ROCM64, RX5700XT), None) == []  # nothing logged
    other = Symptom("cuda-no-kernel-image", "no kernel image is available for execution on the device")
    assert run(rb.hip_no_binary_for_gpu, machine(ROCM64, RX5700XT, symptoms=(other,)), None) == []
