"""The JAX smoke tests: the weights file rules (fast), and the three cases for real through the command (slow), on
the GPU where JAX sees one (placement from array.devices(), agreement with the CPU), else on the CPU."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="numpy is not installed (it comes with JAX): the weights files are .npz")

from gpudoctor.matrix.tables.framework import Framework  # noqa: E402
from gpudoctor.workloads import CaseFailed, weights  # noqa: E402
from tests.conftest import needs  # noqa: E402
from tests.verify.helpers import check, cli_json, only  # noqa: E402

SHAPES = {"c1": {"w": np.zeros((3, 3, 3, 16), np.float32), "b": np.zeros(16, np.float32)},
          "c2": {"w": np.zeros((3, 3, 16, 32), np.float32), "b": np.zeros(32, np.float32)}}  # fmt: skip


def _save(path, shapes, **extra) -> str:
    rng = np.random.default_rng(0)
    arrays = {f"{layer}.{k}": rng.normal(0.25, 0.1, a.shape).astype(np.float32) for layer, d in shapes.items() for k, a in d.items()}
    np.savez(path, **arrays, **extra)
    return str(path)


def test_npz_files_are_jax_weights():
    assert weights.framework_of("/w/backbone.NPZ") is Framework.JAX
    assert weights.framework_of("/w/model.pth") is Framework.TORCH and weights.framework_of("/w/a.h5") is Framework.TENSORFLOW
    assert weights.framework_of("/w/notes.txt") is None


def test_the_cache_is_gpudoctors_own(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", str(tmp_path))
    assert weights.jax_cache_path() == tmp_path / "verify" / weights.JAX_WEIGHTS_FILE
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", "")
    assert weights.jax_cache_path() is None
    _, source = weights.jax_backbone((), SHAPES)
    assert source.kind == "fallback" and "pretrained here on synthetic data" in source.description


def test_a_cached_file_is_loaded_exactly(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", str(tmp_path))
    (tmp_path / "verify").mkdir()
    _save(tmp_path / "verify" / weights.JAX_WEIGHTS_FILE, SHAPES)
    loaded, source = weights.jax_backbone((), SHAPES)
    assert source.kind == "cache" and str(tmp_path) in source.description
    with np.load(tmp_path / "verify" / weights.JAX_WEIGHTS_FILE) as saved:
        assert np.array_equal(loaded["c2"]["w"], saved["c2.w"]) and loaded["c1"]["b"].shape == (16,)


@pytest.mark.parametrize("change", ["shape", "missing", "extra"])
def test_a_file_that_does_not_fit_fails_with_the_reason(tmp_path, change):
    shapes = {layer: dict(d) for layer, d in SHAPES.items()}
    extra = {}
    if change == "shape":
        shapes["c2"]["w"] = np.zeros((3, 3, 16, 64), np.float32)
    elif change == "missing":
        del shapes["c2"]["b"]
    else:
        extra = {"c3.w": np.zeros(3, np.float32)}
    path = _save(tmp_path / "bad.npz", shapes, **extra)
    with pytest.raises(CaseFailed, match=r"weights: .*bad\.npz does not fit"):
        weights.jax_backbone((path,), SHAPES)


@pytest.mark.slow
@needs("jax", "jaxlib")
@pytest.mark.parametrize("test", ["cnn", "lstm", "transfer"])
def test_trains_for_real_where_jax_sees_a_device(test, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", str(tmp_path))  # nothing cached: the transfer test pretrains here
    code, report = cli_json("--framework", "jax", "--test", test)
    result = only(report)
    assert code == 0, result
    assert result["framework"] == "jax" and result["status"] == "passed"
    placement = check(result, "placement")
    assert placement["status"] == "passed" and placement["measured"]["misplaced"] == 0
    assert placement["measured"]["batches"] == result["steps"]
    if placement["measured"]["jax_gpus"] > 0:
        assert result["device"] == "cuda:0" and placement["measured"]["default_backend"] == "gpu"
        assert check(result, "agreement")["status"] == "passed"
    else:
        assert result["device"] == "cpu" and report["ran_on"] == "on the CPU: no CUDA device is visible"
        assert result["device_note"].startswith("no CUDA device is visible to JAX")
        assert check(result, "agreement")["status"] == "skipped"
    m = check(result, "learned")["measured"]
    assert m["last_loss"] < m["first_loss"] * (1 - m["min_drop"]) and m["accuracy"] >= m["min_accuracy"]
    if test == "transfer":
        frozen = check(result, "frozen")["measured"]
        assert (frozen["backbone_changed"], frozen["backbone_tensors"], frozen["head_changed"]) == (0, 4, 2)
        assert result["notes"] == [weights.FALLBACK_NOTE] and str(tmp_path) in result["weights"]


@pytest.mark.slow
@needs("jax", "jaxlib")
def test_transfer_from_a_weights_file_and_a_file_that_does_not_fit(tmp_path):
    good = _save(tmp_path / "backbone.npz", SHAPES)
    code, report = cli_json("--framework", "jax", "--test", "transfer", "--weights", good)
    result = only(report)
    assert result["weights"].endswith(f"loaded from {good} (--weights)") and result["notes"] == []
    assert check(result, "frozen")["status"] == "passed"
    bad = _save(tmp_path / "small.npz", {"c1": SHAPES["c1"]})
    code, report = cli_json("--framework", "jax", "--test", "transfer", "--weights", bad)
    assert code == 1 and "does not fit" in only(report)["reason"]
