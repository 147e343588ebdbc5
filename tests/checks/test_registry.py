"""The check registry and run_checks (checks/__init__.py): report order, a crashing check becomes a CheckCrash that
marks its section, ignored ids, and duplicate findings merged into one."""

from __future__ import annotations

from gpudoctor.checks import arch, gpu, keras, merge_duplicates, registry, run_checks, tensorflow_libs
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Finding, Section, Severity, Status
from tests.conftest import load_facts

MATRIX = load_matrix()


def test_the_registry_runs_each_module_check_once_in_report_order():
    checks = registry()
    names = [c.name for c in checks]
    assert len(names) == len(set(names))
    assert names[: len(gpu.CHECKS)] == [fn.__name__ for fn in gpu.CHECKS]  # the GPU and driver come first
    assert [c.function for c in checks if c.function in arch.CHECKS] == list(arch.CHECKS)
    assert names.index(arch.CHECKS[0].__name__) < names.index(tensorflow_libs.CHECKS[0].__name__) < names.index(keras.CHECKS[0].__name__)


def test_each_check_names_the_section_a_crash_leaves_unjudged():
    section = {c.function: c.section for c in registry()}
    assert {section[fn] for fn in gpu.CHECKS} == {Section.GPU}
    assert {section[fn] for fn in arch.CHECKS} == {Section.TORCH}
    assert {section[fn] for fn in tensorflow_libs.CHECKS} == {Section.TENSORFLOW}
    assert {section[fn] for fn in keras.CHECKS} == {Section.TENSORFLOW}
    assert all(isinstance(s, Section) for s in section.values())


def _crashing_check(facts, matrix):
    raise ValueError("no such row")


def test_a_crashing_check_is_reported_with_its_error_and_its_section_is_crashed(monkeypatch):
    monkeypatch.setattr(tensorflow_libs, "CHECKS", (*tensorflow_libs.CHECKS, _crashing_check))
    report = run_checks(load_facts("healthy-h100"), MATRIX)
    assert len(report.crashes) == 1
    crash = report.crashes[0]
    assert crash.check == "_crashing_check"
    line = _crashing_check.__code__.co_firstlineno + 1
    assert crash.error == f"ValueError: no such row (test_registry.py:{line})"
    status = {s.section: s.status for s in report.sections}
    assert status[Section.TENSORFLOW] == Status.CRASHED
    assert status[Section.GPU] != Status.CRASHED and status[Section.TORCH] != Status.CRASHED
    healthy = run_checks(load_facts("healthy-h100"), MATRIX)
    assert report.findings == healthy.findings  # the other checks still ran


def test_the_report_carries_the_source_and_the_matrix_review_date():
    facts = load_facts("healthy-h100")
    report = run_checks(facts, MATRIX, "snapshot x.json")
    assert report.facts is facts and report.source == "snapshot x.json"
    assert report.matrix_reviewed == MATRIX.reviewed and MATRIX.reviewed
    assert run_checks(facts).matrix_reviewed is None
    assert run_checks(facts).source == "this machine"


def test_an_ignored_id_is_left_out_before_the_primary_finding_is_chosen():
    facts = load_facts("driver-library-mismatch")
    report = run_checks(facts, MATRIX)
    assert report.primary is not None and report.primary in {f.id for f in report.findings}
    without = run_checks(facts, MATRIX, ignore=frozenset({report.primary}))
    assert report.primary not in {f.id for f in without.findings}
    assert without.primary != report.primary
    assert {f.id for f in without.findings} == {f.id for f in report.findings} - {report.primary}


def _finding(id, section=Section.TORCH, severity=Severity.WARNING, evidence=("a",), title="t"):
    return Finding(id, severity, section, title, evidence)


def test_duplicates_merge_their_new_evidence_into_the_first_and_keep_the_worst_severity():
    first = _finding("x", evidence=("a", "b"), title="first")
    later = _finding("x", severity=Severity.ERROR, evidence=("b", "c"), title="later")
    assert merge_duplicates([first, later]) == (_finding("x", severity=Severity.ERROR, evidence=("a", "b", "c"), title="first"),)
    milder = _finding("x", severity=Severity.INFO, evidence=("a",))
    assert merge_duplicates([first, milder]) == (first,)


def test_the_same_id_in_two_sections_and_different_ids_stay_apart_in_order():
    torch = _finding("x", Section.TORCH)
    tf = _finding("x", Section.TENSORFLOW)
    other = _finding("y", Section.TORCH)
    assert merge_duplicates([torch, other, tf]) == (torch, other, tf)
    assert merge_duplicates([]) == ()


def test_no_facts_at_all_crash_no_check():
    report = run_checks(Facts(), MATRIX)
    assert report.crashes == ()
    assert report.findings == () or all(f.severity < Severity.ERROR for f in report.findings)
