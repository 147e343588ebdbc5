"""Jetson rules, finding by finding (issue 11: mutation score of checks/platforms_jetson.py): the integrated-GPU
finding for a known and an unknown L4T release, the non-Jetson torch (CPU-only, another CUDA major) and TensorFlow
builds with their exact fixes, and the boards and builds that must stay silent."""

from __future__ import annotations

import pytest

from gpudoctor.checks import platforms_jetson as jetson
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Finding, Fix, Frameworks, Host, Jetson, Section, Severity, TensorflowBuild, TorchBuild

TORCH_URL = "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html"
TF_URL = "https://docs.nvidia.com/deeplearning/frameworks/install-tf-jetson-platform/index.html"
ORIN = "NVIDIA Jetson AGX Orin Developer Kit"
INTEGRATED = "a Jetson's GPU is integrated: there is no nvidia-smi or NVML, and no PCI device to list"
NOT_IN_TABLE = "this L4T release is not in matrices/jetpack.toml: its CUDA and framework builds were not judged"
UNINSTALL_TORCH = "pip uninstall -y torch torchvision torchaudio"


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def board(torch: TorchBuild | None = None, tf: TensorflowBuild | None = None, **jetson_facts) -> Facts:
    frameworks = Frameworks(torch=torch, tensorflow=tf) if torch or tf else None
    return Facts(host=Host(os="linux", arch="aarch64"), gpus=(), pci_devices=(), jetson=Jetson(**jetson_facts), frameworks=frameworks)


def run(rule, facts: Facts, matrix) -> list[Finding]:
    return list(rule(facts, matrix))


# -- the integrated GPU ----------------------------------------------------------------------------------------------


def test_known_jetpack_release_pinned(matrix):
    facts = board(l4t="36.4.3", l4t_core="36.4.3-20250107174145", model=ORIN)
    assert run(jetson.jetson_integrated_gpu, facts, matrix) == [Finding(
        "jetson-integrated-gpu", Severity.OK, Section.GPU,
        "NVIDIA Jetson, JetPack 6.2 (L4T 36.4.3): integrated GPU (judged by its JetPack release, not nvidia-smi)",
        ("/etc/nv_tegra_release: L4T 36.4.3", "nvidia-l4t-core 36.4.3-20250107174145", f"model: {ORIN}", INTEGRATED,
         "JetPack 6.2 ships CUDA 12.6, cuDNN 9.3, TensorRT 10.3 (gpudoctor matrix jetpack 6.2)"))]


def test_a_release_without_a_tensorrt_row_lists_what_it_has(matrix):
    (finding,) = run(jetson.jetson_integrated_gpu, board(l4t="36.3"), matrix)  # "36.3" is L4T 36.3.0
    assert finding.title.startswith("NVIDIA Jetson, JetPack 6.0 (L4T 36.3): ")
    assert finding.evidence == ("/etc/nv_tegra_release: L4T 36.3", INTEGRATED,
                                "JetPack 6.0 ships CUDA 12.2, cuDNN 8.9 (gpudoctor matrix jetpack 6.0)")


def test_unknown_l4t_release_is_info_pinned(matrix):
    assert run(jetson.jetson_integrated_gpu, board(l4t="32.4.3", model="NVIDIA Jetson Nano Developer Kit"), matrix) == [Finding(
        "jetson-integrated-gpu", Severity.INFO, Section.GPU,
        "NVIDIA Jetson, L4T 32.4.3: integrated GPU (the JetPack release is not one gpudoctor knows)",
        ("/etc/nv_tegra_release: L4T 32.4.3", "model: NVIDIA Jetson Nano Developer Kit", INTEGRATED, NOT_IN_TABLE))]


def test_a_board_known_only_by_its_package_or_model(matrix):
    (finding,) = run(jetson.jetson_integrated_gpu, board(l4t_core="36.4.3-20250107174145"), matrix)
    assert (finding.severity, finding.title) == (
        Severity.INFO, "NVIDIA Jetson, L4T release unknown: integrated GPU (the JetPack release is not one gpudoctor knows)")
    assert finding.evidence == ("L4T release: unknown", "nvidia-l4t-core 36.4.3-20250107174145", INTEGRATED, NOT_IN_TABLE)
    (by_model,) = run(jetson.jetson_integrated_gpu, board(model=ORIN), None)
    assert by_model.evidence == ("L4T release: unknown", f"model: {ORIN}", INTEGRATED, NOT_IN_TABLE)


def test_no_jetpack_table_is_info_not_ok(matrix):
    (finding,) = run(jetson.jetson_integrated_gpu, board(l4t="36.4.3"), None)
    assert finding.severity is Severity.INFO and finding.title.startswith("NVIDIA Jetson, L4T 36.4.3: ")


