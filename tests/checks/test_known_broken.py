"""known-broken-combination (matrices/known_broken.toml): each rule on a snapshot of the broken machine and on its
healthy neighbour (no false alarm), plus the wheel overlay's effect on python-version-no-wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import known_broken, run_checks, versions
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.broken import in_range, parse_range
from gpudoctor.model import Severity
from gpudoctor.snapshot import facts_from_json
from tests.conftest import load_facts as load_shared_facts

MATRIX = load_matrix()
BROKEN_DIR = Path(__file__).resolve().parents[1] / "data" / "broken"  # snapshots of broken machines and their neighbours


def load_facts(name: str):
    path = BROKEN_DIR / f"{name}.json"
    if not path.exists():
        return load_shared_facts(name)  # the shared healthy snapshots (tests/data/facts/)
    return facts_from_json(path.read_text(), str(path))


def broken(name: str):
    return list(known_broken.known_broken_combination(load_facts(name), MATRIX))


@pytest.mark.parametrize(
    "snapshot, rule, says",
    [
        ("tf220-rtx5090-ptx-broken", "tf-ptx-jit-fails-on-cc12", ("CUDA_ERROR_INVALID_PTX", "compute capability 12.0")),
        ("torch25-cu118-k80-cudnn9", "torch-cudnn9-on-kepler", ("cuDNN 9.1", "Tesla K80", "3.7")),
        ("tf214-and-cuda-py311-no-tensorrt", "tf214-and-cuda-python311", ("tensorrt==8.5.3.1", "Python 3.11")),
    ],
)
def test_broken_combination_is_an_error_with_evidence_and_fix(snapshot, rule, says):
    findings = broken(snapshot)
    assert [f.id for f in findings] == ["known-broken-combination"]
    finding = findings[0]
    assert finding.severity is Severity.ERROR
    text = finding.title + " " + " ".join(finding.evidence)
    for word in says:
        assert word in text
    assert any(rule in line and "https://" in line for line in finding.evidence)  # the rule and its sources
    assert finding.fix is not None and finding.fix.summary and finding.fix.url.startswith("https://")


@pytest.mark.parametrize(
    "snapshot",
    ["tf220-rtx4090-healthy", "torch113-cu117-k80-healthy", "tf214-and-cuda-py310-healthy", "healthy-h100", "healthy-a100-r535"],
)
def test_healthy_neighbour_raises_no_alarm(snapshot):
    assert broken(snapshot) == []


def test_full_report_leads_with_the_broken_combination_not_a_ptx_warning():
    report = run_checks(load_facts("tf220-rtx5090-ptx-broken"), MATRIX)
    ids = {f.id: f.severity for f in report.findings}
    assert ids["known-broken-combination"] is Severity.ERROR
    healthy = run_checks(load_facts("tf220-rtx4090-healthy"), MATRIX)
    assert "known-broken-combination" not in {f.id for f in healthy.findings}


def test_cudnn9_rule_reads_the_running_builds_cudnn():
    """A torch build that reports cuDNN 9 (torch.backends.cudnn.version() 90100) on Kepler: the generic cuDNN rule."""
    import dataclasses

    facts = load_facts("torch113-cu117-k80-healthy")
    torch = dataclasses.replace(facts.frameworks.torch, version="2.4.1+cu121", cuda="12.1", cudnn="90100")
    facts = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, torch=torch))
    findings = list(known_broken.known_broken_combination(facts, MATRIX))
    assert [f.id for f in findings] == ["known-broken-combination"]
    assert "cuDNN 9.1.0" in findings[0].title and "torch-cudnn9-on-kepler" in " ".join(findings[0].evidence)


def test_unknown_facts_never_match():
    assert in_range(None, ">=9") is None
    assert in_range("2.19.1", ">=2.19,<2.22") and not in_range("2.22.0", ">=2.19,<2.22")
    assert in_range("2.14.1", "==2.14.*") and not in_range("2.15.0", "==2.14.*")
    assert in_range("12.0", ">=12.0,<13.0") and not in_range("8.9", ">=12.0,<13.0")
    with pytest.raises(ValueError):
        parse_range(">=2.1.*")


def test_python_version_no_wheel_uses_the_wheels():
    """torch 1.13 has cp311 wheels although its documented row says <= 3.10 (matrix-audit #2)."""
    facts = load_facts("torch113-py311-wheel")
    assert [f for f in versions.python_version_no_wheel(facts, MATRIX)] == []
    assert "3.11" in MATRIX.python_for("torch", "1.13.1")


def _k80_with_torch(version: str, cuda: str | None, cudnn: str | None = None):
    import dataclasses

    facts = load_facts("torch25-cu118-k80-cudnn9")
    torch = dataclasses.replace(facts.frameworks.torch, version=version, cuda=cuda, cudnn=cudnn)
    return dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, torch=torch),
                               python_packages={"torch": version})


@pytest.mark.parametrize("version, cuda", [
    ("2.5.1+cu999", "99.9"),  # a tag no wheel has
    ("2.5.1+gitabcdef", "11.8"),  # a local source build: its CUDA matches the cu118 wheel, its cuDNN is its own
    ("2.5.1", "11.8"),  # untagged on CUDA 11.8: not the default (cu124) wheel, e.g. a conda build
])
def test_a_build_the_wheels_table_does_not_describe_gets_no_guessed_cudnn(version, cuda):
    # The same K80 and release as the broken snapshot, but the build's cuDNN is not known: no error from a guess.
    assert list(known_broken.known_broken_combination(_k80_with_torch(version, cuda), MATRIX)) == []


@pytest.mark.parametrize("version, cuda, says", [
    ("2.5.1+cu118", "11.8", "per the matrix"),  # a wheel of the table: its pin
    ("2.5.1", "12.4", "per the matrix"),  # the untagged default Linux wheel (cu124): its row's pin
    ("2.5.1+gitabcdef", "11.8", "reported by the installed build"),  # an unknown build that reports its cuDNN
])
def test_a_known_cudnn_still_judges_kepler(version, cuda, says):
    cudnn = "90100" if "git" in version else None
    (finding,) = known_broken.known_broken_combination(_k80_with_torch(version, cuda, cudnn), MATRIX)
    assert finding.severity is Severity.ERROR and "cuDNN 9.1" in finding.title
    assert any(says in line for line in finding.evidence)
