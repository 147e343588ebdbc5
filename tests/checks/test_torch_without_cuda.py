"""torch saying it has no CUDA on a machine with an NVIDIA GPU, its build unknown (checks/frameworks.py,
torch_without_cuda_on_nvidia_gpu): a warning that names the commonest cause and says how to tell, and silence where
another fact explains it. Also the bare GeForce numbers reporters use ("I have a 3060", sentences.py)."""

from __future__ import annotations

import pytest

from gpudoctor.checks import frameworks as fw
from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Driver, Facts, Fix, Frameworks, Gpu, Host, Section, Severity, Symptom, TorchBuild

MATRIX = load_matrix()
RTX3060 = (Gpu(index=0, name="RTX 3060"),)
FP16 = Symptom("torch-without-cuda", 'warnings.warn("FP16 is not supported on CPU; using FP32 instead")', "torch")


def run(facts: Facts):
    return list(fw.torch_without_cuda_on_nvidia_gpu(facts, MATRIX))


def test_a_torch_without_cuda_line_and_a_known_nvidia_gpu_name_a_likely_cpu_only_build():
    (f,) = run(Facts(gpus=RTX3060, symptoms=(FP16,)))
    assert (f.id, f.severity, f.section) == ("torch-cpu-only-build", Severity.WARNING, Section.TORCH)
    assert f.title == "torch runs without CUDA on a machine with an NVIDIA GPU: most often a CPU-only torch build"
    assert f.evidence[0] == f"log: {FP16.text}"
    assert f.evidence[1] == "this machine has RTX 3060"
    assert "torch.version.cuda" in f.evidence[2] and "None for a CPU-only build" in f.evidence[2]
    assert f.fix.commands[0] == "pip uninstall -y torch torchvision torchaudio"
    assert any("download.pytorch.org/whl/cu" in c for c in f.fix.commands)
    # the driver is unknown: the fix says which driver its CUDA build needs (matrices/cuda.toml's floor)
    assert "needs NVIDIA driver" in f.fix.summary


def test_is_available_false_from_a_repl_is_enough_without_a_log_line():
    (f,) = run(Facts(gpus=RTX3060, frameworks=Frameworks(torch=TorchBuild(cuda_available=False))))
    assert f.evidence[0] == "torch.cuda.is_available() = False"


@pytest.mark.parametrize("facts", [
    Facts(symptoms=(FP16,)),                                                               # no GPU known
    Facts(gpus=(), pci_devices=(), symptoms=(FP16,)),                                      # probed: none
    Facts(gpus=RTX3060),                                                                   # nothing says torch lacks CUDA
    Facts(gpus=RTX3060, symptoms=(FP16,), frameworks=Frameworks(torch=TorchBuild(version="2.3.0+cu121"))),  # build known
    Facts(gpus=RTX3060, symptoms=(FP16,), frameworks=Frameworks(torch=TorchBuild(version="2.3.0+cpu"))),    # its own rule
    Facts(gpus=RTX3060, symptoms=(FP16,), host=Host(os="darwin")),
    Facts(gpus=RTX3060, symptoms=(FP16,), host=Host(os="linux", container="docker")),
    Facts(gpus=RTX3060, symptoms=(FP16,), host=Host(os="linux", env={"CUDA_VISIBLE_DEVICES": ""})),
    Facts(gpus=RTX3060, symptoms=(FP16, Symptom("driver-too-old", "The NVIDIA driver on your system is too old"))),
    Facts(gpus=RTX3060, symptoms=(FP16, Symptom("no-driver-found", "Found no NVIDIA driver on your system"))),
])
def test_silent_where_the_gpu_is_unknown_the_build_known_or_another_fact_explains_it(facts):
    assert run(facts) == []


def test_a_pasted_report_end_to_end():
    # https://github.com/dsymbol/decipher/issues/8 (development corpus): a card named by its number, whisper on the CPU
    text = ("So I have a 3060 and a core i9-12900kf and when im using decipher im getting the error:  "
            "UserWarning: FP16 is not supported on CPU; using FP32 instead\n")
    report = run_checks(read_evidence(text, "paste"), MATRIX)
    assert [(f.id, f.severity) for f in report.findings if f.severity >= Severity.WARNING] == [
        ("torch-cpu-only-build", Severity.WARNING)]


def test_lightning_and_a_stated_driver_line_count_too():
    # https://github.com/munhouiani/Deep-Packet/issues/4 (development corpus), shortened; a driver known and fine
    text = ("My GPU is a GTX 1080 Ti and torch.cuda.is_available() returns False.\n"
            "pytorch_lightning.utilities.exceptions.MisconfigurationException: GPUs requested but none are available.\n")
    facts = read_evidence(text, "paste")
    assert facts.frameworks.torch.cuda_available is False
    facts_with_driver = Facts(**{**facts.__dict__, "driver": Driver(version="535.104.05", cuda_version="12.2")})
    assert [f.id for f in run(facts_with_driver)] == ["torch-cpu-only-build"]


