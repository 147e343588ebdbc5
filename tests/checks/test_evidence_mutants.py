"""The evidence findings (issue 11: mutation score of checks/evidence.py): contradictions between pasted blocks,
text that describes no machine, and a truncated paste, each pinned as the user reads it."""

from __future__ import annotations

import pytest

from gpudoctor.checks.evidence import evidence_contradiction, evidence_not_recognised, evidence_truncated
from gpudoctor.model import Contradiction, Facts, Section, Severity, Symptom

FRESH_OUTPUT = ("Check which output is current (two environments, two machines, or an upgrade in between?) and paste fresh output of "
                "`python -m torch.utils.collect_env` and `nvidia-smi` from the same shell")


def test_a_contradiction_is_a_warning_naming_both_sources():
    c = Contradiction("driver.version", "535.104.05", "nvidia-smi, line 3", "550.54.15", "collect_env, line 22")
    (f,) = evidence_contradiction(Facts(contradictions=(c,)), None)
    assert (f.id, f.severity, f.section) == ("evidence-contradiction", Severity.WARNING, Section.GPU)
    assert f.title == "The evidence disagrees about driver.version: 535.104.05 or 550.54.15"
    assert f.evidence == ("535.104.05 (nvidia-smi, line 3) — this value was used", "550.54.15 (collect_env, line 22)")
    assert (f.fix.summary, f.fix.commands) == (FRESH_OUTPUT, ())


@pytest.mark.parametrize(("fact", "section"), [
    ("driver.cuda_version", Section.GPU), ("gpus.0.name", Section.GPU), ("pci_devices.0.driver", Section.GPU),
    ("cuda_toolkits.0.version", Section.CUDA), ("libraries.libcudnn.0.version", Section.CUDNN),
    ("libraries.libcudart.0.version", Section.CUDA), ("frameworks.torch.version", Section.TORCH),
    ("python_packages.torch", Section.TORCH), ("frameworks.tensorflow.version", Section.TENSORFLOW),
    ("python_packages.tensorflow", Section.TENSORFLOW), ("host.python", Section.ENVIRONMENT),
    ("python_packages.numpy", Section.ENVIRONMENT),
])
def test_each_contradiction_lands_in_the_section_of_its_fact(fact, section):
    c = Contradiction(fact, "a", "here", "b", "there")
    assert [f.section for f in evidence_contradiction(Facts(contradictions=(c, c)), None)] == [section, section]


def test_text_that_describes_nothing_asks_for_the_two_commands():
    (f,) = evidence_not_recognised(Facts(provenance={}), None)
    assert (f.id, f.severity, f.section) == ("evidence-not-recognised", Severity.INFO, Section.ENVIRONMENT)
    assert f.title == "Nothing in this text describes the machine, so nothing could be judged"
    assert f.evidence == ("gpudoctor reads gpudoctor snapshots, collect_env, nvidia-smi (table, -q, -q -x, -L), nvcc --version, pip/conda "
                          "lists, TensorFlow build info and device lists, and framework error lines",)
    assert f.fix.summary == "Ask for the output of these two commands, run where the problem happens"
    assert f.fix.commands == ("python -m torch.utils.collect_env", "nvidia-smi")
    # a probed machine (no provenance), a paste with something read, or a paste with only an error line: recognised
    assert list(evidence_not_recognised(Facts(), None)) == []
    assert list(evidence_not_recognised(Facts(provenance={"driver.version": "nvidia-smi, line 3"}), None)) == []
    assert list(evidence_not_recognised(Facts(provenance={}, symptoms=(Symptom("no-kernel-image", "no kernel image"),)), None)) == []


def test_a_truncated_paste_says_so_once_per_cut():
    cut = Symptom("input-truncated", "read the first 1048576 bytes of 3145728")
    facts = Facts(symptoms=(Symptom("no-kernel-image", "no kernel image"), cut))
    (f,) = evidence_truncated(facts, None)
    assert (f.id, f.severity, f.section) == ("evidence-truncated", Severity.INFO, Section.ENVIRONMENT)
    assert f.title == "The input was longer than gpudoctor reads: the rest was not judged"
    assert f.evidence == (cut.text,)
    assert list(evidence_truncated(Facts(), None)) == []
