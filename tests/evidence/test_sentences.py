"""The reporter's own words as stated facts (gpudoctor/evidence/readers/sentences.py): what a sentence states is read,
tool output is left to its readers."""

from __future__ import annotations

import pytest

from gpudoctor.evidence import read_evidence


def _facts(text: str):
    return read_evidence(text, "paste")


def _torch(text: str):
    """The torch version the reporter's words state (None where no sentence states one)."""
    facts = _facts(text)
    said = (facts.provenance or {}).get("frameworks.torch.version", "").startswith("reporter's words")
    return facts.frameworks.torch.version if said else None


def test_a_bold_label_line_is_the_reporters_own_words():
    # https://github.com/Comfy-Org/ComfyUI/issues/9929: no sentence, only the reporter's markdown labels
    facts = _facts("**Setup:** i7-8750H, GTX 1070, 16 GB RAM.  \n**Versions:** PyTorch 2.8.0 + cu129  \n")
    assert facts.gpus[0].name == "GTX 1070"
    assert facts.frameworks.torch.version == "2.8.0+cu129"
    assert facts.provenance["frameworks.torch.version"].startswith("reporter's words")


def test_a_pinned_requirement_in_a_sentence_states_the_build():
    # https://github.com/MRzzm/DINet/issues/100
    text = "I have a RTX 3090 graphics card. The requirement in the txt file, torch==1.7.1+cu101, is too low for this card."
    assert _torch(text) == "1.7.1+cu101"
    assert _facts(text).gpus[0].name == "RTX 3090"


@pytest.mark.parametrize("line", [
    "torch==1.7.1+cu101",                                  # a pip freeze line: the package reader's, not words
    "======== torch 1.7.1 was used here ========",          # a separator of a log
    "ERROR: Could not find a version that satisfies the requirement torch==2.10.0 (from versions: none)",
    "Versions: PyTorch 2.8.0 + cu129",                     # "Key: value" without the reporter's bold: maybe output
])
def test_tool_output_is_not_read_as_words(line):
    assert _torch(line) is None


def test_a_cuda_flavour_spelled_apart_is_the_local_tag():
    assert _torch("I installed PyTorch 2.4.1 + cu121 with pip yesterday") == "2.4.1+cu121"
    assert _torch("my torch version is 2.1.0") == "2.1.0"


@pytest.mark.parametrize("line", [
    # https://github.com/bitsandbytes-foundation/bitsandbytes/issues/17
    "Hello, I'm on a completely fresh Windows Subsystem for Linux with CUDA support installation of Ubuntu.",
    "On WSL Ubuntu 22.04.2 LTS, I had to create a link first.",  # facebookresearch/nougat#105 (path left out)
    "On Windows 11 I use WSL2 with an RTX 3060.",
])
def test_wsl_in_words_is_the_os_even_beside_windows(line):
    host = _facts(line).host
    assert (host.os, host.wsl) == ("linux", 2)


def test_windows_alone_stays_windows():
    assert _facts("I am on windows 10 and my GPU is RTX 2060").host.os == "windows"


def test_the_reporter_naming_the_cpu_build_states_it():
    # https://github.com/rohitg00/ai-engineering-from-scratch/issues/192
    facts = _facts("The requirements.txt installs a CPU-only version of PyTorch on Python 3.14.")
    assert facts.frameworks.torch.build == "cpu"
    assert _facts("I don't want a CPU-only version of PyTorch here.").frameworks is None


@pytest.mark.parametrize("line", [
    # deforum-art/stable-diffusion#132: a negation in an earlier clause does not reach the install
    "So this doesn't happen to everyone, but for some people when installing pytorch it installs the cpu only version, which makes people get the below error.",
    "Hi, noticing that trying to `pip install torch` resulted in the CPU version of torch stable.",  # pytorch/pytorch#168065
    "Installation process of Windows git version of StoryToolkitAI 0.24.0 reinstalls non-Cuda version of Torch.",  # octimot/StoryToolkitAI#170
])
def test_what_an_install_put_there_in_words_is_the_cpu_build(line):
    assert _facts(line).frameworks.torch.build == "cpu"


@pytest.mark.parametrize("line", [
    "can I run torch without cuda?",  # pytorch/pytorch#4112: a question states nothing
    "Should I install the cpu version of torch instead?",
    "pip installed the CUDA version of torch, not the cpu version.",
    "This command installs cpu version instead of cuda.",  # no torch on the line: which package is not said
])
def test_questions_negations_and_lines_without_torch_state_no_build(line):
    facts = _facts(line)
    assert facts.frameworks is None or facts.frameworks.torch is None or facts.frameworks.torch.build != "cpu"


