"""The renderer on hand-built choices: every template renders, and every file reads back as what was meant."""

from __future__ import annotations

import pytest
import yaml

from gpudoctor.envgen.render import (
    FILENAMES,
    FORMATS,
    FileSet,
    check_env_name,
    default_env_name,
    render,
    render_files,
    yaml_scalar,
)
from gpudoctor.matrix.solver.solve import Choice

from .parsing import assert_files_mean

TORCH_CU126 = Choice(
    framework="torch",
    version="2.14.1",
    variant="cu126",
    index_url="https://download.pytorch.org/whl/cu126",
    packages=("torch==2.14.1", "torchvision==0.29.1"),
    python="3.12",
    cuda="12.6",
    reasons=("driver 535.104 supports CUDA 12.2 -> cu126 wheels", "V100 (7.0) -> torch 2.14.1, the newest with sm_70"),
    notes=("cu126 is PyTorch's legacy variant",),
)
TF_AND_CUDA_PASCAL = Choice(
    framework="tensorflow",
    version="2.21.0",
    variant="and-cuda",
    index_url=None,
    packages=("tensorflow[and-cuda]==2.21.0", "nvidia-cudnn-cu12==9.3.0.75"),
    python="3.13",
    cuda="12.5",
    reasons=("GTX 1080 (6.1): cuDNN >= 9.11 dropped CC < 7.5 -> nvidia-cudnn-cu12 pinned to 9.3.0.75",),
)
TF_WINDOWS = Choice(
    framework="tensorflow",
    version="2.10.1",
    variant="cuda11.2",
    index_url=None,
    packages=("tensorflow==2.10.1",),
    python="3.10",
    cuda="11.2",
    conda_packages=("cudatoolkit=11.2", "cudnn=8.1.0"),
    reasons=("native Windows: GPU support ended with TensorFlow 2.10",),
)
TORCH_CPU = Choice(
    framework="torch",
    version="2.14.1",
    variant="cpu",
    index_url="https://download.pytorch.org/whl/cpu",
    packages=("torch==2.14.1", "torchvision==0.29.1"),
    python="3.12",
    cuda=None,
    reasons=("no NVIDIA GPU: the CPU build",),
)
CHOICES = {"torch-cu126": TORCH_CU126, "tf-and-cuda": TF_AND_CUDA_PASCAL, "tf-windows": TF_WINDOWS, "torch-cpu": TORCH_CPU}


def _fileset(choice):
    return FileSet(choice, default_env_name(choice), "Tesla V100 (CC 7.0), NVIDIA driver 535.104, Linux x86_64")


@pytest.mark.parametrize("key", sorted(CHOICES))
def test_every_template_renders_and_parses(key):
    choice = CHOICES[key]
    files = render_files(_fileset(choice), FORMATS)
    assert list(files) == [FILENAMES[f] for f in FORMATS]
    assert_files_mean(files, choice)


def test_torch_conda_file_says_pytorch_left_its_conda_channel():
    text = render(_fileset(TORCH_CU126), "conda")
    assert "no longer publishes to its own conda channel" in text
    assert "channels:\n  - conda-forge\n" in text


def test_windows_conda_packages_reach_conda_and_are_named_for_pip_and_uv():
    files = render_files(_fileset(TF_WINDOWS), FORMATS)
    assert "conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0" in files["requirements.txt"]
    assert "cudatoolkit=11.2" in files["pyproject-uv.toml"]


def test_cpu_dockerfile_has_no_gpu_flags():
    text = render(_fileset(TORCH_CPU), "docker")
    assert "--gpus" not in text and "NVIDIA_VISIBLE_DEVICES" not in text
    assert "CPU build" in text


def test_dockerfile_quotes_extras_for_the_shell():
    text = render(_fileset(TF_AND_CUDA_PASCAL), "docker")
    assert "'tensorflow[and-cuda]==2.21.0'" in text  # unquoted, sh would glob the brackets


