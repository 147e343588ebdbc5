"""A pasted report from a hosted notebook: Colab's /content/ paths, the google.colab module or the reporter's "in
Colab" say where it ran (evidence/readers/one_liners.py); there a "no GPU" line means a CPU runtime
(platforms_misc.py, notebook_cpu_runtime)."""

from __future__ import annotations

import pytest

from gpudoctor.evidence import read_evidence
from tests.checks.pasted import severities as _ids


def _notebook(text: str):
    facts = read_evidence(text, "paste")
    return facts.host.notebook.kind if facts.host and facts.host.notebook else None


@pytest.mark.parametrize("line, kind", [
    ('  File "/content/Fooocus/entry_with_update.py", line 46, in <module>', "colab"),
    ("from google.colab import drive", "colab"),
    ("/kaggle/working/train.py:12: UserWarning: ...", "kaggle"),
    ("I changed the setting in Colab to use Python 3 and GPU but I get the error msg: GPU device not found.", "colab"),
    ("I run the notebook on Kaggle with a P100", "kaggle"),
])
def test_where_a_notebook_ran_is_read(line, kind):
    assert _notebook(line) == kind


@pytest.mark.parametrize("line", [
    "It works fine on Colab, but on my own machine torch sees no GPU",
    "The same code works in Colab whereas my server fails",
    "see https://example.com/content/setup for the steps",
    "the content/ folder holds the images",
])
def test_a_comparison_or_another_path_is_no_notebook(line):
    assert _notebook(line) is None


def test_colab_s_own_gpu_sample_failing_in_colab_is_a_cpu_runtime():
    # googlecolab/colabtools#111
    text = ("Hi. I changed the setting in Colab to use Python 3 and GPU but I get the error msg: GPU device not found.\n"
            "----> 4   raise SystemError('GPU device not found')\nSystemError: GPU device not found\n")
    assert _ids(text).get("notebook-cpu-runtime") == "warning"


def test_the_same_class_in_another_thread_torch_finds_no_driver_under_content():
    # googlecolab/colabtools#5136: Fooocus in Colab, torch finds no NVIDIA driver
    text = ('  File "/content/Fooocus/ldm_patched/modules/model_management.py", line 90, in get_torch_device\n'
            "    return torch.device(torch.cuda.current_device())\n"
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
            "driver from http://www.nvidia.com/Download/index.aspx\n")
    assert _ids(text).get("notebook-cpu-runtime") == "warning"
    assert "notebook-cpu-runtime" not in _ids(text.replace("/content/", "/home/me/"))


@pytest.mark.parametrize("kind", ["cuda-unavailable", "cuda-no-device", "no-driver-found", "nvidia-driver-not-loaded",
                                  "torch-without-cuda", "tf-no-gpu-device"])
def test_each_way_a_cpu_runtime_says_no_gpu_names_it(kind):
    from gpudoctor.checks.platforms_misc import notebook_cpu_runtime
    from gpudoctor.model import Facts, Host, Notebook, Symptom

    said = Symptom(kind, "the line a CPU runtime printed")
    facts = Facts(host=Host(notebook=Notebook(kind="colab")), symptoms=(said,))
    (f,) = notebook_cpu_runtime(facts, None)
    assert f.evidence == ("Google Colab runtime", "log: the line a CPU runtime printed")
    assert list(notebook_cpu_runtime(Facts(host=Host(notebook=Notebook(kind="colab")), symptoms=(Symptom("out-of-memory", "x"),)), None)) == []


def test_a_local_amd_card_is_not_the_notebook_s_gpu():
    # Isi-dev/Google-Colab_Notebooks#11: "Github-Google collab" notebooks fail with torch's "Found no NVIDIA driver";
    # the reporter's own Radeon does not run them
    text = ("i can not access any Github-Google collab, like - DeFooocus, wan 2 etc...\n"
            "(RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver "
            "from http://www.nvidia.com/Download/index.aspx ) - This error message will shown everytime.\n\n"
            "i have installed gpu GIGABYTE Radeon RX 6600 Eagle 8G Graphics Card\n")
    found = _ids(text)
    assert found.get("notebook-cpu-runtime") == "warning" and "torch-not-rocm-on-amd-gpu" not in found
    assert _ids(text.replace("Github-Google collab", "local install")).get("torch-not-rocm-on-amd-gpu") == "error"
