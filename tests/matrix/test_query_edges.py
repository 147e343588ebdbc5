"""Query and solver edges the tables decide (issue 11): the macOS CPU build's name by CPU, a driver branch read
against the Windows table, a ROCm patch release answered with its minor's wheels."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.errors import UnknownRelease
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.queries.keras_queries import keras_for_tf
from gpudoctor.matrix.queries.platform_queries import jetpack_info
from gpudoctor.matrix.queries import driver_info, newest_torch_for, torch_info
from gpudoctor.matrix.queries.rocm_queries import rocm_info
from gpudoctor.matrix.solver.solve import Target, solve

MATRIX = load_matrix()


def test_a_mac_gets_the_cpu_build_named_for_its_cpu():
    intel = solve(MATRIX, Target("darwin", None, None, None, (), arch="x86_64"), "torch")
    apple = solve(MATRIX, Target("darwin", None, None, None, (), arch="arm64"), "torch")
    assert "macOS x86_64: PyTorch has no CUDA builds there (CPU build from the default index)" in intel.reasons
    assert "macOS arm64: PyTorch has no CUDA builds there (CPU / Apple MPS build from the default index)" in apple.reasons


def test_a_driver_branch_is_read_in_its_own_os_table():
    assert driver_info(MATRIX, "R550").cuda == "12.4"
    assert driver_info(MATRIX, "R550", "windows").cuda == "12.3"  # Windows drivers of a CUDA release start later


def test_a_rocm_patch_release_is_answered_with_its_minors_wheels():
    assert [(w.torch, w.rocm) for w in rocm_info(MATRIX, "6.2.4").wheels] == [("2.5", "6.2"), ("2.6", "6.2.4")]
    assert [(w.torch, w.rocm) for w in rocm_info(MATRIX, "6.2").wheels] == [("2.5", "6.2"), ("2.6", "6.2.4")]


def test_torch_info_lists_the_experimental_pythons():
    assert torch_info(MATRIX, "2.5").python_experimental == ("3.13",)  # torch 2.5: Python 3.13 wheels, marked experimental


def test_the_newest_build_for_a_gpu_is_the_releases_default_where_that_has_native_code():
    newest = newest_torch_for(MATRIX, "8.0")
    release = MATRIX.torch_release(newest["version"])
    assert (newest["variant"], newest["code"]) == (release.default_linux, "sass")


def test_keras_pins_without_a_keras_table_are_an_unknown_release():
    with pytest.raises(UnknownRelease, match=r"^tensorflow 2\.16 is not in the matrix \(it knows no Keras table\)$"):
        keras_for_tf(dataclasses.replace(MATRIX, keras=None), "2.16")


def test_an_unknown_jetpack_lists_the_known_ones_with_their_l4t():
    with pytest.raises(UnknownRelease) as caught:
        jetpack_info(MATRIX, "9.9")
    assert str(caught.value).startswith("JetPack 9.9 is not in the matrix (it knows 6.2 (L4T 36.4.3), ")


def test_rocm_queries_without_a_rocm_table_say_so():
    with pytest.raises(UnknownRelease, match=r"^ROCm 6\.2 is not in the matrix \(it knows no ROCm releases: rocm\.toml is missing\)$"):
        rocm_info(dataclasses.replace(MATRIX, rocm=None), "6.2")
