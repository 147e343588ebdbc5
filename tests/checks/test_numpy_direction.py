"""NumPy's C-API refusal says which side is older: "compiled against API version 0x10 but this version of numpy is
0xf" (old NumPy prints the hex without 0x) is an older NumPy, and the "multiarray failed to import" line
after it is its consequence, not a NumPy 2 break (checks/versions.py, signatures numpy-older-than-module)."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

AFTER = "ImportError: numpy.core.multiarray failed to import\n"


@pytest.mark.parametrize("refusal", [
    "RuntimeError: module compiled against API version 0x10 but this version of numpy is 0xf\n",  # python-control#926
    "RuntimeError: module compiled against API version a but this version of numpy is 9\n",  # tflearn/tflearn#1
])
def test_an_older_numpy_is_named_and_not_the_numpy_2_break(refusal):
    ids = {f.id for f in run_checks(read_evidence(refusal + AFTER, "paste"), load_matrix(), "paste").findings}
    assert "numpy-older-than-module" in ids and "numpy2-abi-mismatch" not in ids


def test_the_multiarray_line_alone_is_still_the_numpy_abi_break():
    ids = {f.id for f in run_checks(read_evidence(AFTER, "paste"), load_matrix(), "paste").findings}
    assert "numpy2-abi-mismatch" in ids
