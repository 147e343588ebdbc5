"""jetpack.toml: the loader keeps each field of a release, each platform file is optional, a duplicate L4T release is
refused naming the file and key, an L4T-numbered query is read as L4T, and a row that marks its torch index
unconfirmed gets no files (issue 11: mutants of platform_tables.py, platform_queries.py and _solve_jetson.py)."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.queries.platform_queries import jetpack_info
from gpudoctor.matrix.tables.platform_tables import JetpackRelease, PlatformTables, load_platform_tables
from gpudoctor.matrix.solver.solve import NoFit, Target, solve
from gpudoctor.resources import matrices_dir

if sys.version_info >= (3, 11):
    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MATRIX = load_matrix()
ROW = """
[[release]]
jetpack = "{jetpack}"
l4t = "{l4t}"
cuda = "12.6"
python = "3.10"
ubuntu = "22.04"
torch = ["2.5"]
sources = ["https://docs.pytorch.org/TensorRT/getting_started/jetpack.html"]
"""
HEADER = 'reviewed = "2026-11-24"\nsources = ["https://developer.nvidia.com/embedded/jetpack-archive"]\n'


def _with_jetpack(*rows: JetpackRelease):
    return dataclasses.replace(MATRIX, platform_tables=dataclasses.replace(MATRIX.platform_tables, jetpack=rows))


def test_the_shipped_jetpack_6_0_row_keeps_every_field():
    # read with the loader itself: load_matrix() caches its result, so it would not run the loader under test
    assert load_platform_tables(matrices_dir(), tomllib).jetpack_release("6.0") == JetpackRelease(
        jetpack="6.0", l4t="36.3.0", cuda="12.2", cudnn="8.9", tensorrt=None, python="3.10", ubuntu="22.04",
        torch=("2.1", "2.2"), torch_index="https://developer.download.nvidia.com/compute/redist/jp/v60/pytorch/",
        unconfirmed=("cuda", "torch_index"),
        sources=("https://github.com/dusty-nv/jetson-containers/blob/master/packages/cuda/cudnn/config.py",
                 "https://forums.developer.nvidia.com/t/pytorch-for-jetson/72048"),
    )


def test_a_directory_without_platform_files_gives_empty_tables(tmp_path):
    assert load_platform_tables(tmp_path, tomllib) == PlatformTables()


def test_a_directory_without_jetpack_toml_has_no_jetpack_rows(tmp_path):
    (tmp_path / "accelerators.toml").write_text(
        HEADER + '[directml]\nnote = "a"\n[xpu]\nnote = "b"\n[mxnet]\nnote = "c"\n', encoding="utf-8")
    tables = load_platform_tables(tmp_path, tomllib)
    assert tables.jetpack == () and tables.apple is None
    assert tables.accelerators.directml == {"note": "a"}
    assert tables.reviewed == (("accelerators.toml", "2026-11-24"),)


def test_two_releases_with_one_l4t_are_refused_naming_the_file_and_key(tmp_path):
    (tmp_path / "jetpack.toml").write_text(
        HEADER + ROW.format(jetpack="6.1", l4t="36.4.0") + ROW.format(jetpack="6.2", l4t="36.4.0"), encoding="utf-8")
    with pytest.raises(MatrixError) as caught:
        load_platform_tables(tmp_path, tomllib)
    assert str(caught.value) == "matrices/jetpack.toml: key 'release': two JetPack releases name the same L4T release"


def test_a_query_whose_major_is_20_is_an_l4t_release():
    # A number whose major is 20 or more is read as an L4T release (JetPack numbers stay in single digits, L4T
    # majors are in the 20s and 30s): at the boundary, "20.1" finds a row whose L4T is 20.1 (a made-up row).
    row = JetpackRelease("1.0", "20.1", "6.5", None, None, "2.7", "14.04", (), None)
    assert jetpack_info(_with_jetpack(row), "20.1").jetpack == "1.0"
    assert jetpack_info(_with_jetpack(row), "R20.1").jetpack == "1.0"


def test_a_row_marking_its_torch_index_unconfirmed_gets_no_files_even_with_an_index_url():
    shipped = MATRIX.platform_tables.jetpack_release("6.2")
    marked = dataclasses.replace(shipped, unconfirmed=("torch_index",))
    target = Target("linux", "3.10", None, None, ("8.7",), arch="aarch64", jetpack="6.2")
    with pytest.raises(NoFit) as caught:
        solve(_with_jetpack(marked), target, "torch")
    assert str(caught.value) == "gpudoctor writes no files for JetPack 6.2: the source of its torch wheels is unconfirmed"
    # the shipped row confirms its index: the same target gets the wheels
    assert solve(_with_jetpack(shipped), target, "torch").index_url == "https://pypi.jetson-ai-lab.dev/jp6/cu126"


def test_the_jetson_tensorflow_tag_is_read_and_must_be_a_tag_with_its_sources(tmp_path):
    source = 'tensorflow_sources = ["https://developer.download.nvidia.com/compute/redist/jp/v461/tensorflow/"]\n'
    (tmp_path / "jetpack.toml").write_text(HEADER + 'tensorflow_local_tag = "nv"\n' + source + ROW.format(jetpack="6.1", l4t="36.4.0"), encoding="utf-8")
    assert load_platform_tables(tmp_path, tomllib).jetson_tf_local_tag == "nv"
    (tmp_path / "jetpack.toml").write_text(HEADER + 'tensorflow_local_tag = "+nv"\n' + source + ROW.format(jetpack="6.1", l4t="36.4.0"), encoding="utf-8")
    with pytest.raises(MatrixError, match="tensorflow_local_tag"):
        load_platform_tables(tmp_path, tomllib)
    (tmp_path / "jetpack.toml").write_text(HEADER + 'tensorflow_local_tag = "nv"\n' + ROW.format(jetpack="6.1", l4t="36.4.0"), encoding="utf-8")
    with pytest.raises(MatrixError, match="tensorflow_sources"):
        load_platform_tables(tmp_path, tomllib)
    (tmp_path / "jetpack.toml").write_text(HEADER + ROW.format(jetpack="6.1", l4t="36.4.0"), encoding="utf-8")
    assert load_platform_tables(tmp_path, tomllib).jetson_tf_local_tag is None
