"""cuda-toolkit-too-old-for-gpu finding by finding (issue 11: mutation score of checks/toolkit_targets.py).

test_signature_classes.py says which nvcc and ptxas lines name the first CUDA that compiles for the GPU; this file pins
how _cc reads nvcc's compute_XY digits, which of several lines counts (the newest architecture), the bounds of a
[[targets]] row (both inclusive), and the whole finding with and without a toolkit, a matrix, or a known release.

Equivalent mutants: `_cc(s.subject or "XXXX")` for `or ""`: neither is all digits, so a line without a subject names
no architecture either way; `first = ""` for `first = None` (no matrix): `first` is only tested for truth and used as
`first or 'X.Y'`, where "" and None are both false."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import toolkit_targets as t
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.rows import CudaTargets
from gpudoctor.model import CudaToolkit, Facts, Finding, Fix, Section, Severity, Symptom

MATRIX = load_matrix()
NOTES = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"


def arch(digits: str | None, text: str | None = None) -> Symptom:
    return Symptom("nvcc-unsupported-arch", text or f"nvcc fatal   : Unsupported gpu architecture 'compute_{digits}'", None, digits)


def run(facts: Facts, matrix=MATRIX) -> list[Finding]:
    return list(t.cuda_toolkit_too_old_for_gpu(facts, matrix))


@pytest.mark.parametrize(("digits", "cc"), [("86", (8, 6)), ("75", (7, 5)), ("120", (12, 0)), ("121", (12, 1)), ("20", (2, 0))])
def test_cc_reads_nvccs_major_and_minor_without_a_dot(digits, cc):
    assert t._cc(digits) == cc


@pytest.mark.parametrize("digits", ["", "8", "1234", "8a", "ab", "abc", "8.6", " 86", "-86"])
def test_cc_is_none_for_anything_but_two_or_three_digits(digits):
    assert t._cc(digits) is None


def test_the_whole_finding_names_the_first_toolkit_and_the_toolkits_here():
    line = arch("89")
    facts = Facts(symptoms=(line,), cuda_toolkits=(CudaToolkit(version="11.7", path="/usr/local/cuda-11.7"), CudaToolkit(path="/opt/cuda"),
                                                   CudaToolkit(version="10.2")))
    assert run(facts) == [Finding(
        "cuda-toolkit-too-old-for-gpu", Severity.ERROR, Section.CUDA,
        "The CUDA toolkit that compiles the code is too old for compute capability 8.9: nvcc cannot target it",
        (f"log: {line.text}", "CUDA toolkit here: 11.7, 10.2",
         "nvcc compiles only for the architectures its release knows; compute capability 8.9 needs CUDA 11.8 or newer"),
        Fix("Install CUDA 11.8 or newer and build with its nvcc (put its bin first on PATH, set CUDA_HOME)",
            ("nvcc --version   # the toolkit that compiles", "export CUDA_HOME=/usr/local/cuda-11.8 PATH=/usr/local/cuda-11.8/bin:$PATH"),
            NOTES))]


NEWER_FIX = Fix("Install a newer CUDA toolkit and build with its nvcc",
                ("nvcc --version   # the toolkit that compiles", "export CUDA_HOME=/usr/local/cuda-X.Y PATH=/usr/local/cuda-X.Y/bin:$PATH"),
                NOTES)


@pytest.mark.parametrize("matrix", [None, MATRIX])
def test_an_architecture_no_known_toolkit_compiles_for_asks_for_a_newer_one(matrix):
    # without a matrix nothing is known; with it, compute_130 is past every [[targets]] row (12.1 is the newest)
    line = arch("130" if matrix else "89")
    label = "13.0" if matrix else "8.9"
    assert run(Facts(symptoms=(line,), cuda_toolkits=(CudaToolkit(version=None),)), matrix) == [Finding(
        "cuda-toolkit-too-old-for-gpu", Severity.ERROR, Section.CUDA,
        f"The CUDA toolkit that compiles the code is too old for compute capability {label}: nvcc cannot target it",
        (f"log: {line.text}",
         "nvcc compiles only for the architectures its release knows; "
         f"compute capability {label} is newer than every toolkit the matrix knows"),
        NEWER_FIX)]


def test_the_newest_architecture_of_several_lines_is_judged():
    older, newer = arch("75", "ptxas fatal : Value 'sm_75' is not defined for option 'gpu-name'"), arch("89")
    for symptoms in ((older, newer), (newer, older), (arch(None, "Unsupported gpu architecture"), older, newer, arch("sm_9x"))):
        (f,) = run(Facts(symptoms=symptoms))
        assert f.title.endswith("compute capability 8.9: nvcc cannot target it")
        assert f.evidence[0] == f"log: {newer.text}"
        assert f.fix.summary.startswith("Install CUDA 11.8 or newer")
    (f,) = run(Facts(symptoms=(older, arch("72"))))
    assert f.evidence == (f"log: {older.text}",
                          "nvcc compiles only for the architectures its release knows; compute capability 7.5 needs CUDA 10.0 or newer")


def test_nothing_without_a_readable_architecture():
    assert run(Facts()) == []
    assert run(Facts(symptoms=(arch(None, "Unsupported gpu architecture"), arch("8"), arch("sm_89")))) == []
    assert run(Facts(symptoms=(Symptom("no-kernel-image", "no kernel image is available", None, "89"),))) == []


def test_a_targets_row_holds_both_its_bounds():
    # the first release whose [min_cc, max_cc] holds the architecture, in the table's order (oldest first)
    rows = (CudaTargets("7.0", "3.0", "5.3"), CudaTargets("9.0", "5.0", "7.0"), CudaTargets("11.0", "7.0", "8.0"))
    matrix = dataclasses.replace(MATRIX, cuda_targets=rows)
    for digits, first in (("30", "7.0"), ("53", "7.0"), ("50", "7.0"), ("60", "9.0"), ("70", "9.0"), ("75", "11.0"), ("80", "11.0")):
        (f,) = run(Facts(symptoms=(arch(digits),)), matrix)
        assert f.fix.summary.startswith(f"Install CUDA {first} or newer"), digits
    assert run(Facts(symptoms=(arch("86"),)), matrix)[0].fix == NEWER_FIX
    # an architecture a release no longer compiles for (under its min_cc) is not that release's
    matrix = dataclasses.replace(MATRIX, cuda_targets=(CudaTargets("13.0", "7.5", "12.1"),))
    assert run(Facts(symptoms=(arch("75"),)), matrix)[0].fix.summary.startswith("Install CUDA 13.0 or newer")
    assert run(Facts(symptoms=(arch("70"),)), matrix)[0].fix == NEWER_FIX