@pytest.mark.parametrize(("line", "os", "wsl"), [
    ("I am on WSL2 (Ubuntu 22.04).", "linux", 2),
    ("I'm on Windows 11", "windows", None),
    ("My OS is Ubuntu 20.04", "linux", None),
])
def test_short_sentences_of_three_words_are_read(line, os, wsl):
    host = read_evidence(line, "post").host
    assert (host.os, host.wsl) == (os, wsl)


def test_two_short_words_are_no_sentence():
    assert read_evidence("on WSL2\n", "post").host is None


@pytest.mark.parametrize(("line", "torch_cuda", "toolkit"), [
    # https://github.com/rusty1s/pytorch_scatter/issues/45
    ("hi, i have a problem: my torch.version.cuda is 9.0.176, but my nvcc --version is 10.0  what can I do to fix the problem?",
     "9.0", "10.0"),
    ("I use pytorch's cuda version 11.8 with CUDA 12.1 installed", "11.8", "12.1"),
    ("my nvcc version 11.7 is what compiles it", None, "11.7"),
    ("I installed CUDA 11.8 on the machine", None, "11.8"),
])
def test_torchs_cuda_in_words_is_the_build_and_nvcc_is_the_toolkit(line, torch_cuda, toolkit):
    facts = _facts(line)
    assert (facts.frameworks.torch.cuda if facts.frameworks and facts.frameworks.torch else None) == torch_cuda
    assert facts.cuda_toolkits[0].version == toolkit


@pytest.mark.parametrize(("line", "name"), [
    ("I have AMD GPU I get this error", "AMD GPU (model not stated)"),  # https://github.com/ProGamerGov/dream-creator/issues/21
    ("The amd graphics card I use displays the error", "AMD GPU (model not stated)"),  # fofr/cog-face-to-many#42
    ("I use an AMD Radeon RX 6600 XT on Linux", "AMD Radeon RX 6600 XT"),
])
def test_an_amd_gpu_named_in_words_is_an_amd_gpu(line, name):
    assert _facts(line).amd_gpus[0].name == name


def test_amd64_is_no_amd_gpu():
    assert _facts("I run the amd64 build on a card from 2019").amd_gpus is None


@pytest.mark.parametrize(("line", "toolkit"), [
    ("5. Cuda_10.1.105_win10_network", "10.1"),  # https://github.com/tensorflow/tensorflow/issues/26298
    ("I ran cuda_11.8.0_522.06_windows.exe", "11.8"),
    ("sudo sh cuda_12.1.0_530.30.02_linux.run", "12.1"),
])
def test_a_cuda_installer_named_is_the_toolkit(line, toolkit):
    assert _facts(line).cuda_toolkits[0].version == toolkit


def test_tensorflow_gpu_in_words_is_the_cuda_build():
    # https://github.com/tensorflow/tensorflow/issues/26298
    facts = _facts("I'm running Windows 10 PRO and I'm using Geforce RTX 2070 and TensorFlow-GPU 1.13.1")
    assert facts.frameworks.tensorflow.version == "1.13.1" and facts.frameworks.tensorflow.is_cuda_build is True
    assert _facts("I'm using TensorFlow 2.4.1 on Ubuntu").frameworks.tensorflow.is_cuda_build is None


def test_a_pin_in_a_sentence_states_the_package():
    # https://github.com/microsoft/onnxruntime/issues/22198
    facts = _facts("When I install the torch, there is a relative nvidia-cudnn-cu12==8.9.26 installed for my env. "
                   "When I install the onnxruntime-gpu==1.19.2,  create onnxruntime InferenceSession failed.")
    assert facts.python_packages == {"nvidia-cudnn-cu12": "8.9.26", "onnxruntime-gpu": "1.19.2"}
    assert _facts("I read that requests==2.31.0 is needed for this").python_packages is None


@pytest.mark.parametrize(("line", "arch"), [
    ("Mac M1 Pro", "arm64"),  # oobabooga/textgen#1931's System Info
    ("MacBook Pro M2 Max", "arm64"),
    ("Chip: Apple M3", "arm64"),
    ("/Users/bob/miniforge3/lib/python3.11/site-packages/torch/__init__.py:1: UserWarning: x", None),
    ('  File "/Users/bob/venv/lib/python3.11/site-packages/torch/__init__.py", line 1', None),
])
def test_a_mac_named_by_its_chip_or_its_home_path(line, arch):
    host = read_evidence(line + "\n", "paste").host
    assert (host.os, host.arch) == ("darwin", arch)


@pytest.mark.parametrize("line", [
    "/c/Users/me/miniconda3/lib/site-packages/torch/__init__.py",  # Git Bash on Windows
    "C:/Users/me/miniconda3/Lib/site-packages/torch/__init__.py",
    "I want to buy a Mac M1 Pro for this",  # a sentence, not the machine's chip line
])
def test_no_mac_from_windows_paths_or_wishes(line):
    host = read_evidence(line + "\n", "paste").host
    assert host is None or host.os != "darwin"
