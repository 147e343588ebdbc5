"""All six smoke tests, for real, through the command (torch + torchvision, tensorflow + keras): on the GPU where the
framework sees one, else on the CPU, and the report must say which."""

from __future__ import annotations

import pytest

from tests.conftest import needs
from tests.verify.helpers import MODULES, check, cli_json, only

_NEEDS = {**MODULES, "torch": ("torch", "torchvision")}
CASES = [pytest.param(f, t, marks=needs(*_NEEDS[f])) for f in ("torch", "tf") for t in ("cnn", "lstm", "transfer")]


@pytest.fixture
def empty_caches(tmp_path, monkeypatch):
    """Nothing cached: the transfer tests must fall back to pretraining here (no network is tried)."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("framework, test", CASES)
def test_trains_for_real_where_the_framework_sees_a_device(framework, test, empty_caches):
    code, report = cli_json("--framework", framework, "--test", test)
    result = only(report)
    assert code == 0, result
    assert result["status"] == "passed" and result["reason"] is None
    assert result["steps"] > 0 and result["samples_per_s"] > 0 and result["wall_s"] > result["train_s"] > 0
    # Where it ran follows what the framework itself reported seeing (placement's measurements)
    seen = check(result, "placement")["measured"]
    on_gpu = (seen["cuda_device_count"] if framework == "torch" else seen["gpus_visible"]) > 0
    if on_gpu:
        assert result["device"] == "cuda:0" and report["ran_on"].endswith("(cuda:0)")
        assert result["peak_mem_mib"] > 0 and result["device_note"] is None
        assert check(result, "agreement")["status"] == "passed"
        assert check(result, "amp")["status"] in ("passed", "skipped")  # skipped below compute capability 7.0
    else:
        assert report["ran_on"] == "on the CPU: no CUDA device is visible"
        assert result["device"] == "cpu"
        assert result["device_note"].startswith(f"no CUDA device is visible to {'PyTorch' if framework == 'torch' else 'TensorFlow'}")
        assert result["peak_mem_mib"] is None  # no device memory to report on the CPU
        for name in ("agreement", "amp"):
            c = check(result, name)
            assert c["status"] == "skipped" and "CPU" in c["detail"]

    learned = check(result, "learned")
    assert learned["status"] == "passed"
    m = learned["measured"]
    assert m["last_loss"] < m["first_loss"] * (1 - m["min_drop"])
    assert m["accuracy"] >= m["min_accuracy"] >= 2 * m["chance"]
    assert result["first_loss"] == m["first_loss"] and result["accuracy"] == m["accuracy"]

    placement = check(result, "placement")
    assert placement["status"] == "passed"
    assert placement["measured"]["misplaced"] == 0 and placement["measured"]["batches"] == result["steps"]
    if framework == "tf":
        assert placement["measured"]["placement_log_compute_ops"] > 0
        assert placement["measured"]["placement_log_misplaced"] == 0
        assert (placement["measured"]["gpu_device_name"] != "") == on_gpu  # tf.test.gpu_device_name()

    if test == "transfer":
        frozen = check(result, "frozen")
        assert frozen["status"] == "passed"
        assert frozen["measured"]["backbone_changed"] == 0 and frozen["measured"]["backbone_tensors"] > 100
        assert frozen["measured"]["head_changed"] == frozen["measured"]["head_tensors"] == 2
        assert result["notes"] == ["no pretrained weights available offline: using a backbone pretrained here on synthetic data"]
        assert "pretrained here on synthetic data (nothing at " in result["weights"]
        assert str(empty_caches) in result["weights"]
    else:
        assert [c["name"] for c in result["checks"]] == ["learned", "placement", "agreement", "amp"]
