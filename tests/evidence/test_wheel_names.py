"""Wheel file names say the platform pip runs on (gpudoctor/evidence/readers/wheel_names.py): the Python, the OS, the
architecture, and a framework's version as a weaker fact than a listed one; a wheel pip refuses says nothing here."""

from __future__ import annotations

import pytest

from gpudoctor.evidence import read_evidence


@pytest.mark.parametrize(("line", "host"), [
    # https://github.com/sun1638650145/Libraries-and-Extensions-for-TensorFlow-for-Apple-Silicon/issues/20
    ("pip install https://github.com/sun1638650145/Libraries-and-Extensions-for-TensorFlow-for-Apple-Silicon/releases/"
     "download/v2.15/tensorflow-2.15.0-cp311-cp311-macosx_14_0_arm64.whl", ("darwin", None, "3.11", "arm64")),
    ("  Downloading torch-2.1.0%2Bcu121-cp310-cp310-win_amd64.whl (2473.9 MB)", ("windows", "x86_64", "3.10", None)),
    ("  Downloading torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl (906.4 MB)", ("linux", "x86_64", "3.12", None)),
    ("Processing ./jaxlib-0.4.30-cp39-cp39-manylinux2014_aarch64.whl", ("linux", "aarch64", "3.9", None)),
])
def test_a_wheel_pip_takes_names_the_platform(line, host):
    h = read_evidence(line, "paste").host
    assert (h.os, h.arch, h.python, h.apple.python_arch if h.apple else None) == host


def test_a_framework_wheel_gives_its_version_as_a_stated_fact():
    facts = read_evidence("  Downloading torch-2.1.0%2Bcu121-cp310-cp310-win_amd64.whl (2473.9 MB)", "paste")
    assert facts.frameworks.torch.version == "2.1.0+cu121"
    assert facts.provenance["frameworks.torch.version"].startswith("wheel file name")


@pytest.mark.parametrize("line", [
    "ERROR: torch-1.0.0-cp37-cp37m-linux_x86_64.whl is not a supported wheel on this platform.",   # refused: not this one
    "  Downloading numpy-1.26.4-cp311-abi3-macosx_14_0_universal2.whl",                            # no arch, abi3: no Python
])
def test_no_platform_from_a_refused_or_untagged_wheel(line):
    h = read_evidence(line, "paste").host
    assert h is None or (h.arch, h.python) == (None, None)
