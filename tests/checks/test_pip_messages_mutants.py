"""pip's own lines (checks/pip_messages.py, issue 20) pinned finding by finding for mutation testing: "(from versions:
none)" as a warning of its own, the matrix rule that speaks instead when it already names the Python, and one finding
per request however many of pip's lines repeat it. Subjects are as the signature reader writes them
("torch==1.13.1|none", "torch==|none", "tensorflow==2.16.1").

Equivalent mutants:
- pip_messages._judged_by_the_matrix `... else matrix.tf_release(version) if (version) or True else None`, and the same
  in python_version_no_wheel_from_message: ``tf_release("")`` and ``torch_release("")`` are None, the value the
  unmutated branch gives for an empty version.
- python_version_no_wheel_from_message `re.match(..., symptom.subject or "XXXX")`: a symptom without a subject then
  has the package name "XXXX" instead of "", neither torch nor tensorflow, so it is skipped all the same.
- python_version_no_wheel_from_message `re.match(r"([a-za-z_-]*)...")` for `[A-Za-z_-]`: the class reads only the
  package name before the operator, and the two differ only on capital letters, which no subject's package name has:
  the signatures that write them (pip-no-matching-distribution, pip-offered-versions) match the name
  case-sensitively from lowercase alternatives.
- _some_offered `(s.subject or "XXXX").startswith(f"{name}==")`: "XXXX" starts with no "NAME==", nor does "".
- _some_offered `(s.subject or "XXXX").partition("|")`: reached only when the subject starts with "NAME==", so it is
  never empty there.
- _python_unknown `getattr(release, "python", None)` for `()`: the default is taken only when the release is None,
  and None, like (), gives no Python range (``span`` is "").
"""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import pip_messages as pm
from gpudoctor.evidence import read_evidence
from gpudoctor.model import Finding, Fix, Section, Severity, Symptom
from tests.checks.test_version_rules import MATRIX, machine

NONE_MEANS = ("'from versions: none' means the index has no wheel for this interpreter: most often a Python newer (or older) "
              "than the release supports, a 32-bit Python, or an index URL without that build")
BITS = ("python -c \"import sys, struct; print(sys.version, struct.calcsize('P') * 8, 'bit')\"",)
TORCH_URL = "https://pytorch.org/get-started/locally/"
TF_URL = "https://www.tensorflow.org/install/pip"


def offered(python: str, subject: str, text: str = "ERROR: Could not find a version (from versions: none)", *more: Symptom):
    return dataclasses.replace(machine(python=python), symptoms=(Symptom("pip-offered-versions", text, subject=subject), *more))


def found(facts, matrix=MATRIX) -> list[Finding]:
    return list(pm.python_version_no_wheel_from_message(facts, matrix))


def nothing(name: str, section: Section, url: str, python: str | None, text: str) -> Finding:
    return Finding("python-version-no-wheel", Severity.WARNING, section,
                   f"pip finds no {name} wheel at all for this Python{f' ({python})' if python else ''} and platform",
                   (f"log: {text}", NONE_MEANS),
                   Fix(f"Check the Python (64-bit, a version {name} publishes wheels for) and the index URL", BITS, url))


def test_from_versions_none_with_the_python_unknown_is_a_warning():
    line = "ERROR: Could not find a version that satisfies the requirement torch==2.0.1 (from versions: none)"
    assert found(offered("", "torch==2.0.1|none", line)) == [nothing("torch", Section.TORCH, TORCH_URL, None, line)]
    assert found(offered("", "torch==2.0.1|none", line), None) == [nothing("torch", Section.TORCH, TORCH_URL, None, line)]


@pytest.mark.parametrize(("python", "subject", "name", "section", "url"), [
    ("3.10.12", "torch==1.13.1|none", "torch", Section.TORCH, TORCH_URL),  # the release has a 3.10 wheel: not the Python
    ("3.13.1", "torch==|none", "torch", Section.TORCH, TORCH_URL),  # some torch has a 3.13 wheel
    ("3.10.1", "torch==0.4.1|none", "torch", Section.TORCH, TORCH_URL),  # a release the matrix does not know: every torch
    ("3.12.1", "tensorflow-cpu==2.16.1|none", "tensorflow-cpu", Section.TENSORFLOW, TF_URL),
    ("3.10.12", "tensorflow-gpu==2.10.0|none", "tensorflow-gpu", Section.TENSORFLOW, TF_URL),
    ("3.13.1", "tensorflow==|none", "tensorflow", Section.TENSORFLOW, TF_URL),
    ("3.13.1", "tensorflow-directml==|none", "tensorflow-directml", Section.TENSORFLOW, TF_URL),
])
def test_from_versions_none_the_matrix_does_not_explain_is_a_warning_naming_the_python(python, subject, name, section, url):
    line = f"ERROR: Could not find a version that satisfies the requirement {subject.split('|')[0].rstrip('=')} (from versions: none)"
    assert found(offered(python, subject, line)) == [nothing(name, section, url, python, line)]


