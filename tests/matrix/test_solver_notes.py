"""What the solver and the platform tables tell the user (issue 11): the driver a machine without a known driver
needs, the Windows conda note, an unknown release named with the known ones, AMD and JetPack names and routes."""

from __future__ import annotations

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.solver.driver import driver_verdict
from gpudoctor.matrix.solver.solve import NoFit, Target, UnknownPinnedRelease, solve

MATRIX = load_matrix()


def test_without_a_known_driver_the_note_names_the_minimum_driver():
    choice = solve(MATRIX, Target("linux", None, None, None, ("8.9",)), "torch")
    verdict = driver_verdict(MATRIX, choice.cuda, None, None)
    assert verdict.need != verdict.full  # the major's compatibility floor, lower than the release's own driver
    assert f"no NVIDIA driver known: {choice.label} needs one >= {verdict.need}" in choice.notes


def test_tf210_on_native_windows_says_where_the_cuda_dlls_come_from():
    choice = solve(MATRIX, Target("windows", "3.10", "551.61", None, ("8.6",)), "tensorflow", "2.10")
    assert choice.label == "tensorflow 2.10.1 (cuda-11.2-conda)"
    assert ("requirements.txt / pyproject-uv.toml: a plain venv finds conda's CUDA DLLs only while that conda environment is "
            "activated (its Library\\bin is on PATH then); environment.yml keeps both in one environment") in choice.notes


def test_an_unknown_torch_release_lists_the_known_series():
    with pytest.raises(UnknownPinnedRelease) as caught:
        solve(MATRIX, Target("linux", None, None, None, ()), "torch", "9.9")
    assert str(caught.value).startswith("torch 9.9 is not in the compatibility matrix (reviewed ")
    assert "it knows 1.0, 1.1," in str(caught.value)


@pytest.mark.parametrize(("name", "gfx"), [("Radeon RX 7900 XTX", "gfx1100"), ("RX 7900 XTX", "gfx1100"), ("MI300X", "gfx942"),
                                           ("Instinct MI300X", "gfx942"), ("amd radeon pro w7900", "gfx1100"), ("7900 XTX", None), ("", None)])
def test_amd_gpus_by_the_names_people_write(name, gfx):
    assert MATRIX.rocm.gfx_for(name) == gfx


def test_jetpack_torch_routes():
    by_jetpack = {j.jetpack: j for j in MATRIX.platform_tables.jetpack}
    assert by_jetpack["6.2"].install_torch() == "pip install torch torchvision --index-url https://pypi.jetson-ai-lab.dev/jp6/cu126"
    # NVIDIA's redist folder is a directory of wheels, not an index: name the wheel to fetch instead
    assert by_jetpack["6.0"].install_torch() == (
        "pip install <torch wheel for JetPack 6.0 from https://developer.download.nvidia.com/compute/redist/jp/v60/pytorch/>")


def test_a_jetpack_whose_wheel_index_is_unconfirmed_says_where_to_get_torch():
    with pytest.raises(NoFit) as caught:
        solve(MATRIX, Target("linux", "3.10", None, None, ("8.7",), arch="aarch64", jetpack="6.0"), "torch")
    assert str(caught.value) == "gpudoctor writes no files for JetPack 6.0: the source of its torch wheels is unconfirmed"
    assert caught.value.suggestion == (
        f"pick the torch wheel for JetPack 6.0 from {MATRIX.platforms.jetson_wheels_url}, or use the nvcr.io/nvidia/l4t-pytorch "
        "container whose tag starts r36.3.0")


def test_jax_majors_and_releases_newer_than_the_table():
    jax = MATRIX.jax
    assert jax.major("cuda12").name == "cuda12" and jax.major("cuda99") is None
    assert jax.is_newer_than_known("99.0") and jax.is_newer_than_known("99.0+local")
    assert not jax.is_newer_than_known(jax.newest())
