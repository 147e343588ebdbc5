"""probes/platforms.py against real outputs (tests/data/platforms/README.md) and a FakeRunner for sysctl/dpkg."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.model import Apple, Jetson, Notebook
from gpudoctor.probes.platforms import parse_nv_tegra_release, probe_apple, probe_jetson, probe_notebook
from gpudoctor.runner import CommandResult
from tests.fakes import FakeRunner

DATA = Path(__file__).resolve().parent.parent / "data" / "platforms"


@pytest.mark.parametrize(("name", "l4t", "board"), [
    ("nv_tegra_release-r36.4.3.txt", "36.4.3", "generic"),
    ("nv_tegra_release-r32.6.1.txt", "32.6.1", "t210ref"),
    ("nv_tegra_release-r35.3.1.txt", "35.3.1", "t186ref"),
])
def test_nv_tegra_release_lines(name, l4t, board):
    assert parse_nv_tegra_release((DATA / name).read_text()) == (l4t, board)


def test_unreadable_release_text_is_unknown():
    assert parse_nv_tegra_release("TARGET_USERSPACE_LIB_DIR=nvidia\n") == (None, None)


def _root(tmp_path: Path, release: str | None = None, model: str | None = None) -> Path:
    if release is not None:
        (tmp_path / "etc").mkdir()
        (tmp_path / "etc/nv_tegra_release").write_text(release)
    if model is not None:
        (tmp_path / "proc/device-tree").mkdir(parents=True)
        (tmp_path / "proc/device-tree/model").write_text(model + "\x00")
    return tmp_path


def test_jetson_probe_reads_release_package_and_model(tmp_path):
    root = _root(tmp_path, (DATA / "nv_tegra_release-r36.4.3.txt").read_text(), "NVIDIA Jetson Orin NX Engineering Reference Developer Kit Super")
    runner = FakeRunner({("dpkg-query", "-W", "-f=${Version}", "nvidia-l4t-core"): "36.4.3-20250107174145"})
    assert probe_jetson(runner, root) == Jetson(l4t="36.4.3", l4t_core="36.4.3-20250107174145", board="generic",
                                                model="NVIDIA Jetson Orin NX Engineering Reference Developer Kit Super")


def test_jetson_probe_from_the_package_alone_and_a_pc(tmp_path):
    runner = FakeRunner({"dpkg-query": "35.3.1-20230319081403"})
    assert probe_jetson(runner, tmp_path).l4t == "35.3.1"
    not_installed = FakeRunner({"dpkg-query": CommandResult(("dpkg-query",), 1, "", "dpkg-query: no packages found matching nvidia-l4t-core")})
    assert probe_jetson(not_installed, tmp_path) is None


def test_apple_probe_native_rosetta_and_intel():
    native = FakeRunner({("sysctl", "-n", "sysctl.proc_translated"): "0\n", ("sysctl", "-n", "machdep.cpu.brand_string"): "Apple M2 Pro\n"})
    assert probe_apple(native, lambda: ("14.5", ("", "", ""), "arm64"), lambda: "arm64") == Apple("14.5", "arm64", False, "Apple M2 Pro")
    rosetta = FakeRunner({("sysctl", "-n", "sysctl.proc_translated"): "1\n"})
    assert probe_apple(rosetta, lambda: ("10.16", ("", "", ""), "x86_64"), lambda: "x86_64").rosetta is True
    intel = FakeRunner({("sysctl", "-n", "sysctl.proc_translated"): CommandResult(("sysctl",), 1, "", "sysctl: unknown oid 'sysctl.proc_translated'")})
    assert probe_apple(intel, lambda: ("13.6", ("", "", ""), "x86_64"), lambda: "x86_64").rosetta is False
    broken = FakeRunner({})
    assert probe_apple(broken, lambda: ("", ("", "", ""), ""), lambda: "arm64") == Apple(None, "arm64", None, None)


def test_notebook_probe(tmp_path):
    assert probe_notebook({"COLAB_RELEASE_TAG": "release-colab_20250101-060000_RC00", "PATH": "/usr/bin"}, tmp_path) == \
        Notebook("colab", {"COLAB_RELEASE_TAG": "release-colab_20250101-060000_RC00"})
    assert probe_notebook({"KAGGLE_KERNEL_RUN_TYPE": "Interactive"}, tmp_path).kind == "kaggle"
    (tmp_path / "kaggle/working").mkdir(parents=True)
    assert probe_notebook({}, tmp_path) == Notebook("kaggle", {})
    assert probe_notebook({}, tmp_path / "elsewhere") is None


def test_this_machine_collects_platform_facts_consistently():
    """On the machine running the tests: no Mac facts off darwin, no Jetson facts off aarch64 Linux."""
    import platform
    import sys

    from gpudoctor.probes import collect

    facts = collect()
    if sys.platform != "darwin":
        assert facts.host.apple is None
    if platform.machine() != "aarch64":
        assert facts.jetson is None
