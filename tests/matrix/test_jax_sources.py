"""Every row of matrices/jax.toml against the recorded sources in tests/data/sources/jax/ (PyPI's wheel list, the
wheels' METADATA, JAX's install guide), so a wrong number in the table fails here without network."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from gpudoctor.matrix import load_matrix

try:
    import tomllib  # novermin: tomli stands in below 3.11
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

SOURCES = Path(__file__).resolve().parent.parent / "data" / "sources" / "jax"
WHEELS = tomllib.loads((SOURCES / "pypi-linux-x86_64-wheels.toml").read_text())
TABLE = load_matrix().jax
VERSIONS = [(row, v) for row in TABLE.releases for v in row.versions]


def _metadata(prefix: str) -> dict[str, list[str]]:
    """{version: Requires-Dist/Requires-Python lines} of the recorded METADATA files of one distribution."""
    out = {}
    for path in SOURCES.glob(f"{prefix}-*.METADATA"):
        lines = path.read_text().splitlines()
        version = next(line.split(": ", 1)[1] for line in lines if line.startswith("Version: "))
        out[version] = lines
    return out


def _requires(lines: list[str], name: str) -> Requirement:
    found = [Requirement(line.split(": ", 1)[1]) for line in lines if line.startswith("Requires-Dist: ")]
    return next(r for r in found if r.name == name)


@pytest.mark.parametrize("row, version", VERSIONS, ids=[v for _, v in VERSIONS])
def test_the_pythons_are_the_wheels(row, version):
    tags = WHEELS["jaxlib"][version]
    assert [f"cp{p.replace('.', '')}" for p in row.python] == tags


@pytest.mark.parametrize("row, version", VERSIONS, ids=[v for _, v in VERSIONS])
def test_the_plugins_are_the_wheels_pypi_serves(row, version):
    served = {plugin for plugin in ("cuda12", "cuda13") if version in WHEELS[f"jax-{plugin}-plugin"]}
    assert served == set(row.plugins)
    for plugin in row.plugins:  # each plugin has wheels for the same Pythons as jaxlib
        assert WHEELS[f"jax-{plugin}-plugin"][version] == WHEELS["jaxlib"][version]


def test_a_cuda13_extra_without_a_wheel_is_not_listed():
    # jax 0.7.0's METADATA already names a cuda13 extra, but no jax-cuda13-plugin 0.7.0 exists: the wheel wins
    assert any('extra == "cuda13"' in line for line in _metadata("jax")["0.7.0"])
    assert "0.7.0" not in WHEELS["jax-cuda13-plugin"]
    assert TABLE.release("0.7.0").plugins == ("cuda12",)


PLUGIN_METADATA = {(plugin, v): lines for plugin in ("cuda12", "cuda13") for v, lines in _metadata(f"jax_{plugin}_plugin").items()}


@pytest.mark.parametrize("plugin, version", sorted(PLUGIN_METADATA), ids=lambda x: str(x))
def test_cudnn_and_cuda_floors_are_the_plugin_metadata(plugin, version):
    lines = PLUGIN_METADATA[(plugin, version)]
    row, major = TABLE.release(version), TABLE.major(plugin)
    cudnn = _requires(lines, f"nvidia-cudnn-cu{plugin[4:]}").specifier
    runtime = _requires(lines, "nvidia-cuda-runtime-cu12" if plugin == "cuda12" else "nvidia-cuda-runtime").specifier
    floor = next(s.version for s in cudnn if s.operator == ">=")
    if version == "0.4.30":  # its wheel says 9.0; the 0.4.31 changelog says 9.1 was already the minimum (jax.toml)
        assert floor == "9.0" and row.cudnn_min[plugin] == "9.1"
    else:
        assert floor.startswith(row.cudnn_min[plugin])
    assert next(s.version for s in runtime if s.operator == ">=").startswith(major.cuda_min + ".")
    assert str(_requires(lines, f"jax-{plugin}-pjrt").specifier) == f"=={version}"


@pytest.mark.parametrize("version, lines", sorted(_metadata("jax").items()))
def test_jaxlib_floors_are_the_jax_metadata(version, lines):
    row = TABLE.release(version)
    jaxlib = _requires(lines, "jaxlib")
    floor = next(s.version for s in jaxlib.specifier if s.operator in (">=", "=="))
    assert row.jaxlib_min[version] == floor
    assert f"Requires-Python: >={row.python[0]}" in lines


def test_driver_and_gpu_floors_are_the_install_guide():
    guide = " ".join((SOURCES / "installation-nvidia-gpu.md").read_text().split())
    for plugin in ("cuda12", "cuda13"):
        major = TABLE.major(plugin)
        assert f">= {major.driver_min} for CUDA {plugin[4:]} on Linux" in guide
        assert re.search(rf"On CUDA {plugin[4:]}, JAX supports NVIDIA GPUs that have SM version {re.escape(major.cc_min)}", guide)


def test_the_nvidia_gpu_platforms_are_the_install_guides_table():
    rows = [line for line in (SOURCES / "installation-supported-platforms.md").read_text().splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    nvidia = [cell.strip() for cell in rows[2].strip("|").split("|")]
    said = {column: re.sub(r"\{ref\}`(\w+) <[^>]*>`", r"\1", cell) for column, cell in zip(header, nvidia)}
    assert said["Linux, x86_64"] == said["Linux, aarch64"] == TABLE.nvidia_gpu_support("linux") == "yes"
    assert said["Windows, x86_64"] == TABLE.nvidia_gpu_support("windows") == "no"
    assert said["Windows WSL2, x86_64"] == TABLE.nvidia_gpu_support("wsl2") == "experimental"
    assert said["macOS, Intel x86_64, AMD GPU"] == TABLE.nvidia_gpu_support("macos") == "no"
