"""Shared helpers for the verify tests: run the real command (CliRunner in-process, or a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from gpudoctor.cli import main

ROOT = Path(__file__).resolve().parents[2]

# What each framework's smoke tests import (gpudoctor.verify._REQUIRES, cnn and lstm), for needs() and framework_params().
MODULES = {"torch": ("torch",), "tf": ("tensorflow", "keras"), "jax": ("jax", "jaxlib")}


def framework_params(*frameworks: str) -> list:
    """pytest.param per framework, each skipped with its reason where that framework is not installed."""
    import pytest

    from tests.conftest import needs

    return [pytest.param(f, marks=needs(*MODULES[f])) for f in frameworks]


def cli(*args: str, env: dict[str, str] | None = None):
    """Invoke `gpudoctor verify ARGS` in-process; the children it starts inherit ``env``."""
    return CliRunner().invoke(main, ["verify", *args], env=env, catch_exceptions=False)


def cli_json(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    result = cli(*args, "--json", env=env)
    return result.exit_code, json.loads(result.stdout)


def only(report: dict[str, Any]) -> dict[str, Any]:
    assert len(report["results"]) == 1, report["results"]
    return report["results"][0]


def check(result: dict[str, Any], name: str) -> dict[str, Any]:
    found = [c for c in result["checks"] if c["name"] == name]
    assert len(found) == 1, (name, result["checks"])
    return found[0]


def subprocess_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300,
                   replace_env: bool = False) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """`python -m gpudoctor verify ARGS` in a real subprocess; ``env`` adds to os.environ, or replaces it."""
    full_env = dict(env or {}) if replace_env else dict(os.environ, **(env or {}))
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "gpudoctor", "verify", *args], capture_output=True, text=True,
                          env=full_env, timeout=timeout, cwd=str(ROOT))  # fmt: skip