def test_a_different_docker_choice_goes_only_into_the_dockerfile():
    fileset = FileSet(TF_WINDOWS, "tf-win", "RTX 3060 (CC 8.6), Windows", docker_choice=TF_AND_CUDA_PASCAL)
    files = render_files(fileset, FORMATS)
    assert_files_mean(files, TF_WINDOWS, docker_choice=TF_AND_CUDA_PASCAL, name="tf-win")
    assert "cudatoolkit" not in files["Dockerfile"]


def test_rendering_does_not_depend_on_hash_order():
    """Files are diffed and committed: two runs must write the same bytes, whatever order sets iterate in."""
    import subprocess
    import sys

    code = (
        "import hashlib, tests.envgen.test_render as t; "
        "files = t.render_files(t._fileset(t.TORCH_CU126), t.FORMATS); "
        "print(hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest())"
    )
    digests = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2", "3")
    }
    assert len(digests) == 1 and digests != {""}


def test_reasons_with_newlines_stay_comments():
    choice = Choice(**{**TORCH_CPU.__dict__, "reasons": ("line one\nline two: - [x]",)})
    for text in render_files(_fileset(choice), FORMATS).values():
        assert "# Why:\n#   - line one line two: - [x]\n" in text


@pytest.mark.parametrize(
    "value",
    ["torch==2.14.1", "tensorflow[and-cuda]==2.21.0", "--index-url https://download.pytorch.org/whl/cu126", "yes", "no",
     "1.0", "3.10", "null", "a: b", "x #y", "[x]", "- x", "*x", "!x", "'q'", '"q"', "", " lead", "trail ", "python=3.12",
     "nvidia-cudnn-cu12>=9.3.0.75,<10.0"],
)
def test_yaml_scalar_reads_back_as_the_same_string(value):
    assert yaml.safe_load(f"- {yaml_scalar(value)}\n") == [value]


@pytest.mark.parametrize("name", ["torch-2.14.1-cu126", "my_env", "A1"])
def test_good_env_names(name):
    assert check_env_name(name) == name


@pytest.mark.parametrize("name", ["", "-x", "x-", "has space", "a/b", "ünï", "x" * 101])
def test_bad_env_names(name):
    with pytest.raises(ValueError, match="--name"):
        check_env_name(name)


def test_default_names():
    assert default_env_name(TORCH_CU126) == "torch-2.14.1-cu126"
    assert default_env_name(TF_AND_CUDA_PASCAL) == "tf-2.21.0-and-cuda"


def test_strict_undefined(monkeypatch):
    import jinja2

    from gpudoctor.envgen import render as render_mod

    monkeypatch.setattr(render_mod, "context", lambda *a, **k: {"header": []})
    with pytest.raises(jinja2.UndefinedError):
        render(_fileset(TORCH_CPU), "pip")


def test_the_dockerfile_gpu_oracle_reads_what_the_file_installs():
    # The oracle (tests/envgen/parsing.py) must be able to fail, and not by copying the renderer's rule.
    from packaging.requirements import Requirement

    from .parsing import dockerfile_uses_gpu

    req = lambda *lines: [Requirement(x) for x in lines]  # noqa: E731
    assert dockerfile_uses_gpu("python:3.12-slim", ["--index-url https://download.pytorch.org/whl/cu126"], req("torch==2.7.1"))
    assert not dockerfile_uses_gpu("python:3.12-slim", ["--index-url https://download.pytorch.org/whl/cpu"], req("torch==2.7.1"))
    assert dockerfile_uses_gpu("python:3.12-slim", [], req("torch==2.7.1"))  # the package index's default: cu126
    assert dockerfile_uses_gpu("python:3.11-slim", [], req("tensorflow[and-cuda]==2.17.0"))
    assert not dockerfile_uses_gpu("python:3.11-slim", [], req("tensorflow==2.17.0"))  # no CUDA libraries in it
    assert dockerfile_uses_gpu("nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04", [], req("tensorflow==2.13.1"))
    with pytest.raises(AssertionError, match="not an nvidia/cuda image the matrix lists"):
        dockerfile_uses_gpu("nvidia/cuda:12.9.9-cudnn-runtime-ubuntu24.04", [], req("tensorflow==2.13.1"))
