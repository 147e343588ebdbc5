"""torch-index-url-wrong (checks/pip_index.py): pip looked for a torch build where it cannot be. Lines from
visualbruno/ComfyUI-Trellis2#131 (a cu131 index: PyTorch built torch 2.10 for cu126/cu128/cu130), qa-pilot#11 and
Nerogar/OneTrainer#169 (a '+cu' version asked of PyPI; on a Mac no index has it)."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Severity

CU131 = ("`pip install torch==2.10.0 torchvision torchaudio --index-url https://download.pytorch.org/whl/cu131`\n"
         "> Looking in indexes: https://download.pytorch.org/whl/cu131\n"
         "> ERROR: Could not find a version that satisfies the requirement torch==2.10.0 (from versions: none)\n")


def _found(text: str) -> dict[str, object]:
    return {f.id: f for f in run_checks(read_evidence(text, "paste"), load_matrix()).findings if f.severity >= Severity.WARNING}


def test_an_index_of_a_tag_the_release_was_not_built_for_is_named_not_the_python():
    found = _found("Python 3.12.3\n" + CU131)
    f = found["torch-index-url-wrong"]
    assert f.severity is Severity.ERROR and "cu131" in f.title
    assert "torch 2.10 was built for" in f.evidence[2] and "cu131" not in f.evidence[2]
    assert f.fix.commands[0].startswith("pip install torch==2.10.0 --index-url https://download.pytorch.org/whl/cu1")
    assert "python-version-no-wheel" not in found  # pip's "none" came from the index, not the interpreter


def test_the_fix_takes_the_newest_tag_of_the_drivers_cuda_major():
    # CUDA 12.4's driver runs cu126 and cu128 (minor-version compatibility), not cu130
    f = _found("| NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |\n" + CU131)["torch-index-url-wrong"]
    assert f.fix.commands[0] == "pip install torch==2.10.0 --index-url https://download.pytorch.org/whl/cu128"


def test_a_published_tag_is_left_to_the_python_rule():
    text = CU131.replace("cu131", "cu128")
    assert "torch-index-url-wrong" not in _found("Python 3.12.3\n" + text)


def test_a_never_published_tag_without_a_version():
    text = ("Looking in indexes: https://download.pytorch.org/whl/cu114\n"
            "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n")
    f = _found(text)["torch-index-url-wrong"]
    assert "any torch" not in f.title and "cu114" in f.title and "cu113" in f.evidence[2]


@pytest.mark.parametrize("python, severity", [("Python 3.10.12\n", Severity.ERROR), ("", Severity.WARNING)])
def test_a_local_version_asked_of_pypi(python, severity):
    f = _found(python + "ERROR: Could not find a version that satisfies the requirement torch==2.2.2+cu121\n")["torch-index-url-wrong"]
    assert f.severity is severity
    assert f.fix.commands[0] == "pip install torch==2.2.2+cu121 --index-url https://download.pytorch.org/whl/cu121"


@pytest.mark.parametrize("text", [
    # PyTorch's find-links page was given: the index is not what is missing
    "pip install torch==1.9.0+cu111 torchvision==0.10.0+cu111 torchaudio==0.9.0 -f https://download.pytorch.org/whl/torch_stable.html\n"
    "ERROR: Could not find a version that satisfies the requirement torch==1.9.0+cu111 (from versions: none)\n",
    # on a Mac no index has a CUDA build (OneTrainer#169): the platform is the cause
    "ERROR: Could not find a version that satisfies the requirement torch==2.1.2+cu118 (from versions: 2.1.0, 2.1.1, 2.1.2)\n"
    "Python 3.10.13\nApple M2\n",
    # pip's list shows a PyTorch index's builds: it was given
    "ERROR: Could not find a version that satisfies the requirement torch==1.7.1+cu110 (from versions: 1.8.0+cu111, 1.9.0+cu111)\n",
])
def test_no_index_blame_where_an_index_was_given_or_none_could_help(text):
    assert "torch-index-url-wrong" not in _found(text)


def test_an_apple_chip_line_says_macos_on_arm64():
    host = read_evidence("Python 3.10.13\nApple M2\n", "paste").host
    assert (host.os, host.arch) == ("darwin", "arm64")
    assert read_evidence("Chip: Apple M3 Max\n", "paste").host.os == "darwin"
    assert read_evidence("I used an Apple M2 for this\n", "paste").host is None or read_evidence("I used an Apple M2 for this\n", "paste").host.os != "darwin"


# invoke-ai/InvokeAI#7146: the installer's rocm5.6 index, which holds only torch 2.2.x (+rocm5.6)
ROCM56 = (">pip install torch==2.4.1 torchvision==0.19.1 --index-url https://download.pytorch.org/whl/rocm5.6\n"
          "Looking in indexes: https://download.pytorch.org/whl/rocm5.6\n"
          "ERROR: Could not find a version that satisfies the requirement torch==2.4.1 (from versions: 2.2.0+rocm5.6, "
          "2.2.1+rocm5.6, 2.2.2+rocm5.6)\nERROR: No matching distribution found for torch==2.4.1\n")


def test_a_list_of_one_index_s_local_versions_names_the_index_not_the_python():
    found = _found(ROCM56)
    assert "python-version-no-wheel" not in found
    f = found["torch-index-url-wrong"]
    assert f.severity is Severity.ERROR and "rocm5.6 index has no torch 2.4.1" in f.title
    assert f.fix.commands == ("pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/rocm6.1",)


def test_a_list_with_pypi_s_plain_versions_is_left_to_the_python_rule():
    mixed = ROCM56.replace("(from versions: 2.2.0+rocm5.6, ", "(from versions: 2.2.0, ")
    assert "torch-index-url-wrong" not in _found(mixed)
    listed = ROCM56.replace("2.2.2+rocm5.6)", "2.2.2+rocm5.6, 2.4.1+rocm5.6)")
    assert "torch-index-url-wrong" not in _found(listed)


def test_an_index_that_has_the_release_for_other_pythons_is_the_python_s_limit():
    # Akegarasu/lora-scripts#741: torch 2.7.0 was built for cu128; Python 3.14 has no wheel of it
    text = ("Looking in indexes: https://download.pytorch.org/whl/cu128\n"
            "ERROR: Could not find a version that satisfies the requirement torch==2.7.0+cu128 (from versions: 2.9.0+cu128, 2.9.1+cu128)\n")
    found = _found(text)
    assert "torch-index-url-wrong" not in found and "python-version-no-wheel" in found


def test_pypi_offering_the_same_release_untagged_makes_the_missing_index_certain():
    # jthickstun/anticipation#10 (frozen round 7, read after its score): Colab, Python not in the paste
    text = ("ERROR: Could not find a version that satisfies the requirement torch==2.0.1+cu118 (from versions: 1.11.0, 1.12.0, "
            "1.12.1, 1.13.0, 1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2)\nERROR: No matching distribution found for torch==2.0.1+cu118\n")
    found = _found(text)
    assert found["torch-index-url-wrong"].severity is Severity.ERROR and "python-version-no-wheel" not in found
    # the same class in another thread: Nerogar/OneTrainer#138 (2.1.2+cu118; PyPI lists 2.1.2)
    other = ("ERROR: Could not find a version that satisfies the requirement torch==2.1.2+cu118 (from versions: 1.11.0, 1.12.0, "
             "1.12.1, 1.13.0, 1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2)\n")
    assert _found(other)["torch-index-url-wrong"].severity is Severity.ERROR
    # PyPI without that release for this Python: both causes stay open, a warning
    older = other.replace(", 2.1.0, 2.1.1, 2.1.2)", ")")
    assert _found(older)["torch-index-url-wrong"].severity is Severity.WARNING
