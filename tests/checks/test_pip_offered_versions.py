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


def test_where_the_python_fits_the_release_the_platform_is_named_not_the_python():
    # torch 2.6 has Python 3.11 wheels, but none for an Intel Mac: the Python is not the cause
    (mac,) = _no_wheel(KERAS)
    assert mac.title == "torch 2.6.0 exists, but has no wheel for this platform (Python 3.11 fits it): pip offers only other versions"
    assert "Python 3.11" not in mac.fix.summary and mac.fix.commands == ()
    # TensorFlow after the last native-Windows GPU release: the fix says where its GPU builds went
    # (https://github.com/nicknochnack/TFODCourse/issues/118, development corpus)
    tfod = ("I have python 3.10.6 installed.\n"
            "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.11 (from versions: 2.9.3, "
            "2.10.0, 2.10.1)\nERROR: No matching distribution found for tensorflow-gpu==2.11\n")
    (tf,) = _no_wheel(tfod)
    assert "(Python 3.10.6 fits it)" in tf.title
    assert tf.fix.summary.endswith("on native Windows TensorFlow's GPU builds end at 2.10 (later ones: WSL2)")


def test_where_the_python_is_unknown_both_are_named():
    (found,) = _no_wheel(KERAS.replace("I use python 3.11 on my Mac.\n", ""))
    assert found.title == "torch 2.6.0 exists, but not for this Python or platform: pip offers only other versions"


def test_the_platform_finding_in_full():
    from gpudoctor.model import Section, Severity

    (mac,) = _no_wheel(KERAS)
    assert (mac.severity, mac.section) == (Severity.ERROR, Section.TORCH)
    assert mac.evidence == (
        "log: ERROR: Could not find a version that satisfies the requirement torch==2.6.0 (from versions: 2.0.0, 2.0.1, "
        "2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2)",
        "torch 2.6 has wheels for Python 3.9–3.13",
        "pip's 'from versions' list holds only releases with a wheel for this interpreter and platform")
    assert (mac.fix.summary, mac.fix.url) == ("Install one of the versions pip offers, or use a platform torch 2.6.0 has wheels for",
                                              "https://pytorch.org/get-started/previous-versions/")
    # TensorFlow up to its last native-Windows GPU release: no word on Windows
    tf210 = ("I have python 3.10.6 installed.\n"
             "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.10.0 (from versions: 2.9.3)\n")
    (tf,) = _no_wheel(tf210)
    assert (tf.section, tf.fix.url) == (Section.TENSORFLOW, "https://www.tensorflow.org/install/pip")
    assert tf.fix.summary == "Install one of the versions pip offers, or use a platform tensorflow-gpu 2.10.0 has wheels for"
    assert tf.evidence[1] == "tensorflow 2.10 has wheels for Python 3.7–3.10"


def test_the_windows_word_is_tensorflows_only():
    # a torch release numbered past TensorFlow's last native-Windows GPU release (2.10) gets no such word
    text = KERAS.replace("torch==2.6.0", "torch==2.11.0")
    (found,) = _no_wheel(text)
    assert found.fix.summary == "Install one of the versions pip offers, or use a platform torch 2.11.0 has wheels for"
