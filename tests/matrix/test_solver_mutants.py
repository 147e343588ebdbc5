"""Edges of the solver and the matrix lookups it uses (issue 11, mutation testing of gpudoctor/matrix/): the
reasons a refusal gives, the recipe's attribution, fallbacks, and unknown facts. Expected values come from
matrices/*.toml (rocm.toml, platforms.toml, wheels.toml, tensorflow.toml) and are stated literally."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.loader import parse_and_validate
from gpudoctor.matrix.solver.solve import NoFit, Target, solve, target_from_facts
from gpudoctor.model import Driver, Facts, Gpu, Host
from gpudoctor.resources import matrices_dir

M = load_matrix()
GTX1080_R470 = Target("linux", "3.8", "470.82.01", "11.4", ("6.1",))
GH200_R580 = Target("linux", "3.12", "580.95.05", "13.0", ("9.0",), arch="aarch64")


def test_a_gfx_target_no_wheel_carries_names_the_range_of_torch_releases_known():
    # rocm.toml's [[wheel]] rows run from torch 2.4 to 2.13; none carries the RX 5700 XT's gfx1010
    with pytest.raises(NoFit) as exc:
        solve(M, Target("linux", "3.12", None, None, (), gfx=("gfx1010",)), "torch")
    assert str(exc.value) == "no official PyTorch ROCm wheel carries gfx1010"
    assert exc.value.reasons[0].startswith("the ROCm wheels of every torch release gpudoctor knows (2.4–2.13) are compiled for gfx900, ")
    assert exc.value.reasons[0].endswith(': not for gfx1010, so torch fails with "HIP error: invalid device function"')


def test_rocm_choice_without_a_confirmed_torchvision_says_so():
    release = M.torch_release("2.13")
    bare = dataclasses.replace(release, torchvision=None, torchvision_pins={})
    matrix = dataclasses.replace(M, torch=tuple(bare if r is release else r for r in M.torch))
    choice = solve(matrix, Target("linux", "3.12", None, None, (), gfx=("gfx1100",)), "torch", "2.13")
    assert choice.variant.startswith("rocm")
    assert not any(p.startswith("torchvision") for p in choice.packages)
    assert "no torchvision release is confirmed for torch 2.13" in choice.notes


def test_the_conda_recipe_without_an_origin_is_attributed_to_tensorflows_own():
    # platforms.toml's recipe for 2.5-2.11 (cudatoolkit=11.2, cudnn=8.1.0) is TensorFlow's pip.md one: no `origin`
    choice = solve(M, GTX1080_R470, "tensorflow", "2.10")
    assert choice.variant == "cuda-11.2-conda"
    assert choice.reasons[-1] == (
        "tensorflow 2.10.1 has no `and-cuda` extra (it came with 2.14): CUDA 11.2 and cuDNN 8.1 go into the conda environment "
        "(cudatoolkit=11.2, cudnn=8.1.0) and the loader is pointed at them; TensorFlow's Linux recipe"
    )


def test_a_release_before_and_cuda_with_no_recipe_is_refused_with_its_cuda_and_cudnn():
    matrix = dataclasses.replace(M, platforms=dataclasses.replace(M.platforms, tf_linux_conda=()))
    with pytest.raises(NoFit) as exc:
        solve(matrix, GTX1080_R470, "tensorflow", "2.10")
    assert "tensorflow 2.10.1 has no `and-cuda` extra and gpudoctor knows no recipe for its CUDA 11.2 / cuDNN 8.1 here" in exc.value.reasons


def test_torch_before_the_first_aarch64_cuda_wheel_is_refused_on_linux_aarch64():
    # platforms.toml: linux_aarch64_cuda_since = "2.11" (older aarch64 wheels on the package index are CPU-only)
    with pytest.raises(NoFit) as exc:
        solve(M, GH200_R580, "torch", "2.10")
    assert exc.value.reasons == (
        "torch 2.10.0 has no CUDA build for Linux aarch64 on the package index (its aarch64 wheels are CPU-only; CUDA ones from 2.11)",
    )


def test_torch_from_the_first_aarch64_cuda_wheel_is_chosen_on_linux_aarch64():
    choice = solve(M, GH200_R580, "torch", "2.11")
    assert choice.version.startswith("2.11.") and choice.cuda is not None and choice.index_url is None


def test_a_tensorflow_gpu_wheel_is_found_for_a_release_the_table_lacks():
    # wheels.toml audits tensorflow-gpu 1.15.0; a hand-built matrix without the 1.15 row still finds it
    matrix = dataclasses.replace(M, tensorflow=tuple(r for r in M.tensorflow if r.series != "1.15"))
    wheel = matrix.framework_wheel("tensorflow", "1.15.0")
    assert (wheel.package, wheel.version) == ("tensorflow-gpu", "1.15.0")


def test_a_gpu_without_name_or_compute_capability_adds_no_capability():
    facts = Facts(host=Host(os="linux", python="3.12.3", arch="x86_64"), driver=Driver(version="580.95.05", cuda_version="13.0"),
                  gpus=(Gpu(index=0, name=None, compute_capability=None), Gpu(index=1, name="NVIDIA H100 80GB HBM3")))
    target = target_from_facts(facts, M)
    assert target.compute_capabilities == ("9.0",)


def test_a_matrix_directory_without_rocm_toml_has_no_rocm_table(tmp_path):
    for path in matrices_dir().glob("*.toml"):
        if path.name not in ("rocm.toml", "amd_gpus.toml"):
            (tmp_path / path.name).write_bytes(path.read_bytes())
    assert parse_and_validate(tmp_path).rocm is None
    full = parse_and_validate(matrices_dir())
    assert full.rocm.index_url == "https://download.pytorch.org/whl/"
    assert (full.rocm.wheels[0].torch, full.rocm.wheels[-1].torch) == ("2.4", "2.13")
