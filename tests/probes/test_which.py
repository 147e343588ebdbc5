"""probes.cuda.which is shutil.which (POSIX rules) without its import: the same answer for every PATH shape."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from gpudoctor.probes.cuda import which

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="on Windows `which` is shutil.which itself")


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """bin1/nvcc executable, bin2/nvcc executable, noexec/nvcc not executable, dir/nvcc a directory."""
    for folder, executable in (("bin1", True), ("bin2", True), ("noexec", False)):
        (tmp_path / folder).mkdir()
        program = tmp_path / folder / "nvcc"
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755 if executable else 0o644)
    (tmp_path / "dir" / "nvcc").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "bin2")  # an empty PATH entry means the current directory
    return tmp_path


@pytest.mark.parametrize("entries", [
    ["bin1", "bin2"], ["bin2", "bin1"], ["noexec", "bin2"], ["dir", "noexec"], ["dir", "bin1"], ["missing", "bin1"],
    ["", "bin1"], ["noexec", ""], [], ["bin1", "bin1"],
])
def test_which_finds_what_shutil_finds(tree, entries):
    path = os.pathsep.join(str(tree / e) if e else "" for e in entries)
    assert which("nvcc", path) == shutil.which("nvcc", path=path)


def test_the_answers_themselves(tree):
    assert which("nvcc", os.pathsep.join([str(tree / "noexec"), str(tree / "bin2")])) == str(tree / "bin2" / "nvcc")
    assert which("nvcc", str(tree / "dir")) is None
    assert which("nvcc", "") is None
    assert which(str(tree / "bin1" / "nvcc"), "") == str(tree / "bin1" / "nvcc")  # a path is checked, not searched
    assert which(str(tree / "noexec" / "nvcc"), str(tree / "bin1")) is None
