"""checks/log_rules.py pinned whole: the findings a pasted line proves by itself, as matrices/signatures.toml's
[[finding]] entries give them, and their severity where no NVIDIA GPU can be (mutation testing)."""

from __future__ import annotations

from gpudoctor.checks import log_rules as lr
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Finding, Gpu, Host, Section, Severity, Symptom

MATRIX = load_matrix()
CPU_BUILD = Symptom("xgboost-cpu-build", "XGBoost version not compiled with GPU support.")
RULE = next(r for r in MATRIX.log_findings if r.symptom == "xgboost-cpu-build")


def _run(facts):
    return list(lr.log_rules(facts, MATRIX))


def test_a_rule_as_the_table_gives_it():
    assert _run(Facts(symptoms=(CPU_BUILD,))) == [Finding(
        "gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT, RULE.title,
        ("log: XGBoost version not compiled with GPU support.", *RULE.explanation), RULE.fix)]


def test_on_a_mac_and_without_an_nvidia_gpu_its_own_severity_and_why():
    mac = _run(Facts(symptoms=(CPU_BUILD,), host=Host(os="darwin")))
    assert mac == [Finding("gpu-package-cpu-variant", Severity.INFO, Section.ENVIRONMENT, RULE.title,
                           ("log: XGBoost version not compiled with GPU support.", *RULE.explanation,
                            "this is a Mac: a CPU-only build is what can run, so this is expected"), RULE.fix)]
    (none,) = _run(Facts(symptoms=(CPU_BUILD,), gpus=()))
    assert none.severity is Severity.INFO and none.evidence[-1] == "no NVIDIA GPU is here: a CPU-only build is what can run, so this is expected"
    (linux,) = _run(Facts(symptoms=(CPU_BUILD,), host=Host(os="linux"), gpus=(Gpu(index=0, name="NVIDIA A100"),)))
    assert linux.severity is Severity.ERROR


def test_a_rule_without_its_own_severity_there_keeps_the_tables_and_every_rule_speaks():
    lost = Symptom("gpu-lost", "Unable to determine the device handle for GPU0000:01:00.0: GPU is lost.")
    found = _run(Facts(symptoms=(CPU_BUILD, lost), gpus=()))
    assert sorted((f.id, f.severity.name) for f in found) == [("gpu-fallen-off-bus", "ERROR"), ("gpu-package-cpu-variant", "INFO")]
    assert _run(Facts()) == [] and list(lr.log_rules(Facts(symptoms=(CPU_BUILD,)), None)) == []
    # a rule the table lists after the CPU-build one still speaks on that machine
    later = Symptom("pip-dependency-conflict", "torchvision 0.15.2 requires torch==2.0.1, but you have torch 2.1.0 which is incompatible.")
    assert [f.id for f in _run(Facts(symptoms=(CPU_BUILD, later), host=Host(os="darwin")))][-1] == "pip-dependency-conflict"


def test_the_evidence_lines_each_once_and_at_most_four():
    found = [Symptom("k", t) for t in ("a", "b", "a", "c", "d", "e")]
    assert lr.lines(found) == ("log: a", "log: b", "log: c", "log: d")