def test_without_a_matrix_the_warning_names_the_python():
    line = "ERROR: Could not find a version that satisfies the requirement torch==1.13.1 (from versions: none)"
    assert found(offered("3.13.1", "torch==1.13.1|none", line), None) == [nothing("torch", Section.TORCH, TORCH_URL, "3.13.1", line)]


@pytest.mark.parametrize(("python", "subject", "title", "wheels"), [
    ("3.13.1", "torch==1.13.1|none", "Python 3.13 has no wheel of torch 1.13: pip finds nothing to install", "torch 1.13 has wheels for Python 3.7–3.11"),
    ("3.16.1", "torch==0.4.1|none", "Python 3.16 has no wheel of torch: pip finds nothing to install", "torch has wheels for Python 2.7–3.15"),
    ("3.16.1", "torch==|none", "Python 3.16 has no wheel of torch: pip finds nothing to install", "torch has wheels for Python 2.7–3.15"),
    ("3.13.1", "tensorflow-cpu==2.16.1|none", "Python 3.13 has no wheel of tensorflow 2.16: pip finds nothing to install",
     "tensorflow 2.16 has wheels for Python 3.9–3.12"),
    ("3.13.1", "tensorflow-gpu==2.16.1|none", "Python 3.13 has no wheel of tensorflow 2.16: pip finds nothing to install",
     "tensorflow 2.16 has wheels for Python 3.9–3.12"),
    ("3.13.1", "tensorflow==2.16.1|none", "Python 3.13 has no wheel of tensorflow 2.16: pip finds nothing to install",
     "tensorflow 2.16 has wheels for Python 3.9–3.12"),
])
def test_from_versions_none_the_matrix_explains_gives_the_matrix_s_error_alone(python, subject, title, wheels):
    (f,) = found(offered(python, subject, "L"))
    assert (f.id, f.severity, f.title, f.evidence) == ("python-version-no-wheel", Severity.ERROR, title, ("log: L", f"this Python is {python}", wheels))


def test_a_package_without_a_matrix_of_its_own_is_named_whatever_the_python():
    line = "ERROR: Could not find a version that satisfies the requirement jax==0.4.30 (from versions: none)"
    # JAX's own section and install page (a jax line was first pinned in PyTorch's section: fixed)
    assert found(offered("3.16.1", "jax==0.4.30|none", line)) == [
        nothing("jax", Section.JAX, "https://docs.jax.dev/en/latest/installation.html", "3.16.1", line)]


def test_judged_by_the_matrix_directly():
    facts = machine(python="3.13.1")
    assert pm._judged_by_the_matrix(facts, MATRIX, "torch", "1.13.1") is True
    assert pm._judged_by_the_matrix(facts, MATRIX, "torch", "2.6.0") is False
    assert pm._judged_by_the_matrix(facts, MATRIX, "torch", "") is False
    assert pm._judged_by_the_matrix(machine(python="3.16.1"), MATRIX, "torch", "") is True
    assert pm._judged_by_the_matrix(facts, MATRIX, "tensorflow", "2.16.1") is True
    assert pm._judged_by_the_matrix(facts, MATRIX, "tensorflow-gpu", "2.16.1") is True
    assert pm._judged_by_the_matrix(facts, MATRIX, "tensorflow-cpu", "2.16.1") is True
    assert pm._judged_by_the_matrix(facts, MATRIX, "tensorflow", "2.20.0") is False
    assert pm._judged_by_the_matrix(facts, MATRIX, "tensorflow", "") is False
    assert pm._judged_by_the_matrix(machine(python="3.16.1"), MATRIX, "tensorflow", "") is True  # no tensorflow has a 3.16 wheel
    assert pm._judged_by_the_matrix(machine(python="3.16.1"), MATRIX, "tensorflow", "0.0.1") is True  # unknown: every release
    assert pm._judged_by_the_matrix(facts, MATRIX, "tensorflow", "0.0.1") is False
    assert pm._judged_by_the_matrix(machine(python="3.16.1"), MATRIX, "torch", "0.0.1") is True
    assert pm._judged_by_the_matrix(facts, MATRIX, "jax", "0.4.30") is False
    assert pm._judged_by_the_matrix(facts, None, "torch", "1.13.1") is False
    py314 = machine(python="3.14.0")  # some torch has a 3.14 wheel, no tensorflow has: each package's own releases count
    assert pm._judged_by_the_matrix(py314, MATRIX, "torch", "") is False
    assert pm._judged_by_the_matrix(py314, MATRIX, "tensorflow", "") is True


