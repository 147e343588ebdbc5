"""Rosetta from a paste: an x86_64 Python, or zsh's "illegal hardware instruction", on an Apple-silicon Mac
(evidence one_liners / sentences, checks/derive.py)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

# https://stackoverflow.com/questions/65383338 (its title, as posted)
SO_TITLE = "zsh: illegal hardware instruction python when installing Tensorflow on macbook pro M1\n"
# https://github.com/apple/tensorflow_macos/issues/143: a native shell, an x86_64 interpreter
FILE_OUTPUT = """(base) user@useros ~ % uname -m
arm64
(venv) (base) user@useros ~ % file $(which python)
/Users/user/venv/bin/python: Mach-O 64-bit executable x86_64
"""


def _report(text: str):
    return run_checks(read_evidence(text, "paste"), load_matrix(), "paste")


def _rosetta(text: str) -> bool:
    return "apple-python-under-rosetta" in {f.id for f in _report(text).findings}


def test_illegal_instruction_on_an_m1_is_rosetta():
    report = _report(SO_TITLE)
    assert _rosetta(SO_TITLE)
    assert report.facts.provenance["host.apple.rosetta"].startswith("derived:")


def test_an_x86_64_interpreter_under_a_native_arm64_shell_is_rosetta():
    assert _rosetta(FILE_OUTPUT)


def test_without_apple_silicon_neither_line_is_rosetta():
    assert not _rosetta("zsh: illegal hardware instruction  python\n")
    assert not _rosetta(FILE_OUTPUT.replace("arm64", "x86_64"))


def test_a_native_arm64_interpreter_is_not_rosetta():
    assert not _rosetta(FILE_OUTPUT.replace("executable x86_64", "executable arm64"))
