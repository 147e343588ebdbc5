"""Other accelerator routes, finding by finding (issue 11: mutation score of checks/platforms_misc.py): DirectML,
Intel XPU, MXNet, a Colab / Kaggle CPU runtime and TensorFlow's XLA devices, each pinned whole with the notes of
matrices/accelerators.toml and without them, and the machines each must stay silent on."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import platforms_misc as misc
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.platform_tables import AcceleratorNotes
from gpudoctor.model import Facts, Finding, Fix, Frameworks, Gpu, Host, Jetson, Notebook, Section, Severity, Symptom, TorchBuild

TORCH_DML = ("PyTorch on any DirectX 12 GPU (AMD, Intel, NVIDIA) of Windows or WSL2, as the device torch_directml.device(); "
             "not as 'cuda'")
TF_DML = "TensorFlow on any DirectX 12 GPU of Windows or WSL2, loaded into tensorflow-cpu==2.10.*"
DML_TEST = "Smoke-test it with `gpudoctor verify --device directml` (PyTorch)"
XPU_FIX = Fix("Smoke-test it with `gpudoctor verify --device xpu`; XPU builds come from https://download.pytorch.org/whl/xpu", (),
              "https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html")
XPU_INFO = "Intel GPU (XPU) support is installed: PyTorch trains on the 'xpu' device, not 'cuda'"
XPU_WARNING = "torch is an Intel XPU build, but it sees no Intel GPU (torch.xpu.is_available() is False)"


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def run(rule, facts: Facts, matrix) -> list[Finding]:
    return list(rule(facts, matrix))


# -- DirectML -------------------------------------------------------------------------------------------------------


def test_directml_torch_and_tensorflow_pinned(matrix):
    facts = Facts(host=Host(os="linux", wsl=2),
                  python_packages={"torch-directml": "0.2.5.dev240914", "tensorflow-directml-plugin": "0.4.0.dev230202"})
    assert run(misc.directml_detected, facts, matrix) == [
        Finding("directml-detected", Severity.INFO, Section.TORCH,
                "torch-directml 0.2.5.dev240914 is installed: DirectML runs PyTorch on any DirectX 12 GPU (AMD, Intel, NVIDIA) (not CUDA)",
                ("torch-directml 0.2.5.dev240914 on WSL2", f"supports: {TORCH_DML}"),
                Fix(DML_TEST, (), "https://learn.microsoft.com/en-us/windows/ai/directml/pytorch-windows")),
        Finding("directml-detected", Severity.INFO, Section.TENSORFLOW,
                "tensorflow-directml-plugin 0.4.0.dev230202 is installed: DirectML runs TensorFlow on any DirectX 12 GPU (not CUDA)",
                ("tensorflow-directml-plugin 0.4.0.dev230202 on WSL2", f"supports: {TF_DML}"),
                Fix(DML_TEST, (), "https://learn.microsoft.com/en-us/windows/ai/directml/gpu-tensorflow-plugin")),
    ]


@pytest.mark.parametrize("host, where", [
    (Host(os="windows"), "windows"), (Host(os="linux", wsl=1), "linux"), (Host(wsl=1), "this machine"), (None, "this machine"),
])
def test_directml_says_where_it_runs(matrix, host, where):
    (finding,) = run(misc.directml_detected, Facts(host=host, python_packages={"tensorflow-directml-plugin": "0.4.0"}), matrix)
    assert finding.evidence[0] == f"tensorflow-directml-plugin 0.4.0 on {where}"


def test_directml_without_the_accelerator_notes(matrix):
    facts = Facts(host=Host(os="windows"), python_packages={"torch-directml": "0.2.0", "tensorflow-directml-plugin": "0.1.0"})
    torch, tf = run(misc.directml_detected, facts, None)
    assert torch.evidence[1] == ("supports: PyTorch on any DirectX 12 GPU (AMD, Intel, NVIDIA) of Windows or WSL2, as the device "
                                 "torch_directml.device(); not as 'cuda'")
    assert tf.evidence[1] == "supports: TensorFlow on any DirectX 12 GPU of Windows or WSL2, loaded into tensorflow-cpu 2.10"
    assert torch.fix == tf.fix == Fix(DML_TEST, (), None)


@pytest.mark.parametrize("packages", [None, {}, {"torch-directml": None, "tensorflow-directml-plugin": None}, {"torch": "2.4.1"}])
def test_directml_silent(matrix, packages):
    assert run(misc.directml_detected, Facts(host=Host(os="windows"), python_packages=packages), matrix) == []


# -- Intel XPU ------------------------------------------------------------------------------------------------------


def xpu(torch: TorchBuild | None = None, ipex: str | None = None) -> Facts:
    return Facts(frameworks=Frameworks(torch=torch), python_packages={"intel-extension-for-pytorch": ipex})


def test_xpu_build_pinned(matrix):
    assert run(misc.intel_xpu_detected, xpu(TorchBuild(version="2.7.0+xpu", build="xpu", xpu="20250101")), matrix) == [Finding(
        "intel-xpu-detected", Severity.INFO, Section.TORCH, XPU_INFO,
        ("torch 2.7.0+xpu: XPU build (torch.version.xpu = 20250101)",), XPU_FIX)]


def test_xpu_build_that_sees_no_gpu_is_a_warning_pinned(matrix):
    torch = TorchBuild(version="2.7.0+xpu", xpu="20250101", xpu_available=False)
    assert run(misc.intel_xpu_detected, xpu(torch, ipex="2.7.10+xpu"), matrix) == [Finding(
        "intel-xpu-detected", Severity.WARNING, Section.TORCH, XPU_WARNING,
        ("torch 2.7.0+xpu: XPU build (torch.version.xpu = 20250101)", "torch.xpu.is_available() = False",
         "intel-extension-for-pytorch 2.7.10+xpu"), XPU_FIX)]


@pytest.mark.parametrize("facts, evidence", [
    (xpu(TorchBuild(version="2.7.0+xpu", xpu_available=True)), ("torch 2.7.0+xpu: XPU build", "torch.xpu.is_available() = True")),
    (xpu(TorchBuild(build="xpu")), ("torch (version unknown): XPU build",)),
    (xpu(ipex="2.1.10+xpu"), ("intel-extension-for-pytorch 2.1.10+xpu",)),
    # with a CPU torch beside IPEX, what the CPU build says about XPU is not evidence
    (xpu(TorchBuild(version="2.1.0", build="cpu", xpu_available=False), ipex="2.1.10"), ("intel-extension-for-pytorch 2.1.10",)),
])
def test_xpu_evidence_and_info(matrix, facts, evidence):
    (finding,) = run(misc.intel_xpu_detected, facts, matrix)
    assert (finding.severity, finding.title, finding.evidence) == (Severity.INFO, XPU_INFO, evidence)


def test_xpu_without_the_accelerator_notes(matrix):
    (finding,) = run(misc.intel_xpu_detected, xpu(TorchBuild(build="xpu")), None)
    assert finding.fix == Fix("Smoke-test it with `gpudoctor verify --device xpu`; XPU builds come from "
                              "https://download.pytorch.org/whl/xpu", (), None)


@pytest.mark.parametrize("facts", [
    xpu(TorchBuild(version="2.7.1+cu126", build="cuda", xpu_available=False)), xpu(TorchBuild(version="2.7.1")), xpu(),
    Facts(), Facts(frameworks=Frameworks(torch=None)),
])
def test_xpu_silent(matrix, facts):
    assert run(misc.intel_xpu_detected, facts, matrix) == []


# -- MXNet ----------------------------------------------------------------------------------------------------------

MXNET_TITLE = "MXNet is retired upstream (moved to the Apache Attic in 2023): no fixes or new CUDA builds will come"


def test_mxnet_pinned(matrix):
    packages = {"mxnet-mkl": "1.6.0", "mxnet": None, "mxnet-cu112": "1.9.1", "gluoncv": "0.10.5", "mxnetx": "1.0"}
    assert run(misc.mxnet_retired, Facts(python_packages=packages), matrix) == [Finding(
        "mxnet-retired", Severity.INFO, Section.ENVIRONMENT, MXNET_TITLE,
        ("mxnet-cu112 1.9.1", "mxnet-mkl 1.6.0", "last release: 1.9.1"),
        Fix("Move to PyTorch (the closest API to Gluon) or JAX; keep MXNet pinned (mxnet==1.9.1) only to run existing models",
            (), "https://attic.apache.org/projects/mxnet.html"))]


def test_mxnet_without_the_accelerator_notes(matrix):
    assert run(misc.mxnet_retired, Facts(python_packages={"mxnet": "1.9.1"}), None) == [Finding(
        "mxnet-retired", Severity.INFO, Section.ENVIRONMENT, MXNET_TITLE, ("mxnet 1.9.1",),
        Fix("Move to PyTorch or JAX", (), "https://attic.apache.org/projects/mxnet.html"))]


@pytest.mark.parametrize("packages", [None, {}, {"mxnet": None, "mxnet-cu112": None}, {"gluoncv": "0.10.5", "xmxnet-cu112": "1.0"}])
def test_mxnet_silent(matrix, packages):
    assert run(misc.mxnet_retired, Facts(python_packages=packages), matrix) == []


# -- hosted notebooks on a CPU runtime ------------------------------------------------------------------------------

COLAB_FIX = Fix("Runtime → Change runtime type → Hardware accelerator: a GPU (e.g. T4), then run the notebook again", (),
                "https://research.google.com/colaboratory/faq.html")
KAGGLE_FIX = Fix("Settings → Accelerator → a GPU (e.g. GPU T4 x2 or P100), then run the notebook again", (),
                 "https://www.kaggle.com/docs/notebooks")
NO_GPUS = "RuntimeError: No CUDA GPUs are available"


def notebook(kind: str | None, env=None, **facts) -> Facts:
    return Facts(host=Host(os="linux", notebook=Notebook(kind=kind, env=env)), **facts)


def test_colab_cpu_runtime_pinned(matrix):
    facts = notebook("colab", {"COLAB_RELEASE_TAG": "release-colab_20240626", "COLAB_GPU": "0"}, gpus=(), pci_devices=())
    assert run(misc.notebook_cpu_runtime, facts, matrix) == [Finding(
        "notebook-cpu-runtime", Severity.WARNING, Section.GPU,
        "This Google Colab notebook runs on a CPU runtime: choose a GPU accelerator for the session (the usual cause of 'no GPU' there)",
        ("Google Colab runtime, COLAB_GPU='0', COLAB_RELEASE_TAG='release-colab_20240626'", "no NVIDIA GPU in this runtime"),
        COLAB_FIX)]


def test_kaggle_cpu_runtime_pinned(matrix):
    assert run(misc.notebook_cpu_runtime, notebook("kaggle", gpus=()), matrix) == [Finding(
        "notebook-cpu-runtime", Severity.WARNING, Section.GPU,
        "This Kaggle notebook runs on a CPU runtime: choose a GPU accelerator for the session (the usual cause of 'no GPU' there)",
        ("Kaggle runtime", "no NVIDIA GPU in this runtime"), KAGGLE_FIX)]


@pytest.mark.parametrize("said, quoted", [
    ((Symptom("cuda-unavailable", NO_GPUS),), NO_GPUS),
    ((Symptom("cuda-no-device", "cudaGetDeviceCount returned 100"),), "cudaGetDeviceCount returned 100"),
    ((Symptom("cuda-no-device", "cudaGetDeviceCount returned 100"), Symptom("cuda-unavailable", NO_GPUS)), NO_GPUS),
])
def test_a_pasted_no_gpu_message_on_a_notebook_is_quoted(matrix, said, quoted):
    (finding,) = run(misc.notebook_cpu_runtime, notebook("kaggle", symptoms=said), matrix)
    assert finding.evidence == ("Kaggle runtime", f"log: {quoted}")


@pytest.mark.parametrize("facts", [
    notebook("colab", gpus=(Gpu(index=0, name="Tesla T4"),), symptoms=(Symptom("cuda-unavailable", NO_GPUS),)),
    notebook("colab"),  # the GPU list is unknown and nothing was pasted
    notebook("colab", symptoms=(Symptom("oom", "CUDA out of memory"),)),
    notebook("jupyter", gpus=()), notebook(None, gpus=()),
    Facts(host=Host(os="linux", notebook=Notebook(kind="colab")), gpus=(), jetson=Jetson(l4t="36.4.3")),
    Facts(gpus=(), symptoms=(Symptom("cuda-unavailable", NO_GPUS),)),
])
def test_notebook_silent(matrix, facts):
    assert run(misc.notebook_cpu_runtime, facts, matrix) == []


def test_a_probed_empty_gpu_list_wins_over_a_pasted_message(matrix):
    (finding,) = run(misc.notebook_cpu_runtime, notebook("colab", gpus=(), symptoms=(Symptom("cuda-unavailable", NO_GPUS),)), matrix)
    assert finding.evidence == ("Google Colab runtime", "no NVIDIA GPU in this runtime")


# -- TensorFlow's XLA devices ---------------------------------------------------------------------------------------

XLA_EXPLAINED = ("XLA_CPU / XLA_GPU are XLA's compilation devices that TensorFlow 1.x (and Colab's TF 1.x runtimes) list beside "
                 "the real CPU and GPU devices: they are not extra or missing hardware")


def test_xla_devices_pinned(matrix):
    listed = Symptom("tf-xla-devices", "/device:XLA_GPU:0", framework="tensorflow", subject="1 XLA_GPU, 1 XLA_CPU")
    assert run(misc.tf_xla_devices, Facts(symptoms=(listed,)), matrix) == [Finding(
        "tf-xla-devices", Severity.INFO, Section.TENSORFLOW,
        "The device list shows XLA devices (1 XLA_GPU, 1 XLA_CPU): not GPUs by themselves",
        ("log: /device:XLA_GPU:0", XLA_EXPLAINED))]


def test_xla_gpu_only_adds_the_cuda_library_hint(matrix):
    said = (Symptom("tf-xla-devices", "/device:XLA_CPU:0"), Symptom("tf-xla-gpu-only", "/device:XLA_GPU:0"))
    (finding,) = run(misc.tf_xla_devices, Facts(symptoms=said), matrix)
    assert finding.title == "The device list shows XLA devices (XLA_CPU/XLA_GPU): not GPUs by themselves"
    assert finding.evidence == (
        "log: /device:XLA_CPU:0", XLA_EXPLAINED,
        "an XLA_GPU without a GPU device: TensorFlow found the GPU but could not load CUDA/cuDNN for its regular GPU device "
        "(look for 'Could not dlopen library' lines), so only XLA could see it")


@pytest.mark.parametrize("said", [None, (), (Symptom("tf-xla-gpu-only", "/device:XLA_GPU:0"),)])
def test_xla_silent(matrix, said):
    assert run(misc.tf_xla_devices, Facts(symptoms=said), matrix) == []


# -- the notes come from matrices/accelerators.toml, not from the code's fallbacks ----------------------------------


def test_each_finding_shows_what_the_accelerator_notes_say(matrix):
    notes = AcceleratorNotes(
        directml={"torch_device": "dml.device(0)", "torch_url": "https://example.org/dml-torch",
                  "tf_base": "tensorflow-cpu==2.9.*", "tf_url": "https://example.org/dml-tf"},
        xpu={"index_url": "https://example.org/whl/xpu", "url": "https://example.org/xpu"},
        mxnet={"retired": "2024", "last_release": "1.9.2", "migration": "Port the model", "attic_url": "https://example.org/attic"})
    edited = dataclasses.replace(matrix, platform_tables=dataclasses.replace(matrix.platform_tables, accelerators=notes))
    facts = Facts(host=Host(os="windows"), frameworks=Frameworks(torch=TorchBuild(build="xpu")),
                  python_packages={"torch-directml": "0.2.0", "tensorflow-directml-plugin": "0.1.0", "mxnet": "1.9.1"})
    torch, tf = run(misc.directml_detected, facts, edited)
    assert torch.evidence[1].endswith("as the device dml.device(0); not as 'cuda'") and torch.fix.url == "https://example.org/dml-torch"
    assert tf.evidence[1].endswith("loaded into tensorflow-cpu==2.9.*") and tf.fix.url == "https://example.org/dml-tf"
    (xpu_finding,) = run(misc.intel_xpu_detected, facts, edited)
    assert xpu_finding.fix == Fix("Smoke-test it with `gpudoctor verify --device xpu`; XPU builds come from https://example.org/whl/xpu",
                                  (), "https://example.org/xpu")
    assert run(misc.mxnet_retired, facts, edited) == [Finding(
        "mxnet-retired", Severity.INFO, Section.ENVIRONMENT,
        "MXNet is retired upstream (moved to the Apache Attic in 2024): no fixes or new CUDA builds will come",
        ("mxnet 1.9.1", "last release: 1.9.2"), Fix("Port the model", (), "https://example.org/attic"))]
