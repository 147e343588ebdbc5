"""Pretrained weights, offline: the real loaders (torchvision's weights enum through the torch hub cache,
keras.applications through the Keras cache, --weights PATH) exercised without a network, by saving weights of the
right architecture where those loaders look; and a --weights file of the wrong shape."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import needs
from tests.verify.helpers import ROOT, check, cli_json, only

FALLBACK = "no pretrained weights available offline: using a backbone pretrained here on synthetic data"


def _noop(*_a: object) -> None:
    pass


@pytest.fixture(scope="module")
def torch_weights(tmp_path_factory) -> Path:
    """A MobileNetV3-small state_dict whose features were pretrained on the synthetic task A (so features are useful)."""
    import torch
    from torchvision.models import mobilenet_v3_small

    from gpudoctor.verify.torch_cases import training as torch_training

    torch.manual_seed(0)
    model = mobilenet_v3_small()
    torch_training.pretrain(model.features, torch.device("cpu"), 1.0, _noop)
    path = tmp_path_factory.mktemp("weights") / "mobilenet_v3_small-047dcff4.pth"
    torch.save(model.state_dict(), path)
    return path


@needs("torch", "torchvision")
def test_torch_cache_path_is_where_torchvision_looks(tmp_path, monkeypatch):
    import torch.hub
    from torchvision.models import MobileNet_V3_Small_Weights

    from gpudoctor.workloads import weights

    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    expected = Path(torch.hub.get_dir()) / "checkpoints" / MobileNet_V3_Small_Weights.IMAGENET1K_V1.url.rsplit("/", 1)[1]
    assert weights.torch_cache_path() == expected == tmp_path / "hub" / "checkpoints" / weights.TORCH_WEIGHTS_URL_FILE


def test_keras_cache_path_respects_keras_home(tmp_path, monkeypatch):
    from gpudoctor.workloads import weights

    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    assert weights.keras_cache_path() == tmp_path / "models" / "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5"


@pytest.mark.slow
@needs("torch", "torchvision")
def test_torch_loads_pretrained_weights_from_the_hub_cache(torch_weights, tmp_path):
    cached = tmp_path / "hub" / "checkpoints" / "mobilenet_v3_small-047dcff4.pth"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(torch_weights.read_bytes())
    code, report = cli_json("--framework", "torch", "--test", "transfer", env={"TORCH_HOME": str(tmp_path)})
    result = only(report)
    assert code == 0, result
    assert result["weights"] == f"MobileNetV3-small MobileNet_V3_Small_Weights.IMAGENET1K_V1 loaded from the torch hub cache {cached}"
    assert FALLBACK not in result["notes"]
    assert check(result, "frozen")["status"] == "passed"
    assert check(result, "learned")["status"] == "passed"


@pytest.mark.slow
@needs("torch", "torchvision")
def test_torch_loads_weights_given_with_weights_option(torch_weights, tmp_path):
    code, report = cli_json("--framework", "torch", "--test", "transfer", "--weights", str(torch_weights),
                            env={"TORCH_HOME": str(tmp_path)})  # fmt: skip
    result = only(report)
    assert code == 0, result
    assert result["weights"] == f"MobileNetV3-small weights loaded from {torch_weights} (--weights)"
    assert result["notes"] == []


@needs("torch", "torchvision")
def test_torch_weights_of_the_wrong_shape_fail_with_the_reason(tmp_path):
    import torch
    from torchvision.models import mobilenet_v3_small

    path = tmp_path / "half_width.pth"
    torch.save(mobilenet_v3_small(width_mult=0.5).state_dict(), path)
    code, report = cli_json("--framework", "torch", "--test", "transfer", "--weights", str(path))
    assert code == 1
    reason = only(report)["reason"]
    assert reason.startswith(f"weights: {path} does not fit MobileNetV3-small: RuntimeError: Error(s) in loading state_dict")
    assert "size mismatch for features.0.0.weight" in reason


def _keras_weights(path: Path, alpha: float, pretrain: bool) -> None:
    argv = [sys.executable, str(ROOT / "tests" / "verify" / "make_keras_weights.py"), str(path), str(alpha)]
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="2")
    subprocess.run(argv + (["--pretrain"] if pretrain else []), check=True, env=env, capture_output=True, timeout=300)


@pytest.mark.slow
@needs("tensorflow", "keras")
def test_keras_loads_pretrained_weights_from_the_keras_cache(tmp_path):
    cached = tmp_path / "models" / "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5"
    _keras_weights(cached, 0.35, pretrain=True)
    code, report = cli_json("--framework", "tf", "--test", "transfer", env={"KERAS_HOME": str(tmp_path)})
    result = only(report)
    assert code == 0, result
    assert result["weights"] == f"MobileNetV2 (alpha 0.35) imagenet weights loaded from the Keras cache {cached}"
    assert FALLBACK not in result["notes"]
    assert check(result, "frozen")["status"] == "passed"


@pytest.mark.slow
@needs("tensorflow", "keras")
def test_keras_weights_of_the_wrong_shape_fail_with_the_reason(tmp_path):
    path = tmp_path / "alpha_050.h5"
    _keras_weights(path, 0.5, pretrain=False)
    code, report = cli_json("--framework", "tf", "--test", "transfer", "--weights", str(path))
    assert code == 1
    reason = only(report)["reason"]
    assert reason.startswith(f"weights: {path} does not fit MobileNetV2 (alpha 0.35): ")
