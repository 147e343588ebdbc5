"""The solver on real machines: asserted choices."""

from __future__ import annotations

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.solver.solve import NoFit, Target, gpu_compute_capability, install_commands, solve, target_from_facts
from gpudoctor.snapshot import facts_from_dict

M = load_matrix()

RTX5090_R570 = Target("linux", "3.12", "570.124.04", "12.8", ("12.0",))
T4_R535 = Target("linux", "3.11", "535.104.05", "12.2", ("7.5",))
V100_R580 = Target("linux", "3.12", "580.65.06", "13.0", ("7.0",))
GTX1080_R470 = Target("linux", "3.10", "470.82.01", "11.4", ("6.1",))
H100_R580 = Target("linux", "3.12", "580.95.05", "13.0", ("9.0",))
CPU_ONLY = Target("linux", "3.12", None, None, ())
WINDOWS = Target("windows", "3.12", "551.61", "12.4", ("8.6",))


@pytest.mark.parametrize(
    ("target", "framework", "version", "variant", "index", "packages"),
    [
        (RTX5090_R570, "torch", "2.11.0", "cu128", "https://download.pytorch.org/whl/cu128", ("torch==2.11.0", "torchvision==0.26.0")),
        (T4_R535, "torch", "2.14.1", "cu126", "https://download.pytorch.org/whl/cu126", ("torch==2.14.1", "torchvision==0.29.1")),
        (V100_R580, "torch", "2.14.1", "cu126", "https://download.pytorch.org/whl/cu126", ("torch==2.14.1", "torchvision==0.29.1")),
        (GTX1080_R470, "torch", "2.7.1", "cu118", "https://download.pytorch.org/whl/cu118", ("torch==2.7.1", "torchvision==0.22.1")),
        (H100_R580, "torch", "2.15.0", "cu132", "https://download.pytorch.org/whl/cu132", ("torch==2.15.0",)),
        (CPU_ONLY, "torch", "2.15.0", "cpu", "https://download.pytorch.org/whl/cpu", ("torch==2.15.0",)),
        (RTX5090_R570, "tensorflow", "2.21.0", "and-cuda", None, ("tensorflow[and-cuda]==2.21.0",)),
        (T4_R535, "tensorflow", "2.21.0", "and-cuda", None, ("tensorflow[and-cuda]==2.21.0",)),
        (V100_R580, "tensorflow", "2.21.0", "and-cuda", None, ("tensorflow[and-cuda]==2.21.0", "nvidia-cudnn-cu12==9.3.0.75")),
        (GTX1080_R470, "tensorflow", "2.14.1", "and-cuda", None, ("tensorflow[and-cuda]==2.14.1",)),
        (H100_R580, "tensorflow", "2.21.0", "and-cuda", None, ("tensorflow[and-cuda]==2.21.0",)),
        (CPU_ONLY, "tensorflow", "2.21.0", "cpu", None, ("tensorflow==2.21.0",)),
    ],
)
def test_choices(target, framework, version, variant, index, packages):
    choice = solve(M, target, framework)
    assert (choice.version, choice.variant, choice.index_url, choice.packages) == (version, variant, index, packages)
    assert choice.reasons


def test_reasons_explain_minor_version_compatibility():
    choice = solve(M, T4_R535, "torch")
    assert any("driver 535.104.05 supports CUDA 12.2" in r and "minor-version compatibility within 12.x" in r for r in choice.reasons)


def test_rtx5090_tensorflow_notes_ptx_jit():
    choice = solve(M, RTX5090_R570, "tensorflow")
    assert any("PTX JIT" in n for n in choice.notes)


def test_native_windows_tensorflow_takes_the_210_route():
    choice = solve(M, WINDOWS, "tensorflow")
    assert (choice.version, choice.variant, choice.python, choice.cuda) == ("2.10.1", "cuda-11.2-conda", "3.10", "11.2")
    assert choice.conda_packages == ("cudatoolkit=11.2", "cudnn=8.1.0")
    assert choice.packages == ("tensorflow==2.10.1",)
    assert any("WSL2" in n for n in choice.notes)
    assert any("Python 3.12" in r and "3.7–3.10" in r for r in choice.reasons)
    assert install_commands(choice) == ("conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0", "pip install tensorflow==2.10.1")


def test_wsl2_tensorflow_is_linux():
    choice = solve(M, Target("linux", "3.12", "551.61", "12.4", ("8.6",), wsl=True), "tensorflow")
    assert choice.variant == "and-cuda" and choice.version == "2.21.0"


def test_windows_torch_needs_the_pytorch_index():
    choice = solve(M, WINDOWS, "torch")
    assert choice.variant == "cu126" and choice.index_url == "https://download.pytorch.org/whl/cu126"


def test_pinned_version_that_does_not_fit_raises_nofit_with_the_way_out():
    with pytest.raises(NoFit) as info:
        solve(M, GTX1080_R470, "torch", "2.8")
    assert "torch 2.7.1+cu118" in info.value.suggestion and ">= 525.60.13" in info.value.suggestion
    assert any("470.82.01" in r for r in info.value.reasons)


def test_pinned_version_that_fits():
    choice = solve(M, RTX5090_R570, "torch", "2.7.1")
    assert (choice.version, choice.variant) == ("2.7.1", "cu128")


def test_unknown_version_is_nofit():
    with pytest.raises(NoFit, match="not in the compatibility matrix"):
        solve(M, H100_R580, "torch", "3.0")


def test_python_without_wheels_falls_back_to_another_python():
    # Python 3.4: no torch release of the matrix has a wheel for it (torch 1.0-1.10 do have cp36 wheels)
    choice = solve(M, Target("linux", "3.4", "580.95.05", "13.0", ("9.0",)), "torch")
    assert choice.python != "3.4" and choice.reasons[0].startswith("Python 3.4 has no wheel")


def test_driver_cuda_derived_from_the_driver_version():
    choice = solve(M, Target("linux", "3.11", "535.104.05", None, ("7.5",)), "torch")
    assert choice.variant == "cu126"


def test_gpu_compute_capability_and_target_from_facts():
    assert gpu_compute_capability(M, "Tesla V100-SXM2-16GB") == "7.0"
    facts = facts_from_dict({
        "host": {"os": "linux", "python": "3.11.9", "wsl": None},
        "driver": {"version": "570.124.04", "cuda_version": "12.8"},
        "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": None}],
    })
    target = target_from_facts(facts, matrix=M)
    assert target == Target("linux", "3.11", "570.124.04", "12.8", ("8.9",), False, "x86_64")
    assert target_from_facts(facts, python="3.12", matrix=M).python == "3.12"