@pytest.mark.parametrize(("line", "name"), [
    ("So I have a 3060 and a core i9-12900kf and when im using decipher", "RTX 3060"),
    ("my 1660 SUPER does not support fp16 as far as I know", "GTX 1660 Super"),
    ("I am running this with 3090 and need help with the install", "RTX 3090"),
    ("I recently bought a 5070 ti and the following error comes up", "RTX 5070 Ti"),
])
def test_a_geforce_card_named_by_its_number(line, name):
    assert read_evidence(line, "paste").gpus[0].name == name


@pytest.mark.parametrize("line", [
    "I play the game at a 1080p resolution on my monitor",
    "we cut it to a 1080 frames clip and it stopped",
    "the input was a 1080 x 1920 image from the camera",
    "it happened in 2050 steps of the run",
])
def test_numbers_that_are_no_gpu(line):
    assert not read_evidence(line, "paste").gpus


# -- the reporter says there is no NVIDIA GPU -----------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    "I don't have an NVDIA GPU so I tried to run with CPU only.",          # WhisperJAV#107 (development corpus), typo kept
    "I am a newbie of tensorflow . I do not have NVIDIA GPU after I install tensorflow and keras",  # rstudio/tensorflow#411
    "My laptop has no nvidia graphics card, only the Intel one.",
    "Given that I'm on macOS, and don't have an Nvidia GPU, how can I get this working?",  # CorentinJ/Real-Time-Voice-Cloning#299
])
def test_a_stated_absence_of_an_nvidia_gpu(line):
    facts = read_evidence(line, "paste")
    assert facts.gpus == ()
    assert facts.provenance["gpus"].startswith("reporter's words")


@pytest.mark.parametrize("line", [
    "I don't have an NVIDIA GPU driver installed yet, the card is a GTX 1080",   # a driver, not the GPU
    "Does it run on a machine without an NVIDIA GPU?",                         # a question, not a statement
    "I installed CUDA and don't have an NVIDIA GPU driver yet",              # the driver again, after "and"
])
def test_no_absence_read_from_other_sentences(line):
    assert read_evidence(line, "paste").gpus != ()


def test_a_printed_gpu_list_outweighs_a_sentence_saying_none():
    text = ("| NVIDIA-SMI 535.54.03    Driver Version: 535.54.03    CUDA Version: 12.2     |\n"
            "|   0  NVIDIA GeForce RTX 3090        Off | 00000000:01:00.0 Off |                  N/A |\n"
            "I don't have an NVIDIA GPU on my other laptop, so I use this server.\n")
    assert [g.name for g in read_evidence(text, "paste").gpus] == ["NVIDIA GeForce RTX 3090"]


def test_cuda_insufficient_driver_on_a_machine_said_to_have_no_nvidia_gpu_is_no_driver_fault():
    text = ("I don't have an NVDIA GPU so I tried to run with CPU only.\n"
            "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version\n")
    report = run_checks(read_evidence(text, "paste"), MATRIX)
    assert [(f.id, f.severity) for f in report.findings] == [("no-nvidia-gpu", Severity.INFO)]
    assert report.findings[0].evidence == ("the reporter says this machine has no NVIDIA GPU",)
    # the same line where nothing says so: the driver is named, a warning (no driver at all reads the same)
    alone = run_checks(read_evidence(text.splitlines()[1], "paste"), MATRIX)
    (driver,) = [f for f in alone.findings if f.id == "driver-too-old-for-cuda-build"]
    assert driver.severity == Severity.WARNING
    assert driver.fix == Fix("Upgrade the NVIDIA driver (580 or newer runs CUDA 13), or use a build of the program for an older CUDA",
                             ("nvidia-smi   # 'CUDA Version' is the newest CUDA this driver runs",),
                             "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#cuda-driver")


# -- TensorFlow on a machine whose GPU is AMD's ---------------------------------------------------------------------


def test_tensorflow_with_only_an_amd_gpu_runs_on_the_cpu():
    # tensorflow/tensorflow#20340 (development corpus): the model misspelled as reporters do
    text = "I have Win 10/ AMD Raedon R5 M335\nI am using Python 3.5 and tensorflow 1.0.0\n"
    report = run_checks(read_evidence(text, "paste"), MATRIX)
    (f,) = [f for f in report.findings if f.severity >= Severity.WARNING]
    assert (f.id, f.severity, f.section) == ("no-nvidia-gpu", Severity.WARNING, Section.TENSORFLOW)
    assert f.title == "TensorFlow 1.0.0 uses only NVIDIA GPUs (CUDA), and this machine's GPU is AMD's: it runs on the CPU"
    assert "AMD Raedon R5 M335" in f.evidence[0]