@pytest.mark.parametrize("facts", [Facts(), board(), board(board="t186ref"), Facts(host=Host(os="linux", arch="aarch64"))])
def test_not_a_jetson_is_silent(matrix, facts):
    for rule in jetson.CHECKS:
        assert run(rule, facts, matrix) == []


# -- torch ----------------------------------------------------------------------------------------------------------

JP62_TORCH_FIX = Fix("Install NVIDIA's PyTorch for JetPack 6.2 (torch 2.4, 2.5, 2.6, Python 3.10)",
                     (UNINSTALL_TORCH, "pip install torch torchvision --index-url https://pypi.jetson-ai-lab.dev/jp6/cu126"),
                     TORCH_URL)


def test_cpu_torch_on_a_known_release_pinned(matrix):
    facts = board(TorchBuild(version="2.1.0", build="cpu"), l4t="36.4.3")
    assert run(jetson.jetson_torch_not_jetson_build, facts, matrix) == [Finding(
        "jetson-torch-not-jetson-build", Severity.ERROR, Section.TORCH,
        "torch 2.1.0 is a CPU-only build (the package index's aarch64 wheel): it cannot use the Jetson's GPU",
        ("torch.version.cuda = None", "this board: JetPack 6.2 (L4T 36.4.3)"), JP62_TORCH_FIX)]


def test_cpu_torch_on_an_unknown_release_pinned(matrix):
    facts = board(TorchBuild(version="1.13.0+cpu"), l4t="32.4.3")  # CPU-only by its wheel tag
    assert run(jetson.jetson_torch_not_jetson_build, facts, matrix) == [Finding(
        "jetson-torch-not-jetson-build", Severity.ERROR, Section.TORCH,
        "torch 1.13.0+cpu is a CPU-only build (the package index's aarch64 wheel): it cannot use the Jetson's GPU",
        ("torch.version.cuda = None", "this board: L4T 32.4.3"),
        Fix("Install NVIDIA's PyTorch build for this JetPack release (or use the l4t-pytorch container of this L4T)",
            (UNINSTALL_TORCH, "cat /etc/nv_tegra_release   # the L4T release to choose it by"), TORCH_URL))]


def test_cuda_13_server_wheel_on_jetpack_62_pinned(matrix):
    facts = board(TorchBuild(cuda="13.0", build="cuda"), l4t="36.4.3")
    assert run(jetson.jetson_torch_not_jetson_build, facts, matrix) == [Finding(
        "jetson-torch-not-jetson-build", Severity.ERROR, Section.TORCH,
        "torch (version unknown) is a CUDA 13.0 build, but JetPack 6.2 (L4T 36.4.3) has CUDA 12.6: it is a server (SBSA) "
        "or another JetPack's wheel, not NVIDIA's Jetson build for this board",
        ("torch.version.cuda = 13.0", "this board: JetPack 6.2 (L4T 36.4.3)"), JP62_TORCH_FIX)]


def test_an_older_jetpack_points_at_nvidias_wheel_directory(matrix):
    (finding,) = run(jetson.jetson_torch_not_jetson_build, board(TorchBuild(version="2.0.0", cuda="12.1"), l4t="35.4.1"), matrix)
    assert finding.title.startswith("torch 2.0.0 is a CUDA 12.1 build, but JetPack 5.1.2 (L4T 35.4.1) has CUDA 11.4: ")
    assert finding.fix.summary == "Install NVIDIA's PyTorch for JetPack 5.1.2 (torch 2.0, 2.1, Python 3.8)"
    assert finding.fix.commands == (
        UNINSTALL_TORCH, "pip install <torch wheel for JetPack 5.1.2 from https://developer.download.nvidia.com/compute/redist/jp/v512/pytorch/>")


@pytest.mark.parametrize("torch, l4t", [
    (TorchBuild(version="1.10.0", cuda="10.0", build="cuda"), "32.7.1"),  # the same CUDA major as JetPack 4.6.1's 10.2
    (TorchBuild(version="2.5.0a0+872d972e41.nv24.08", cuda="12.6", build="cuda"), "36.4.0"),  # NVIDIA's own build
    (TorchBuild(version="2.11.0", cuda="13.0", build="cuda"), "32.4.3"),  # unknown release: the CUDA cannot be compared
    (TorchBuild(version="2.11.0", build="cuda"), "36.4.3"),  # CUDA version unknown
    (TorchBuild(version="2.4.0", build="rocm", hip="6.1"), "36.4.3"),
    (TorchBuild(version="2.4.0"), "36.4.3"),  # build unknown: never read as CPU-only
])
def test_torch_builds_not_judged_wrong(matrix, torch, l4t):
    assert run(jetson.jetson_torch_not_jetson_build, board(torch, l4t=l4t), matrix) == []


