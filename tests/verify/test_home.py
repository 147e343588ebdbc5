"""HOME unset, missing or a file: the weight caches are simply not there, and verify still runs (no traceback)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpudoctor.workloads import weights
from tests.verify.helpers import subprocess_cli


def test_keras_home_follows_keras_rule(tmp_path, monkeypatch):
    monkeypatch.delenv("KERAS_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert weights.keras_home() == tmp_path / ".keras"
    monkeypatch.setenv("HOME", str(tmp_path / "missing"))
    assert weights.keras_home() == Path("/tmp/.keras")  # not writable (not there): Keras falls back to /tmp
    afile = tmp_path / "afile"
    afile.write_text("")
    monkeypatch.setenv("HOME", str(afile))
    assert weights.keras_home() == afile / ".keras"  # Keras' own rule (os.access on a file is True) ...
    assert not weights.keras_cache_path().is_file()  # ... and nothing can be cached under a file
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "k"))
    assert weights.keras_cache_path() == tmp_path / "k" / "models" / weights.KERAS_WEIGHTS_FILE


@pytest.fixture(params=["unset", "missing", "a file"])
def broken_home(request, tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "KERAS_HOME", "TORCH_HOME", "XDG_CACHE_HOME")}
    if request.param == "missing":
        env["HOME"] = str(tmp_path / "nowhere")
    elif request.param == "a file":
        (tmp_path / "home").write_text("not a directory")
        env["HOME"] = str(tmp_path / "home")
    return env


@pytest.mark.slow
def test_verify_runs_whatever_home_is(broken_home):
    done = subprocess_cli("--test", "cnn", "--json", env=broken_home, replace_env=True)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 0, done.stdout[-3000:]
