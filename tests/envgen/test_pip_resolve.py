"""A generated CPU requirements file resolves with the real pip against the package index (network: slow)."""

from __future__ import annotations

import socket
import subprocess
import sys
from urllib.parse import urlparse

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main

from . import parsing

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


def _generate(tmp_path, *args: str):
    result = CliRunner().invoke(
        main, ["env", *args, "--os", "linux", "--cpu", "--python", PYTHON, "--format", "pip", "-o", str(tmp_path)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output + result.stderr
    return tmp_path / "requirements.txt"


def _pip_dry_run(requirements) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--ignore-installed", "-r", str(requirements)],
        capture_output=True, text=True, timeout=600,
    )


def _reachable(url: str) -> bool:
    host = urlparse(url).hostname
    try:
        socket.create_connection((host, 443), timeout=5).close()
    except OSError:
        return False
    return True


@pytest.mark.slow
def test_cpu_tensorflow_requirements_resolve_with_real_pip(tmp_path):
    requirements = _generate(tmp_path, "--framework", "tf")
    options, reqs = parsing.requirements_file(requirements.read_text())
    assert options == []  # plain tensorflow comes from the default package index
    pins = parsing.pins(reqs)
    assert list(pins) == ["tensorflow"]
    proc = _pip_dry_run(requirements)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Would install" in proc.stdout
    assert f"tensorflow-{pins['tensorflow']}" in proc.stdout


@pytest.mark.slow
def test_cpu_torch_requirements_resolve_with_real_pip(tmp_path):
    # 2.14.1 is pinned so that machines whose pip caps torch (a local constraint file) resolve it too
    requirements = _generate(tmp_path, "--framework", "torch", "--framework-version", "2.14.1")
    options, reqs = parsing.requirements_file(requirements.read_text())
    assert options == ["--index-url https://download.pytorch.org/whl/cpu"]
    assert parsing.pins(reqs)["torch"] == "2.14.1"
    if not _reachable(options[0].split()[1]):
        pytest.skip("PyTorch's wheel index is not reachable from here")
    proc = _pip_dry_run(requirements)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Would install" in proc.stdout and "torch-2.14.1" in proc.stdout