def test_an_offered_list_is_judged_whatever_the_python():
    line = "ERROR: Could not find a version that satisfies the requirement torch==1.13.1 (from versions: 2.0.0, 2.0.1)"
    by_matrix = found(offered("3.13.1", "torch==1.13.1|2.0.0, 2.0.1", line))
    assert len(by_matrix) == 1 and "Python 3.13 has no wheel" in by_matrix[0].title  # the matrix rule speaks, once
    # a Python in the matrix's range still gets no wheel from an index that lists none for it (platform, index)
    by_list = found(offered("3.10.12", "torch==1.13.1|2.0.0, 2.0.1", line))
    assert [f.severity for f in by_list] == [Severity.ERROR] and "pip offers only other versions" in by_list[0].title
    assert found(offered("", "torch==|2.0.0, 2.0.1", line)) == []  # no version asked for: nothing to compare
    assert found(offered("", "torch==1.13.1| 2.0.0 ,1.13.1", line)) == []  # offered after all, spaces aside


def test_one_finding_per_request_however_many_lines_repeat_it():
    offered_line = "ERROR: Could not find a version that satisfies the requirement torch==1.13.1 (from versions: 2.0.0)"
    no_match = Symptom("no-matching-distribution", "ERROR: No matching distribution found for torch==1.13.1", subject="torch==1.13.1")
    facts = offered("3.13.1", "torch==1.13.1|2.0.0", offered_line, no_match)
    (f,) = found(facts)
    assert f.evidence[0] == "log: ERROR: No matching distribution found for torch==1.13.1"  # the no-matching line speaks
    other = Symptom("no-matching-distribution", "ERROR: No matching distribution found for tensorflow==2.16.1", subject="tensorflow==2.16.1")
    both = found(offered("3.13.1", "torch==1.13.1|2.0.0", offered_line, other))
    assert [x.evidence[0] for x in both] == [f"log: {other.text}", f"log: {offered_line}"]


def test_wanted_distributions_reads_requests():
    facts = offered("3.13.1", "torch==1.13.1|2.0.0", "A",
                    Symptom("no-matching-distribution", "B", framework="torch", subject="tensorflow"),
                    Symptom("pip-offered-versions", "C", framework="tensorflow", subject="tensorflow==|none"),
                    Symptom("pip-offered-versions", "E", framework="tensorflow", subject="tensorflow-cpu==2.16.1|2.20.0"),
                    Symptom("pip-offered-versions", "D", subject=None))
    assert pm._wanted_distributions(facts) == [
        Symptom("no-matching-distribution", "B", "torch", "tensorflow"),
        Symptom("no-matching-distribution", "A", None, "torch==1.13.1"),
        Symptom("no-matching-distribution", "E", "tensorflow", "tensorflow-cpu==2.16.1"),
        Symptom("no-matching-distribution", "D", None, ""),
    ]
    assert pm._wanted_distributions(machine(python="3.13.1")) == []


def test_the_real_lines_of_one_failed_install():
    text = ("ERROR: Could not find a version that satisfies the requirement torch==1.13.1 (from versions: 2.2.0, 2.2.1)\n"
            "ERROR: No matching distribution found for torch==1.13.1\n")
    facts = dataclasses.replace(read_evidence(text), host=machine(python="3.12.1").host)
    (f,) = found(facts)
    assert f.title == "Python 3.12 has no wheel of torch 1.13: pip finds nothing to install"
    assert f.evidence == ("log: ERROR: No matching distribution found for torch==1.13.1", "this Python is 3.12.1",
                          "torch 1.13 has wheels for Python 3.7–3.11")


