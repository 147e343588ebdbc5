"""Version tuples and the driver rule (matrix/versions.py, matrix/driver.py), edge by edge (issue 11): a driver
branch against its floor, minor-version compatibility from CUDA 11 on, an exact pre-11 toolkit needing its own
driver, WSL2 reading the Windows table, and unknown staying unknown."""

from __future__ import annotations

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.solver.driver import DriverVerdict, driver_at_least, driver_cuda_of, driver_os, driver_verdict, is_branch
from gpudoctor.matrix.tables.versions import cuda_tag, local_tag, python_span, series, try_vtuple, tuple_ge, version_ge, vtuple

MATRIX = load_matrix()


@pytest.mark.parametrize(("text", "parts"), [("570.124.04", (570, 124, 4)), ("2.7.1+cu128", (2, 7, 1)), (" 12.8 ", (12, 8)), ("550", (550,)),
                                             ("1.13.0rc1", (1, 13, 0))])
def test_vtuple(text, parts):
    assert vtuple(text) == parts
    assert try_vtuple(text) == parts


@pytest.mark.parametrize("text", ["", "v12.8", "cu128", ".5"])
def test_not_a_version(text):
    with pytest.raises(ValueError, match="not a version"):
        vtuple(text)
    assert try_vtuple(text) is None
    assert try_vtuple(None) is None


def test_comparisons_pad_with_zeros():
    assert version_ge("580", "580.0.0") and version_ge("580.0.0", "580")
    assert version_ge("580.65.06", "580.65") and not version_ge("580.65", "580.65.06")
    assert not version_ge("525.60.12", "525.60.13") and version_ge("525.60.13", "525.60.13")
    assert tuple_ge((12,), (11, 9)) and not tuple_ge((11, 9), (12,))


def test_small_helpers():
    assert series("2.7.1+cu128") == "2.7" and series("12.8.1", 1) == "12" and series("12.8.1", 3) == "12.8.1"
    assert local_tag("2.7.1+cu128") == "cu128" and local_tag("2.7.1+ cpu ") == "cpu" and local_tag("2.6.0") is None
    assert cuda_tag("12.8") == "cu128" and cuda_tag("11.8.0") == "cu118" and cuda_tag("9.0") == "cu90"


@pytest.mark.parametrize(("pythons", "span"), [
    (("2.7", "3.3", "3.4", "3.5"), "2.7, 3.3–3.5"), (("3.10", "3.9", "3.11"), "3.9–3.11"), (("3.8", "3.10"), "3.8, 3.10"),
    (("3.12",), "3.12"), (("3.9", "3.9"), "3.9"), ((), "none"),
])
def test_python_span(pythons, span):
    assert python_span(pythons) == span


def test_driver_branches():
    assert is_branch("550") and not is_branch("550.54") and not is_branch(None) and not is_branch("r550")
    assert driver_at_least("550", "550.54.14")  # every release of R550 is at least its first
    assert not driver_at_least("545", "550.54.14")
    assert driver_at_least("551", "550.54.14")
    assert driver_at_least("550.54.14", "550.54.14") and not driver_at_least("550.54.13", "550.54.14")
    assert driver_os("windows") == "windows" and driver_os("linux", 2) == "windows" and driver_os("linux") == "linux"
    assert driver_os(None, 0) == "linux"


def test_the_newest_cuda_of_a_driver_or_branch():
    assert driver_cuda_of(MATRIX, "550.54.15") == "12.4"
    assert driver_cuda_of(MATRIX, "550") == "12.4"
    assert driver_cuda_of(MATRIX, "550", "windows") == "12.3"  # the Windows table's own floors
    assert driver_cuda_of(MATRIX, "300") is None


@pytest.mark.parametrize(("cuda", "driver", "driver_cuda", "os", "verdict"), [
    ("12.8", "570.86.15", None, "linux", DriverVerdict(True, "native", "12.8", "525.60.13", "570.26")),
    ("12.8", "550.54.15", None, "linux", DriverVerdict(True, "minor-version compatibility", "12.4", "525.60.13", "570.26")),
    ("12.8", "525", None, "linux", DriverVerdict(True, "minor-version compatibility", "12.0", "525.60.13", "570.26")),
    ("12.8", "520.61.05", None, "linux", DriverVerdict(False, None, "11.8", "525.60.13", "570.26")),
    ("12.8", None, "12.4", "linux", DriverVerdict(True, "minor-version compatibility", "12.4", "525.60.13", "570.26")),
    ("12.8", None, "12.8", "linux", DriverVerdict(True, "native", "12.8", "525.60.13", "570.26")),
    ("12.8", None, "11.8", "linux", DriverVerdict(False, None, "11.8", "525.60.13", "570.26")),
    ("12.8", None, None, "linux", DriverVerdict(None, None, None, "525.60.13", "570.26")),
    ("12.8", "550.54.15", None, "windows", DriverVerdict(True, "minor-version compatibility", "12.3", "528.33", "570.65")),
    ("12.8", "527.41", None, "windows", DriverVerdict(False, None, "12.0", "528.33", "570.65")),
    ("11.8", "450.80.02", None, "linux", DriverVerdict(True, "minor-version compatibility", "11.0", "450.80.02", "520.61.05")),
    ("11.8", "440.33", None, "linux", DriverVerdict(False, None, "10.2", "450.80.02", "520.61.05")),
    ("10.2", "440.33", None, "linux", DriverVerdict(True, "native", "10.2", "440.33", "440.33")),
    ("10.2", "418.87", None, "linux", DriverVerdict(False, None, "10.1", "440.33", "440.33")),
    ("10.2", None, "10.1", "linux", DriverVerdict(False, None, "10.1", "440.33", "440.33")),  # no compatibility before 11
    ("9.2.148", "396.26", "9.2", "linux", DriverVerdict(False, None, "9.2", "396.37", "396.37")),  # the exact toolkit's own driver
    ("9.2.148", "396.37", "9.2", "linux", DriverVerdict(True, "native", "9.2", "396.37", "396.37")),
    ("99.0", "570.86.15", None, "linux", DriverVerdict(None, None, "12.8", None, None)),  # a CUDA major the matrix does not know
])
def test_driver_verdict(cuda, driver, driver_cuda, os, verdict):
    assert driver_verdict(MATRIX, cuda, driver, driver_cuda, os) == verdict
    assert verdict.native is (verdict.mode == "native")
