"""pip's "(from versions: ...)" list is the truth for this interpreter and platform: a published release missing
from it has no wheel here, even where the matrix's Python range (which does not say per platform) includes the
Python (checks/pip_messages.py)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

# https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/9321: Python 3.11 on Windows, torch 1.13.1 wanted
A1111 = """Python 3.11.2 (tags/v3.11.2:878ead1, Feb  7 2023, 16:38:35) [MSC v.1934 64 bit (AMD64)]
Installing torch and torchvision
ERROR: Could not find a version that satisfies the requirement torch==1.13.1+cu117 (from versions: 2.0.0, 2.0.0+cu117)
ERROR: No matching distribution found for torch==1.13.1+cu117
"""
# https://github.com/keras-team/keras/issues/21618: Python 3.11 on an Intel Mac, where torch wheels end at 2.2
KERAS = """ERROR: Could not find a version that satisfies the requirement torch==2.6.0 (from versions: 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2)
ERROR: No matching distribution found for torch==2.6.0
I use python 3.11 on my Mac.
"""


def _no_wheel(text: str) -> list:
    report = run_checks(read_evidence(text, "paste"), load_matrix(), "paste")
    return [f for f in report.findings if f.id == "python-version-no-wheel"]


def test_a_release_pip_does_not_offer_has_no_wheel_here_whatever_the_python_range():
    for text in (A1111, KERAS):
        found = _no_wheel(text)
        assert len(found) == 1 and found[0].severity.label == "error", text


def test_a_release_pip_offers_is_no_finding():
    offered = KERAS.replace("2.2.2)", "2.2.2, 2.6.0)")
    assert _no_wheel(offered) == []
