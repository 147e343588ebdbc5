"""matrices/jetpack.toml, apple.toml, accelerators.toml: loaded, looked up, and `gpudoctor matrix jetpack`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main
from gpudoctor.errors import MatrixError
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.platform_tables import load_platform_tables
from gpudoctor.resources import matrices_dir

try:
    import tomllib  # novermin: tomli stands in below 3.11
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

T = load_matrix().platform_tables


def test_jetpack_lookup_by_release_and_by_l4t():
    assert T.jetpack_release("6.2").l4t == "36.4.3"
    assert T.jetpack_release("6").jetpack == "6.2"  # the newest 6.x
    assert T.jetpack_by_l4t("36.4").jetpack == "6.1"  # "36.4" is L4T 36.4.0
    assert T.jetpack_by_l4t("32.4.3") is None
    assert all(r.sources and r.cuda for r in T.jetpack)



@pytest.mark.parametrize("release, l4t", [
    ("4.6", "32.6.1"), ("4.6.1", "32.7.1"), ("5.1", "35.2.1"), ("5.1.2", "35.4.1"), ("4.5", "32.5.0"), ("4.4.1", "32.4.4"),
])
def test_a_two_part_jetpack_is_its_own_release_not_the_newest_patch(release, l4t):
    # Held-out check: `matrix jetpack 4.6` answered with 4.6.1's row (L4T 32.7.1); JetPack 4.6 is L4T R32.6.1
    # (NVIDIA's TF-for-Jetson release notes, "PyTorch for Jetson" forum thread).
    assert T.jetpack_release(release).l4t == l4t
    assert T.jetpack_by_l4t(l4t).jetpack == release


def test_a_two_part_jetpack_missing_from_the_table_is_unknown():
    assert T.jetpack_release("5.0") is None  # JetPack 5.0 (L4T 34.1) is not a row: no 5.0.x answer in its place
    assert T.jetpack_release("5").jetpack == "5.1.2"  # a bare major still means the newest of that series
    result = CliRunner().invoke(main, ["matrix", "jetpack", "5.0"])
    assert result.exit_code == 2 and "4.6 (L4T 32.6.1)" in result.output

def test_metal_table_covers_each_tensorflow_once():
    for tf in ("2.5.0", "2.9.2", "2.13.1", "2.14.0", "2.17.1", "2.18.0", "2.20.0"):
        assert T.apple.metal_for_tf(tf) is not None, tf
    assert T.apple.metal_for_tf("2.4.0") is None
    assert T.apple.mps_min_macos == "12.3"


def test_a_broken_table_names_the_file(tmp_path):
    for path in matrices_dir().glob("*.toml"):
        (tmp_path / path.name).write_text(path.read_text())
    text = (tmp_path / "jetpack.toml").read_text().replace('l4t = "36.4.0"', 'l4t = "36.4.3"', 1)
    (tmp_path / "jetpack.toml").write_text(text)
    with pytest.raises(MatrixError, match="jetpack.toml"):
        load_platform_tables(tmp_path, tomllib)


def test_matrix_jetpack_cli_text_and_json():
    runner = CliRunner()
    text = runner.invoke(main, ["matrix", "jetpack", "6.2"])
    assert text.exit_code == 0
    assert "L4T 36.4.3" in text.output and "CUDA            12.6" in text.output and "TensorRT        10.3" in text.output
    data = json.loads(runner.invoke(main, ["matrix", "jetpack", "r36.4.3", "--json"]).output)
    assert (data["jetpack"], data["cuda"], data["cudnn"]) == ("6.2", "12.6", "9.3")
    older = runner.invoke(main, ["matrix", "jetpack", "5.1.2"])
    assert "(not confirmed against a source)" in older.output


def test_matrix_jetpack_unknown_release_lists_the_known_ones():
    result = CliRunner().invoke(main, ["matrix", "jetpack", "7.0"])
    assert result.exit_code == 2
    assert "6.2 (L4T 36.4.3)" in result.output and "Traceback" not in result.output