@pytest.mark.parametrize("text", [
    "I use an AMD Radeon RX 580 with torch 2.1.0",                                           # no TensorFlow
    "I have an AMD Radeon RX 580 and an RTX 3090, tensorflow 2.15.0",                       # an NVIDIA GPU too
    "tensorflow 2.14.0 on an AMD Radeon RX 7900 XTX\n$ pip freeze\nabsl-py==2.1.0\nnumpy==1.26.4\n"
    "tensorflow-rocm==2.14.0.600\nwrapt==1.14.1\n",                                          # AMD's own build
])
def test_no_tensorflow_amd_warning_where_it_does_not_apply(text):
    report = run_checks(read_evidence(text, "paste"), MATRIX)
    assert not [f for f in report.findings if f.id == "no-nvidia-gpu" and f.severity >= Severity.WARNING]


# -- tensorflow_on_amd_gpu, finding by finding ----------------------------------------------------------------------

from gpudoctor.checks import rocm_builds  # noqa: E402
from gpudoctor.model import AmdGpu, TensorflowBuild  # noqa: E402

RX580 = (AmdGpu(index=0, name="Radeon RX 580"),)
ROCM_TF = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/3rd-party/tensorflow-install.html"


def amd_tf(**facts):
    return list(rocm_builds.tensorflow_on_amd_gpu(Facts(amd_gpus=RX580, **facts), MATRIX))


@pytest.mark.parametrize(("packages", "version"), [
    ({"tensorflow": "2.15.0"}, "2.15.0"),
    ({"tensorflow-gpu": "1.15.0"}, "1.15.0"),
    ({"tensorflow-cpu": "2.10.0"}, None),            # in use, but the plain/GPU package's version is not known
    ({"tensorflow": "2.15.0", "tensorflow-gpu": "2.9.0"}, "2.15.0"),
])
def test_tensorflow_known_from_its_packages_alone(packages, version):
    (f,) = amd_tf(python_packages=packages)
    assert f.title == (f"TensorFlow{' ' + version if version else ''} uses only NVIDIA GPUs (CUDA), and this machine's GPU "
                       "is AMD's: it runs on the CPU")
    assert f.evidence == ("AMD GPU 0: Radeon RX 580",
                          "TensorFlow's own builds support NVIDIA GPUs through CUDA; AMD publishes tensorflow-rocm for Linux")
    assert f.fix == Fix("For the AMD GPU use AMD's ROCm build of TensorFlow on Linux (for the GPUs ROCm supports), or "
                        "PyTorch's ROCm build", (), ROCM_TF)


def test_the_frameworks_version_wins_over_the_packages():
    (f,) = amd_tf(frameworks=Frameworks(tensorflow=TensorflowBuild(version="2.12.0")), python_packages={"tensorflow": "2.15.0"})
    assert f.title.startswith("TensorFlow 2.12.0 uses only NVIDIA GPUs")
    (g,) = amd_tf(frameworks=Frameworks(tensorflow=TensorflowBuild()), python_packages={"tensorflow-gpu": "1.15.0"})
    assert g.title.startswith("TensorFlow 1.15.0 uses only NVIDIA GPUs")


def test_no_tensorflow_or_no_amd_gpu_is_no_finding():
    assert amd_tf(python_packages={"torch": "2.1.0"}) == []
    assert list(rocm_builds.tensorflow_on_amd_gpu(Facts(python_packages={"tensorflow": "2.15.0"}), MATRIX)) == []


def test_the_warning_in_full_where_the_gpu_is_known_only_from_the_bus():
    from gpudoctor.model import PciDevice

    bus_only = Facts(pci_devices=(PciDevice(bus_id="0000:01:00.0", vendor_id="10de", driver="nvidia"),), symptoms=(FP16,))
    (f,) = run(bus_only)
    assert f.evidence == (
        f"log: {FP16.text}", "this machine has an NVIDIA GPU",
        "which torch build is installed is not in the evidence: "
        "`python -c \"import torch; print(torch.__version__, torch.version.cuda)\"` prints None for a CPU-only build")
    # the model is not known, so the solver alone would fit a CPU build: the fix still asks for a CUDA one
    assert f.fix.summary.startswith("If torch.version.cuda is None, replace torch with a CUDA build: install torch from "
                                    "PyTorch's index with a CUDA tag the driver runs")
    assert f.fix.commands[0] == "pip uninstall -y torch torchvision torchaudio"


def test_a_named_gpu_gets_a_cuda_build_fitted_to_it():
    (f,) = run(Facts(gpus=RTX3060, symptoms=(FP16,)))
    assert f.fix.summary.startswith("If torch.version.cuda is None, replace torch with a CUDA build: install torch ")
    assert "+cu" in f.fix.summary
