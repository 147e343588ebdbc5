"""matrices/keras.toml: its rows, the lookups (PEP 440 through packaging), pin_for_tf, and the loader's errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.queries.keras_queries import pin_for_tf
from gpudoctor.resources import matrices_dir

TABLE = load_matrix().keras


def test_every_row_has_sources_and_keras3_starts_at_216():
    assert TABLE is not None and TABLE.keras3_since == "2.16" and TABLE.bundled_until == "2.5"
    for row in TABLE.tensorflow:
        assert row.sources and all(u.startswith("https://") for u in row.sources)
        assert row.keras3 == (tuple(map(int, row.series.split("."))) >= (2, 16))
    assert [r.series for r in TABLE.standalone] == ["2.2", "2.3", "2.4"]
    assert [r.multi_backend for r in TABLE.standalone] == [True, True, False]


@pytest.mark.parametrize(
    ("tf", "kind", "requirements", "legacy"),
    [
        ("1.15.0", "bundled", (), ()),
        ("2.5", "bundled", (), ()),
        ("2.6", "keras 2", ("keras==2.6.*",), ()),
        ("2.13.1", "keras 2", ("keras==2.13.*",), ()),
        ("2.15", "keras 2", ("keras==2.15.*",), ()),
        ("2.16.1", "keras 3", ("keras>=3.0.0",), ("tf-keras==2.16.*",)),
        ("2.18.0", "keras 3", ("keras>=3.5.0",), ("tf-keras==2.18.*",)),
        ("2.21.0", "keras 3", ("keras>=3.12.0",), ("tf-keras==2.21.*",)),
    ],
)
def test_pin_for_tf(tf, kind, requirements, legacy):
    pin = pin_for_tf(TABLE, tf)
    assert (pin.tf_keras_is, pin.requirements, pin.legacy_requirements) == (kind, requirements, legacy)
    assert pin.legacy_env == ((("TF_USE_LEGACY_KERAS", "1"),) if legacy else ())


def test_pin_for_an_unknown_tf_is_none():
    assert pin_for_tf(TABLE, "2.99") is None and pin_for_tf(TABLE, "banana") is None


def test_standalone_rows_fit_by_specifier():
    assert TABLE.standalone_row("2.3.1").fits(TABLE_V("1.15.0"))
    assert not TABLE.standalone_row("2.2.5").fits(TABLE_V("2.0.0"))
    assert TABLE.standalone_row("2.5.0rc0") is None
    assert TABLE.standalone_for_tf(TABLE_V("2.1.0")) is None  # 2.3 stops at 2.0, the redirect starts at 2.2


def TABLE_V(text):
    from packaging.version import Version

    return Version(text)


def test_legacy_values_are_tensorflows():
    assert [v for v in ("1", "true", "True", "TRUE", "yes", "0") if TABLE.legacy_enabled(v)] == ["1", "true", "True"]


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "matrices"
    shutil.copytree(matrices_dir(), target)
    return target


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ('keras = ">=2.10.0,<2.11"', 'keras = "2.10 or so"', r"keras.toml: key 'tensorflow\[\d+\]\.keras': not a PEP 440"),
        ('wheel = "2.10.0"', 'wheel = "2.11.0"', r"key 'tensorflow\[\d+\]\.wheel': '2.11.0' is not a release of tensorflow 2.10"),
        ('keras = ">=3.2.0"', 'keras = ">=2.17.0,<2.18"', r"key 'tensorflow\[\d+\]\.keras': .* disagrees with keras3_since"),
        ('kind = "tf.keras redirect"', 'kind = "redirect"', r"key 'standalone\[2\]\.kind'"),
        ('series = "2.12"\nwheel = "2.12.0"', 'series = "2.14"\nwheel = "2.14.0"', r"key 'tensorflow': rows must be in release order"),
        ('reviewed = "2026-11-24"', 'reviewed = "soon"', r"keras.toml: key 'reviewed'"),
    ],
)
def test_loader_names_the_file_and_key(tmp_path, old, new, error):
    d = _copy(tmp_path)
    text = (d / "keras.toml").read_text()
    assert old in text
    (d / "keras.toml").write_text(text.replace(old, new, 1))
    with pytest.raises(MatrixError, match=error):
        load_matrix(d)