def test_a_request_with_a_wheel_for_this_python_does_not_stop_the_next():
    facts = dataclasses.replace(machine(python="3.13.1"), symptoms=(
        Symptom("no-matching-distribution", "A", subject="torch==2.6.0"), Symptom("no-matching-distribution", "B", subject="torch==1.13.1")))
    assert [f.title for f in found(facts)] == ["Python 3.13 has no wheel of torch 1.13: pip finds nothing to install"]


def test_a_subject_without_a_version_names_the_package():
    assert found(offered("", "torch|none", "L")) == [nothing("torch", Section.TORCH, TORCH_URL, None, "L")]


def distribution(python: str, subject: str, text: str, *more: Symptom):
    return dataclasses.replace(machine(python=python), symptoms=(Symptom("no-matching-distribution", text, subject=subject), *more))


def test_a_published_release_pip_cannot_find_with_the_python_unknown_is_a_warning_naming_its_pythons():
    line = "ERROR: No matching distribution found for tensorflow-gpu==1.15"  # Zeta36/chess-alpha-zero#104
    (finding,) = found(distribution("", "tensorflow-gpu==1.15", line))
    release = MATRIX.tf_release("1.15")
    span = f"{release.python[0]}–{release.python[-1]}"
    assert (finding.id, finding.severity, finding.section) == ("python-version-no-wheel", Severity.WARNING, Section.TENSORFLOW)
    assert finding.title == f"pip finds no tensorflow-gpu {release.series} for this interpreter: it has wheels for Python {span} only"
    assert finding.evidence[0] == f"log: {line}" and f"Use a Python {span} environment" in finding.fix.summary
    # an upper bound names its release (CorentinJ/Real-Time-Voice-Cloning#194); a lower bound names none
    (bounded,) = found(distribution("", "tensorflow-gpu<=1.14.0", "No matching distribution found for tensorflow-gpu<=1.14.0,>=1.10.0"))
    assert f"tensorflow-gpu {MATRIX.tf_release('1.14').series}" in bounded.title
    (lower,) = found(distribution("", "torch>=1.0", "No matching distribution found for torch>=1.0"))
    assert lower.title == "pip finds no torch for this interpreter"


def test_no_warning_where_pip_offered_versions_of_the_package_or_the_release_is_unknown_or_the_python_decides():
    line = "ERROR: No matching distribution found for torch"
    listed = Symptom("pip-offered-versions", "... (from versions: 2.0.0, 2.0.1)", subject="torch==|2.0.0, 2.0.1")
    assert found(distribution("", "torch", line, listed)) == []  # pip has torch wheels for this interpreter
    assert found(distribution("", "torch==0.0.7", "No matching distribution found for torch==0.0.7")) == []  # no such release known
    assert found(distribution("", "torch", line), None) == []  # no matrix, no judgement
    # the Python known and inside the release's range: nothing to say
    assert found(distribution("3.10.12", "torch==2.0.1", "No matching distribution found for torch==2.0.1")) == []


# -- a published release pip cannot find, the Python unknown: the warning whole (pip_messages._python_unknown) ----------

MACHINE = ("python -c \"import sys, struct, platform; print(sys.version, struct.calcsize('P') * 8, 'bit', platform.machine())\"",)
WHY = ("pip says so when this interpreter's Python version or platform (32-bit, ARM, macOS) has no wheel of it, the index URL "
       "has no such build, or pip is too old for the wheel's tag (pip before 19.0 cannot install manylinux2010 wheels)")
PREVIOUS_TORCH_URL = "https://pytorch.org/get-started/previous-versions/"


def unknown_python(section: Section, what: str, span: str, text: str, fix: str, url: str) -> Finding:
    return Finding("python-version-no-wheel", Severity.WARNING, section,
                   f"pip finds no {what} for this interpreter" + (f": it has wheels for Python {span} only" if span else ""),
                   (f"log: {text}", f"{what} was published" + (f" for Python {span}" if span else "") + f"; {WHY}"),
                   Fix(fix, MACHINE, url))


