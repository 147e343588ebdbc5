"""Platforms besides NVIDIA CUDA: Apple silicon, Jetson, DirectML, Intel XPU, MXNet, Colab/Kaggle, XLA devices.
Snapshots of real machines from public threads (tests/data/platforms/README.md) and hand-built facts."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence as read_text
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Apple, Facts, Frameworks, Host, Jetson, Notebook, Section, Severity, Status, TensorflowBuild, TorchBuild
from gpudoctor.snapshot import facts_from_json

DATA = Path(__file__).resolve().parent.parent / "data" / "platforms"


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def _ids(report) -> dict[str, Severity]:
    return {f.id: f.severity for f in report.findings}


def _snapshot(name: str) -> Facts:
    return facts_from_json((DATA / name).read_text(), name)


def _mac(**apple) -> Host:
    return Host(os="darwin", arch=apple.get("python_arch", "arm64"), apple=Apple(**apple))


# -- Apple silicon -------------------------------------------------------------------------------------------------


def test_rosetta_mac_from_pytorch_146236_is_an_error_with_the_native_python_fix(matrix):
    report = run_checks(_snapshot("mac-rosetta-pytorch-146236.json"), matrix)
    ids = _ids(report)
    assert ids["apple-python-under-rosetta"] is Severity.ERROR
    finding = next(f for f in report.findings if f.id == "apple-python-under-rosetta")
    assert "chip: Apple M2 Pro" in finding.evidence
    assert any("arm64" in c for c in finding.fix.commands)
    # macOS 10.16 is the compatibility version an old-SDK Python sees, not a macOS too old for MPS
    assert "apple-macos-too-old-for-mps" not in ids
    assert "no-nvidia-gpu" not in ids and "torch-cpu-only-build" not in ids


def test_native_apple_silicon_is_ok_and_nvidia_checks_do_not_apply(matrix):
    facts = Facts(host=_mac(macos="14.5", python_arch="arm64", rosetta=False, chip="Apple M3"), gpus=(),
                  python_packages={"torch": "2.5.1"}, frameworks=Frameworks(torch=TorchBuild(version="2.5.1", build="cpu")))
    report = run_checks(facts, matrix)
    ids = _ids(report)
    assert ids == {"apple-silicon-gpu": Severity.OK}
    gpu = next(s for s in report.sections if s.section is Section.GPU)
    assert gpu.status is Status.OK


def test_macos_older_than_mps_needs(matrix):
    facts = Facts(host=_mac(macos="12.2.1", python_arch="arm64", rosetta=False), python_packages={"torch": "1.13.1"})
    assert _ids(run_checks(facts, matrix))["apple-macos-too-old-for-mps"] is Severity.ERROR
    assert "apple-macos-too-old-for-mps" not in _ids(run_checks(Facts(host=_mac(macos="12.3", python_arch="arm64", rosetta=False)), matrix))


def test_deep_mps_unavailable_on_apple_silicon(matrix):
    torch = TorchBuild(version="2.4.0", build="cpu", mps_built=True, mps_available=False)
    facts = Facts(host=_mac(macos="14.1", python_arch="arm64", rosetta=False), frameworks=Frameworks(torch=torch))
    assert _ids(run_checks(facts, matrix))["torch-mps-unavailable"] is Severity.ERROR
    ok = Facts(host=facts.host, frameworks=Frameworks(torch=TorchBuild(version="2.4.0", build="cpu", mps_built=True, mps_available=True)))
    assert _ids(run_checks(ok, matrix))["torch-mps-available"] is Severity.OK


@pytest.mark.parametrize(("metal", "tf", "expected"), [
    ("1.1.0", "2.14.0", None), ("1.1.0", "2.16.2", None), ("1.2.0", "2.18.0", None), ("1.0.0", "2.13.1", None),
    ("1.1.0", "2.18.1", "1.2"), ("0.8.0", "2.14.0", "1.1"), ("1.2.0", "2.16.1", "1.1"),
])
def test_tensorflow_metal_pairing_follows_the_plugins_table(matrix, metal, tf, expected):
    facts = Facts(host=_mac(macos="14.0", python_arch="arm64", rosetta=False),
                  python_packages={"tensorflow": tf, "tensorflow-metal": metal}, frameworks=Frameworks(tensorflow=TensorflowBuild(version=tf)))
    report = run_checks(facts, matrix)
    found = [f for f in report.findings if f.id == "tf-metal-version-mismatch"]
    if expected is None:
        assert not found
    else:
        assert found[0].severity is Severity.ERROR
        assert found[0].fix.commands == (f"pip install 'tensorflow-metal=={expected}.*'",)


def test_tensorflow_on_apple_silicon_without_metal_is_info(matrix):
    facts = Facts(host=_mac(macos="14.0", python_arch="arm64", rosetta=False),
                  python_packages={"tensorflow": "2.16.2", "tensorflow-metal": None})
    finding = next(f for f in run_checks(facts, matrix).findings if f.id == "tf-metal-missing")
    assert finding.severity is Severity.INFO and "tensorflow-metal==1.1" in finding.fix.commands[0]


# -- Jetson --------------------------------------------------------------------------------------------------------


def test_jetson_nano_with_the_cpu_aarch64_wheel_from_a_public_thread(matrix):
    report = run_checks(_snapshot("jetson-nano-aarch64-cpu-torch.json"), matrix)
    ids = _ids(report)
    assert ids["jetson-torch-not-jetson-build"] is Severity.ERROR
    assert ids["jetson-integrated-gpu"] is Severity.INFO  # L4T 32.4.3 (JetPack 4.4) is not in the table
    assert "no-nvidia-gpu" not in ids and "torch-cpu-only-build" not in ids


def test_jetson_on_jetpack_62_with_a_cuda_13_server_wheel(matrix):
    torch = TorchBuild(version="2.11.0", cuda="13.0", build="cuda")
    facts = Facts(host=Host(os="linux", arch="aarch64"), gpus=(), pci_devices=(), jetson=Jetson(l4t="36.4.3"),
                  frameworks=Frameworks(torch=torch), python_packages={"torch": "2.11.0"})
    report = run_checks(facts, matrix)
    ids = _ids(report)
    assert ids["jetson-integrated-gpu"] is Severity.OK
    finding = next(f for f in report.findings if f.id == "jetson-torch-not-jetson-build")
    assert "CUDA 12.6" in finding.title and "JetPack 6.2" in finding.title
    assert "https://pypi.jetson-ai-lab.dev/jp6/cu126" in finding.fix.commands[-1]
    assert "torch-cuda-build-no-gpu" not in ids and "no-nvidia-gpu" not in ids


def test_jetson_with_nvidias_build_is_healthy(matrix):
    torch = TorchBuild(version="2.5.0a0+872d972e41.nv24.08", cuda="12.6", build="cuda")
    facts = Facts(host=Host(os="linux", arch="aarch64"), gpus=(), pci_devices=(), jetson=Jetson(l4t="36.4.0", l4t_core="36.4.0-20240912212859"),
                  frameworks=Frameworks(torch=torch), python_packages={"torch": torch.version})
    ids = _ids(run_checks(facts, matrix))
    assert ids.get("jetson-integrated-gpu") is Severity.OK
    assert "jetson-torch-not-jetson-build" not in ids
    assert not [i for i, s in ids.items() if s >= Severity.WARNING]


def test_jetson_cpu_tensorflow(matrix):
    facts = Facts(host=Host(os="linux", arch="aarch64"), jetson=Jetson(l4t="35.3.1"),
                  frameworks=Frameworks(tensorflow=TensorflowBuild(version="2.12.0", is_cuda_build=False)))
    assert _ids(run_checks(facts, matrix))["jetson-tf-not-jetson-build"] is Severity.ERROR


# -- DirectML, XPU, MXNet, notebooks, XLA --------------------------------------------------------------------------


def test_directml_on_wsl2_is_reported_not_judged(matrix):
    facts = Facts(host=Host(os="linux", wsl=2), python_packages={"torch-directml": "0.2.5.dev240914", "torch": "2.4.1"})
    finding = next(f for f in run_checks(facts, matrix).findings if f.id == "directml-detected")
    assert finding.severity is Severity.INFO
    assert any("WSL2" in e for e in finding.evidence) and "torch_directml.device()" in " ".join(finding.evidence)


def test_intel_xpu_build(matrix):
    torch = TorchBuild(version="2.7.0+xpu", build="xpu", xpu="20250101")
    ids = _ids(run_checks(Facts(frameworks=Frameworks(torch=torch)), matrix))
    assert ids["intel-xpu-detected"] is Severity.INFO
    deep = TorchBuild(version="2.7.0+xpu", build="xpu", xpu="20250101", xpu_available=False)
    assert _ids(run_checks(Facts(frameworks=Frameworks(torch=deep)), matrix))["intel-xpu-detected"] is Severity.WARNING


def test_mxnet_is_retired_info_only(matrix):
    report = run_checks(Facts(python_packages={"mxnet-cu112": "1.9.1", "mxnet": None}), matrix)
    finding = next(f for f in report.findings if f.id == "mxnet-retired")
    assert finding.severity is Severity.INFO
    assert "mxnet-cu112 1.9.1" in finding.evidence and "attic.apache.org" in finding.fix.url
    assert report.worst is Severity.INFO


def test_colab_cpu_runtime_from_colabtools_930(matrix):
    report = run_checks(_snapshot("colab-cpu-runtime.json"), matrix)
    finding = next(f for f in report.findings if f.id == "notebook-cpu-runtime")
    assert finding.severity is Severity.WARNING
    assert "Runtime → Change runtime type" in finding.fix.summary


def test_kaggle_with_a_gpu_is_not_flagged(matrix):
    facts = Facts(host=Host(os="linux", notebook=Notebook(kind="kaggle", env={"KAGGLE_KERNEL_RUN_TYPE": "Interactive"})),
                  gpus=(), pci_devices=())
    assert "Settings → Accelerator" in next(f for f in run_checks(facts, matrix).findings if f.id == "notebook-cpu-runtime").fix.summary
    from gpudoctor.model import Gpu

    with_gpu = Facts(host=facts.host, gpus=(Gpu(index=0, name="Tesla P100-PCIE-16GB"),))
    assert "notebook-cpu-runtime" not in _ids(run_checks(with_gpu, matrix))


def test_tf1_xla_devices_are_explained(matrix):
    facts = read_text((DATA / "tf1-colab-device-list.txt").read_text())
    assert facts.frameworks.tensorflow.gpus_visible == 1
    finding = next(f for f in run_checks(facts, matrix).findings if f.id == "tf-xla-devices")
    assert finding.severity is Severity.INFO and "1 XLA_GPU, 1 XLA_CPU" in finding.title
    only_xla = read_text("/device:CPU:0\n/device:XLA_CPU:0\n/device:XLA_GPU:0\n")
    explained = next(f for f in run_checks(only_xla, matrix).findings if f.id == "tf-xla-devices")
    assert any("could not load CUDA/cuDNN" in e for e in explained.evidence)


def test_a_plain_linux_nvidia_machine_gets_none_of_the_platform_findings(matrix):
    from gpudoctor.model import Driver, Gpu

    facts = Facts(host=Host(os="linux", arch="x86_64"), driver=Driver(version="570.124.04", cuda_version="12.8"),
                  gpus=(Gpu(index=0, name="NVIDIA GeForce RTX 4090", compute_capability="8.9"),), python_packages={"torch": "2.7.1+cu126"})
    platform_ids = {"apple-", "jetson-", "directml-", "intel-xpu-", "mxnet-", "notebook-", "tf-xla-", "tf-metal-", "torch-mps-"}
    assert not [i for i in _ids(run_checks(facts, matrix)) if i.startswith(tuple(platform_ids))]
