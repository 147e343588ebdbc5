"""A backbone pretrained here (no weights offline) is kept in gpudoctor's cache and reused by later runs (issue 23):
the entry's name holds the framework's version and the recipe, a damaged or foreign entry is pretrained again, and
the report says where a reused backbone came from."""

from __future__ import annotations

import os

import pytest

np = pytest.importorskip("numpy", reason="numpy is not installed (it comes with every framework verify runs)")

from gpudoctor.workloads import weights  # noqa: E402
from tests.conftest import needs  # noqa: E402
from tests.verify.helpers import check, cli_json, only  # noqa: E402

SHAPES = {"c1.w": (3, 3, 3, 16), "c1.b": (16,)}


def _arrays() -> dict:
    rng = np.random.default_rng(0)
    return {name: rng.normal(0.0, 1.0, shape).astype(np.float32) for name, shape in SHAPES.items()}


def test_the_entry_is_named_by_framework_version_backbone_and_recipe(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", str(tmp_path))
    path = weights.pretrained_here_path("torch", "2.15.0+cpu", "MobileNetV3-small", "s64-20x32")
    assert path is not None and path.parent == tmp_path / "verify"
    assert path.name == "pretrained-here-torch-2.15.0_cpu-MobileNetV3_small-s64_20x32.npz"
    assert weights.pretrained_here_path("torch", "2.16.0", "MobileNetV3-small", "s64-20x32") != path
    assert weights.pretrained_here_path("torch", "2.15.0+cpu", "MobileNetV3-small", "s64-60x32") != path
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", "")
    assert weights.pretrained_here_path("torch", "2.15.0", "MobileNetV3-small", "s64-20x32") is None


def test_what_is_kept_is_what_is_loaded_bit_for_bit(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", str(tmp_path))
    path = weights.pretrained_here_path("jax", "0.10.2", "backbone", "r")
    assert weights.load_pretrained_here(path, SHAPES) is None  # nothing kept yet: the caller pretrains
    kept = _arrays()
    weights.save_pretrained_here(path, kept)
    loaded = weights.load_pretrained_here(path, SHAPES)
    assert loaded is not None and all(np.array_equal(loaded[k], kept[k]) for k in SHAPES)
    source = weights.pretrained_here_source("a backbone", path, "/nowhere/file.h5")
    assert "pretrained here on synthetic data (nothing at /nowhere/file.h5)" in source.description
    assert f"reused from gpudoctor's cache {path}" in source.description


@pytest.mark.parametrize("change", ["shape", "missing", "extra", "damaged", "foreign"])
def test_an_entry_that_does_not_fit_or_is_not_ours_is_pretrained_again(tmp_path, monkeypatch, change):
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", str(tmp_path))
    path = weights.pretrained_here_path("jax", "0.10.2", "backbone", "r")
    arrays = _arrays()
    if change == "shape":
        arrays["c1.b"] = np.zeros(8, np.float32)
    elif change == "missing":
        del arrays["c1.b"]
    elif change == "extra":
        arrays["c2.w"] = np.zeros(3, np.float32)
    weights.save_pretrained_here(path, arrays)
    if change == "damaged":
        path.write_bytes(path.read_bytes()[:100])
    elif change == "foreign":
        os.chmod(path, 0o666)  # anybody could have written it: not ours to trust
    assert weights.load_pretrained_here(path, SHAPES) is None


@pytest.mark.slow
@needs("jax", "jaxlib")
def test_a_second_run_reuses_the_backbone_the_first_pretrained_and_learns_the_same(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", str(tmp_path))
    results = []
    for _ in range(2):
        code, report = cli_json("--framework", "jax", "--test", "transfer", "--device", "cpu")
        assert code == 0
        results.append(only(report))
    first, second = results
    assert first["notes"] == second["notes"] == [weights.FALLBACK_NOTE]
    assert "reused from gpudoctor's cache" not in first["weights"]
    assert f"reused from gpudoctor's cache {tmp_path}" in second["weights"]
    assert check(first, "learned")["measured"] == check(second, "learned")["measured"]
    assert check(second, "frozen")["status"] == "passed"