@pytest.mark.parametrize(("subject", "line", "expected"), [
    ("torch==1.13.1", "ERROR: No matching distribution found for torch==1.13.1",
     unknown_python(Section.TORCH, "torch 1.13", "3.7–3.11", "ERROR: No matching distribution found for torch==1.13.1",
                    "Use a Python 3.7–3.11 environment (64-bit) for torch 1.13", PREVIOUS_TORCH_URL)),
    ("torch>=1.0", "No matching distribution found for torch>=1.0",  # a lower bound: no release, no Python range
     unknown_python(Section.TORCH, "torch", "", "No matching distribution found for torch>=1.0",
                    "Check that this Python (64-bit, its version) has torch wheels, and the index URL", PREVIOUS_TORCH_URL)),
    ("tensorflow-gpu==1.15", "ERROR: No matching distribution found for tensorflow-gpu==1.15",
     unknown_python(Section.TENSORFLOW, "tensorflow-gpu 1.15", "2.7–3.7", "ERROR: No matching distribution found for tensorflow-gpu==1.15",
                    "Use a Python 2.7–3.7 environment (64-bit) for tensorflow-gpu 1.15", TF_URL)),
    ("tensorflow", "ERROR: No matching distribution found for tensorflow",
     unknown_python(Section.TENSORFLOW, "tensorflow", "", "ERROR: No matching distribution found for tensorflow",
                    "Check that this Python (64-bit, its version) has tensorflow wheels, and the index URL", TF_URL)),
])
def test_the_python_unknown_warning_whole(subject, line, expected):
    assert found(distribution("", subject, line)) == [expected]


def test_some_offered_is_only_this_package_s_non_empty_list():
    def some(name: str, *subjects: str | None) -> bool:
        return pm._some_offered(dataclasses.replace(machine(python=""), symptoms=tuple(
            Symptom("pip-offered-versions", "L", subject=s) for s in subjects)), name)

    assert some("torch", "torch==1.13.1|2.0.0, 2.0.1") is True
    assert some("torch", "torch==|2.0.0") is True
    assert some("torch", "tensorflow==|2.16.1") is False  # another package's wheels say nothing of torch's
    assert some("torch", "torch==|none") is False  # "(from versions: none)": nothing offered
    assert some("torch", "torch==1.13.1| none ") is False
    assert some("torch", "torch==1.13.1|") is False
    assert some("torch", "torch==1.13.1") is False  # no list at all
    assert some("torch", None, "torch==|none", "tensorflow==|2.16.1") is False
    assert some("torch", None, "torch==|none", "torch==2.0.0|2.0.0") is True
    assert pm._some_offered(dataclasses.replace(machine(python=""), symptoms=(
        Symptom("no-matching-distribution", "L", subject="torch==|2.0.0"),)), "torch") is False  # not pip's list


def test_another_package_s_offered_list_does_not_silence_the_warning():
    line = "ERROR: No matching distribution found for torch"
    tf_listed = Symptom("pip-offered-versions", "... (from versions: 2.16.1)", subject="tensorflow==|2.16.1")
    (finding,) = found(distribution("", "torch", line, tf_listed))
    assert finding.title == "pip finds no torch for this interpreter"


def test_a_package_without_a_release_named_is_judged_by_its_own_releases_pythons():
    # some torch has a Python 3.14 wheel, no tensorflow has: each package's releases count, not another's
    line = "ERROR: No matching distribution found for tensorflow"
    (f,) = found(distribution("3.14.0", "tensorflow", line))
    assert (f.severity, f.section, f.title) == (Severity.ERROR, Section.TENSORFLOW,
                                                "Python 3.14 has no wheel of tensorflow: pip finds nothing to install")
    assert f.evidence == (f"log: {line}", "this Python is 3.14.0", "tensorflow has wheels for Python 2.7–3.13")
    assert found(distribution("3.14.0", "torch", "ERROR: No matching distribution found for torch")) == []


def test_every_request_is_named_when_the_python_is_unknown():
    facts = distribution("", "torch==1.13.1", "A", Symptom("no-matching-distribution", "B", subject="tensorflow-gpu==1.15"))
    assert [f.title for f in found(facts)] == [
        "pip finds no torch 1.13 for this interpreter: it has wheels for Python 3.7–3.11 only",
        "pip finds no tensorflow-gpu 1.15 for this interpreter: it has wheels for Python 2.7–3.7 only"]
    # a request pip has wheels of (or the matrix does not know) does not stop the next one
    facts = distribution("", "torch==0.0.7", "A", Symptom("no-matching-distribution", "B", subject="tensorflow-gpu==1.15"))
    assert [f.evidence[0] for f in found(facts)] == ["log: B"]
