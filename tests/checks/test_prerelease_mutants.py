"""framework-prerelease-build, the whole finding (issue 11: mutation score of checks/prerelease.py)."""

from __future__ import annotations

from gpudoctor.checks.prerelease import framework_prerelease
from gpudoctor.model import Facts, Frameworks, Section, Severity, TorchBuild


def test_a_release_candidate_from_the_package_list_pinned():
    (f,) = framework_prerelease(Facts(python_packages={"tensorflow": "2.16.0rc0", "torch": "2.7.1"}), None)
    assert (f.id, f.severity, f.section) == ("framework-prerelease-build", Severity.INFO, Section.TENSORFLOW)
    assert f.title == "tensorflow 2.16.0rc0 is a pre-release build: it is judged as the tensorflow 2.16 release the matrix describes"
    assert f.evidence == ("tensorflow 2.16.0rc0: PEP 440 pre-release; its CUDA variants, arch list and driver needs may differ from 2.16's",)
    assert f.fix is None


def test_the_running_build_wins_over_the_package_list_and_both_frameworks_are_judged():
    facts = Facts(frameworks=Frameworks(torch=TorchBuild(version="2.9.0.dev20250801+cu128")),
                  python_packages={"torch": "2.8.0", "tensorflow": "2.21.0rc1"})
    assert [(f.section, f.title.split(" is a ")[1].split(" build")[0]) for f in framework_prerelease(facts, None)] == [
        (Section.TORCH, "nightly"), (Section.TENSORFLOW, "pre-release")]


def test_a_version_without_a_minor_is_its_own_series():
    (f,) = framework_prerelease(Facts(python_packages={"torch": "3rc1"}), None)
    assert f.title == "torch 3rc1 is a pre-release build: it is judged as the torch 3rc1 release the matrix describes"


def test_nothing_known_nothing_said():
    assert list(framework_prerelease(Facts(), None)) == []
    assert list(framework_prerelease(Facts(python_packages={"torch": None}), None)) == []


def test_an_absurdly_long_version_is_no_version_not_a_crash():
    """Untrusted text: a 5000-digit component exceeds int()'s string limit (ValueError, not InvalidVersion)."""
    from gpudoctor.checks.prerelease import prerelease_kind

    assert prerelease_kind("2." + "9" * 5000 + "rc1") is None
