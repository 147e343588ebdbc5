"""Nightly and pre-release builds are named as such, by PEP 440, and releases (with local tags) are not."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.checks.prerelease import prerelease_kind
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Frameworks, TensorflowBuild, TorchBuild


@pytest.mark.parametrize(("version", "kind"), [
    ("2.9.0.dev20250801+cu128", "nightly"),
    ("2.9.0.dev20250801", "nightly"),
    ("2.8.0rc1", "pre-release"),
    ("2.16.0rc0", "pre-release"),
    ("2.1.0a0+git1234abc", "pre-release"),
    ("2.7.1+cu128", None),
    ("2.7.1", None),
    ("2.7.1.post1", None),
    ("not a version", None),
    ("2.x-custom", None),
])
def test_pep440_decides(version, kind):
    assert prerelease_kind(version) == kind


def findings(torch: str | None = None, tf: str | None = None):
    facts = Facts(frameworks=Frameworks(torch=TorchBuild(version=torch) if torch else None,
                                        tensorflow=TensorflowBuild(version=tf) if tf else None))
    return [f for f in run_checks(facts, load_matrix()).findings if f.id == "framework-prerelease-build"]


def test_a_torch_nightly_says_which_release_it_is_judged_as():
    (finding,) = findings(torch="2.9.0.dev20250801+cu128")
    assert finding.title == ("torch 2.9.0.dev20250801+cu128 is a nightly build: it is judged as the torch 2.9 release "
                             "the matrix describes")
    assert finding.section.name == "TORCH"


def test_a_tensorflow_release_candidate_is_named_and_a_release_is_not():
    (finding,) = findings(torch="2.7.1+cu128", tf="2.16.0rc0")
    assert finding.section.name == "TENSORFLOW" and "pre-release" in finding.title
    assert findings(torch="2.7.1+cu128", tf="2.16.1") == []