def test_no_torch_is_silent(matrix):
    assert run(jetson.jetson_torch_not_jetson_build, board(tf=TensorflowBuild(version="2.15.0"), l4t="36.4.3"), matrix) == []


# -- TensorFlow -----------------------------------------------------------------------------------------------------


def test_cpu_tensorflow_pinned(matrix):
    facts = board(tf=TensorflowBuild(version="2.12.0", is_cuda_build=False), l4t="35.3.1")
    assert run(jetson.jetson_tf_not_jetson_build, facts, matrix) == [Finding(
        "jetson-tf-not-jetson-build", Severity.ERROR, Section.TENSORFLOW,
        "TensorFlow 2.12.0 is a CPU-only build: it cannot use the Jetson's GPU",
        ("build_info: is_cuda_build = False", "this board: JetPack 5.1.1 (L4T 35.3.1)"),
        Fix("Install NVIDIA's TensorFlow for Jetson for this JetPack release, or use the l4t-tensorflow container of this L4T",
            ("pip uninstall -y tensorflow", "cat /etc/nv_tegra_release   # the L4T release to choose the build by"), TF_URL))]
    (unknown,) = run(jetson.jetson_tf_not_jetson_build, board(tf=TensorflowBuild(is_cuda_build=False), model=ORIN), matrix)
    assert unknown.title == "TensorFlow (version unknown) is a CPU-only build: it cannot use the Jetson's GPU"
    assert unknown.evidence[1] == "this board: L4T release unknown"


@pytest.mark.parametrize("cuda_build", [True, None])
def test_tensorflow_cuda_or_unknown_build_is_silent(matrix, cuda_build):
    facts = board(tf=TensorflowBuild(version="2.15.0+nv24.05", is_cuda_build=cuda_build), l4t="36.4.3")
    assert run(jetson.jetson_tf_not_jetson_build, facts, matrix) == []
    assert run(jetson.jetson_tf_not_jetson_build, board(TorchBuild(build="cpu"), l4t="36.4.3"), matrix) == []


def test_tensorflow_without_the_nv_tag_is_the_package_index_s_build_pinned(matrix):
    facts = board(tf=TensorflowBuild(version="2.13.1"), l4t="35.3.1")
    assert run(jetson.jetson_tf_not_jetson_build, facts, matrix) == [Finding(
        "jetson-tf-not-jetson-build", Severity.ERROR, Section.TENSORFLOW,
        "TensorFlow 2.13.1 is not NVIDIA's build for Jetson: it cannot use the Jetson's GPU",
        ("version 2.13.1 has no +nv tag: NVIDIA's Jetson wheels are versioned like 2.11.0+nv23.01",
         "this board: JetPack 5.1.1 (L4T 35.3.1)"),
        Fix("Install NVIDIA's TensorFlow for Jetson for this JetPack release, or use the l4t-tensorflow container of this L4T",
            ("pip uninstall -y tensorflow", "cat /etc/nv_tegra_release   # the L4T release to choose the build by"), TF_URL))]


def test_a_cuda_build_without_the_tag_an_unknown_version_or_no_jetson_is_silent(matrix):
    assert run(jetson.jetson_tf_not_jetson_build, board(tf=TensorflowBuild(version="2.13.1", is_cuda_build=True), l4t="35.3.1"), matrix) == []
    assert run(jetson.jetson_tf_not_jetson_build, board(tf=TensorflowBuild(path="/usr/lib/python3/dist-packages/tensorflow")), matrix) == []
    pc = Facts(host=Host(os="linux", arch="aarch64"), frameworks=Frameworks(tensorflow=TensorflowBuild(version="2.13.1", is_cuda_build=False)))
    assert run(jetson.jetson_tf_not_jetson_build, pc, matrix) == []


def test_the_local_tag_is_the_jetpack_tables_not_the_codes(matrix):
    import dataclasses

    facts = board(tf=TensorflowBuild(version="2.13.1+nv23.08"), l4t="35.3.1")
    assert run(jetson.jetson_tf_not_jetson_build, facts, matrix) == []  # the shipped table's tag: "nv"
    other = dataclasses.replace(matrix, platform_tables=dataclasses.replace(matrix.platform_tables, jetson_tf_local_tag="xy"))
    (f,) = run(jetson.jetson_tf_not_jetson_build, facts, other)
    assert f.evidence[0] == "version 2.13.1+nv23.08 has no +xy tag: NVIDIA's Jetson wheels are versioned like 2.11.0+xy23.01"
    untold = dataclasses.replace(matrix, platform_tables=dataclasses.replace(matrix.platform_tables, jetson_tf_local_tag=None))
    assert run(jetson.jetson_tf_not_jetson_build, board(tf=TensorflowBuild(version="2.13.1"), l4t="35.3.1"), untold) == []
