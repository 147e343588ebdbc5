"""known-broken-combination as a rule engine (issue 11: mutation score of checks/known_broken.py).

The shipped rules (matrices/known_broken.toml) on their snapshots, every line pinned; then each condition of the
rule format (framework, versions, variant, cudnn, gpu_cc, python, symptom + subject) on rules written here as data,
the way a maintainer adds one: all conditions must hold, and an unknown fact never holds."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks.known_broken import known_broken_combination
from gpudoctor.matrix.tables.broken import BrokenRule
from gpudoctor.model import Section, Severity, Symptom
from tests.checks.test_known_broken import MATRIX, load_facts
from tests.checks.test_version_rules import machine, tf, torch

DATA = {"why": "the mechanism", "fix": "do this instead", "url": "https://example.org/fix", "sources": ("https://a.example", "https://b.example")}
ALL = "{framework}|{version}|{gpu}|{cc}|{python}|{cudnn}"


def judge(facts, *rules: BrokenRule):
    return list(known_broken_combination(facts, dataclasses.replace(MATRIX, known_broken=rules)))


def rule(key: str = "test-rule", title: str = ALL, **conditions) -> BrokenRule:
    return BrokenRule(key=key, title=title, **DATA, **conditions)


def tail(key: str = "test-rule") -> tuple[str, str]:
    return ("the mechanism", f"known-broken rule {key} (matrices/known_broken.toml): https://a.example, https://b.example")


# -- the shipped rules, line by line ----------------------------------------------------------------------------


def test_tf_ptx_rule_pinned():
    (f,) = known_broken_combination(load_facts("tf220-rtx5090-ptx-broken"), MATRIX)
    assert (f.severity, f.section) == (Severity.ERROR, Section.TENSORFLOW)
    assert f.title == ("TensorFlow 2.20.0 cannot run on GPU 0 (NVIDIA GeForce RTX 5090): its PTX fails to JIT for compute "
                       "capability 12.0 (CUDA_ERROR_INVALID_PTX)")
    assert f.evidence[:2] == ("tensorflow 2.20.0 installed (tensorflow >=2.19,<2.22 is affected)",
                              "GPU 0 (NVIDIA GeForce RTX 5090) has compute capability 12.0")
    assert f.evidence[-1] == ("known-broken rule tf-ptx-jit-fails-on-cc12 (matrices/known_broken.toml): "
                              "https://github.com/tensorflow/tensorflow/issues/89272, https://github.com/tensorflow/tensorflow/issues/99592, "
                              "https://github.com/tensorflow/tensorflow/issues/111958")
    assert f.fix.commands == ("docker run --gpus all -it --rm nvcr.io/nvidia/tensorflow:25.02-tf2-py3",)
    assert f.fix.url == "https://github.com/tensorflow/tensorflow/issues/89272"
    assert f.fix.summary.startswith("Run TensorFlow on this GPU from NVIDIA's NGC TensorFlow container")


def test_kepler_cudnn9_rule_pinned():
    (f,) = known_broken_combination(load_facts("torch25-cu118-k80-cudnn9"), MATRIX)
    assert (f.severity, f.section) == (Severity.ERROR, Section.TORCH)
    assert f.title == ("torch 2.5.1+cu118 bundles cuDNN 9.1.0.70, which has no Kepler support: convolutions fail on GPU 0 (Tesla K80) "
                       "(compute capability 3.7)")
    assert f.evidence[:2] == ("torch 2.5.1+cu118 uses cuDNN 9.1.0.70 (the cuDNN torch 2.5.1+cu118 pins, per the matrix)",
                              "GPU 0 (Tesla K80) has compute capability 3.7")
    assert f.fix.commands == ("pip install torch==1.13.1",)


def test_tensorrt_pin_rule_pinned():
    (f,) = known_broken_combination(load_facts("tf214-and-cuda-py311-no-tensorrt"), MATRIX)
    assert (f.severity, f.section) == (Severity.ERROR, Section.TENSORFLOW)  # nothing installed: the rule's framework
    assert f.title == "tensorflow[and-cuda]==2.14.* cannot install on Python 3.11: its tensorrt==8.5.3.1 pin has no wheel for it"
    assert f.evidence[:2] == ("this Python is 3.11.9", 'log: ERROR: No matching distribution found for tensorrt==8.5.3.1; extra == "and-cuda"')
    assert f.fix.commands == ("pip install 'tensorflow[and-cuda]==2.15.1'",)


# -- conditions ---------------------------------------------------------------------------------------------------


K80_PY310 = {"python": "3.10.12", "gpus": (("Tesla K80", "3.7"),)}


def test_every_condition_holding_fills_every_title_field_and_evidence_line():
    facts = machine(python="3.10.12", gpus=(("NVIDIA H100 80GB HBM3", "9.0"), ("Tesla K80", None)),
                    torch=dict(torch("2.4.1+cu121", "12.1"), cudnn="90100"))
    r = rule(framework="torch", versions=">=2.4,<2.5", variant="cu121", cudnn=">=9", gpu_cc="<5.0", python=">=3.10")
    (f,) = judge(facts, r)
    assert (f.id, f.severity, f.section) == ("known-broken-combination", Severity.ERROR, Section.TORCH)
    assert f.title == "torch|2.4.1+cu121|GPU 1 (Tesla K80)|3.7|3.10|9.1.0"
    assert f.evidence == (
        "torch 2.4.1+cu121 installed (torch >=2.4,<2.5 is affected)",
        "torch 2.4.1+cu121 is the cu121 variant",
        "torch 2.4.1+cu121 uses cuDNN 9.1.0 (reported by the installed build)",
        "this Python is 3.10.12",
        "GPU 1 (Tesla K80) has compute capability 3.7 (from its name)",
        *tail(),
    )
    assert (f.fix.summary, f.fix.commands, f.fix.url) == ("do this instead", (), "https://example.org/fix")


@pytest.mark.parametrize(
    "conditions",
    [
        {"versions": ">=2.5"},  # another release
        {"variant": "cu118"},  # another variant
        {"cudnn": "<9"},  # another cuDNN
        {"gpu_cc": ">=5.0"},  # no GPU in range
        {"python": ">=3.11"},  # another Python
        {"symptom": "no-matching-distribution"},  # no such message in the log
        {"framework": "tensorflow"},  # not installed, and no log of an attempt
    ],
)
def test_one_condition_failing_is_enough_to_stay_quiet(conditions):
    facts = machine(**K80_PY310, torch=dict(torch("2.4.1+cu121", "12.1"), cudnn="90100"))
    base = {"framework": "torch", "versions": ">=2.4,<2.5", "variant": "cu121", "cudnn": ">=9", "gpu_cc": "<5.0", "python": ">=3.10"}
    assert len(judge(facts, rule(**base))) == 1
    assert judge(facts, rule(**{**base, **conditions})) == []


def test_unknown_facts_never_hold():
    r = rule(framework="torch", gpu_cc="<5.0")
    assert judge(machine(python="3.10.12", gpus=(("Mystery Accelerator", None),), torch=torch("2.4.1+cu121", "12.1")), r) == []
    assert judge(machine(gpus=(("Tesla K80", "3.7"),), python="", torch=torch("2.4.1+cu121", "12.1")), rule(framework="torch", python=">=3")) == []
    # no cuDNN known anywhere (the version is not in the matrix, nothing reported): the cudnn condition does not hold
    assert judge(machine(**K80_PY310, torch=torch("2.4.1+cu999", "99.9")), rule(framework="torch", cudnn=">=0")) == []


def test_variant_of_a_build_the_matrix_does_not_know_comes_from_the_version_tag():
    facts = machine(**K80_PY310, torch=torch("2.5.1+cu999", "99.9"))
    (f,) = judge(facts, rule(framework="torch", variant="cu999"))
    assert f.evidence[0] == "torch 2.5.1+cu999 is the cu999 variant"
    assert judge(machine(**K80_PY310, torch=torch("2.5.1", "99.9")), rule(framework="torch", variant="cu999")) == []


def test_rules_without_a_framework_or_a_symptom_have_nothing_to_match():
    assert judge(machine(**K80_PY310, torch=torch("2.4.1+cu121", "12.1")), rule(gpu_cc="<5.0")) == []


def test_every_matching_rule_reports_and_each_rule_once():
    facts = machine(**K80_PY310, torch=torch("2.4.1+cu121", "12.1"), tf=tf("2.16.1", "12.3", "8"))
    found = judge(facts, rule("first", framework="torch", gpu_cc="<5.0"), rule("none", framework="torch", gpu_cc=">=9"),
                  rule("second", framework="tensorflow", python=">=3.10"), rule("third", framework="torch", python=">=3.10"))
    assert [f.evidence[-1].split()[2] for f in found] == ["first", "second", "third"]
    assert [f.section for f in found] == [Section.TORCH, Section.TENSORFLOW, Section.TORCH]


# -- cuDNN: reported, pinned by the matrix variant, pinned by the wheel ----------------------------------------------


@pytest.mark.parametrize(
    ("reported", "decoded"),
    [("90100", "9.1.0"), ("90000", "9.0.0"), ("91002", "9.10.2"), ("8902", "8.9.2"), ("8700", "8.7.0"), ("8000", "8.0.0"),
     ("7605", "7.6.5"), ("9.1.0", "9.1.0")],
)
def test_a_reported_cudnn_is_read_as_torch_backends_cudnn_version(reported, decoded):
    facts = machine(**K80_PY310, torch=dict(torch("2.4.1+cu121", "12.1"), cudnn=reported))
    (f,) = judge(facts, rule(title="{cudnn}", framework="torch", cudnn=">=0"))
    assert f.title == decoded
    assert f.evidence[0] == f"torch 2.4.1+cu121 uses cuDNN {decoded} (reported by the installed build)"


def test_reported_cudnn_decides_over_the_matrix_pin():
    facts = machine(**K80_PY310, torch=dict(torch("2.5.1+cu118", "11.8"), cudnn="8902"))
    assert judge(facts, rule(framework="torch", cudnn=">=9")) == []  # the matrix variant pins 9.1.0.70, the build says 8.9.2


def test_the_published_wheels_pin_for_the_default_variant():
    """torch 2.4.1 from the default index (no local tag): the matrix cannot tell the variant, so the cuDNN is the
    nvidia-cudnn pin the audited wheel records (wheels.toml cudnn_pin; an overlay row written here)."""
    from gpudoctor.matrix.tables.wheels import WheelOverlay, WheelRelease

    source = "https://pypi.org/project/torch/2.4.1/#files"
    overlay = WheelOverlay(releases={("torch", "2.4.1"): WheelRelease("torch", "2.4.1", source, cudnn_pin="9.1.0.70")})
    matrix = dataclasses.replace(MATRIX, wheels=overlay, known_broken=(rule(title="{cudnn}", framework="torch", cudnn=">=9"),))
    (f,) = known_broken_combination(machine(**K80_PY310, packages={"torch": "2.4.1"}), matrix)
    assert f.title == "9.1.0.70"
    assert f.evidence[0] == f"torch 2.4.1 uses cuDNN 9.1.0.70 (the nvidia-cudnn pin of the published wheel ({source}))"
    # the cu124 variant is not the index's default (cu121) wheel: that pin says nothing about it, and the matrix
    # records no cuDNN for it
    assert list(known_broken_combination(machine(**K80_PY310, packages={"torch": "2.4.1+cu124"}), matrix)) == []
    # without an audited pin the cuDNN stays unknown, and the condition does not hold
    matrix = dataclasses.replace(matrix, wheels=WheelOverlay(releases={("torch", "2.4.1"): WheelRelease("torch", "2.4.1", source)}))
    assert list(known_broken_combination(machine(**K80_PY310, packages={"torch": "2.4.1"}), matrix)) == []


# -- symptoms -------------------------------------------------------------------------------------------------------


def _log(kind: str, text: str, subject: str | None):
    facts = machine(python="3.11.9", gpus=(("NVIDIA GeForce RTX 3090", "8.6"),))

    return dataclasses.replace(facts, symptoms=(Symptom(kind=kind, text=text, subject=subject),))


def test_a_symptom_rule_matches_the_subject_or_the_text_of_that_kind_of_message():
    text = "ERROR: No matching distribution found for tensorrt==8.5.3.1"
    by_subject = rule(framework="torch", symptom="no-matching-distribution", subject="^tensorrt")
    by_text = rule(framework="torch", symptom="no-matching-distribution", subject="found for tensorrt")
    any_subject = rule(framework="torch", symptom="no-matching-distribution")
    for r in (by_subject, by_text, any_subject):
        (f,) = judge(_log("no-matching-distribution", text, "tensorrt8.5.3.1"), r)
        assert f.section is Section.TORCH  # the attempted framework's section, although nothing is installed
        assert f.evidence == (f"log: {text}", *tail())
        assert f.title == "torch|||||"
    assert judge(_log("no-matching-distribution", text, "tensorrt8.5.3.1"), rule(framework="torch", symptom="no-matching-distribution", subject="^numpy")) == []
    assert judge(_log("numpy-abi", text, "tensorrt8.5.3.1"), any_subject) == []
    assert judge(_log("no-matching-distribution", text, None), rule(framework="tensorflow", symptom="no-matching-distribution", subject="tensorrt"))


def test_the_cudnn_of_a_tensorflow_build_is_its_own_not_torchs():
    facts = machine(**K80_PY310, torch=dict(torch("2.4.1+cu121", "12.1"), cudnn="90100"), tf=tf("2.16.1", "12.3", "8"))
    assert judge(facts, rule(framework="tensorflow", cudnn=">=9")) == []  # TF 2.16 uses cuDNN 8.9
    (f,) = judge(facts, rule(title="{cudnn}", framework="tensorflow", cudnn="<9"))
    assert f.evidence[0] == "tensorflow 2.16.1 uses cuDNN 8.9 (the cuDNN tensorflow 2.16.1 pins, per the matrix)"
    cpu = machine(**K80_PY310, tf=tf("2.16.1", is_cuda_build=False))
    assert judge(cpu, rule(framework="tensorflow", cudnn=">=0")) == []  # a CPU build bundles no cuDNN


def test_an_installed_build_outside_the_rule_is_not_excused_by_a_log():
    """The log shows the symptom, but the installed torch is not an affected release: the rule judges the build."""
    text = "ERROR: No matching distribution found for tensorrt==8.5.3.1"
    facts = dataclasses.replace(machine(**K80_PY310, torch=torch("2.4.1+cu121", "12.1")),
                                symptoms=(Symptom(kind="no-matching-distribution", text=text, subject="tensorrt8.5.3.1"),))
    assert judge(facts, rule(framework="torch", versions=">=2.5", symptom="no-matching-distribution")) == []
    assert len(judge(facts, rule(framework="torch", versions=">=2.4", symptom="no-matching-distribution"))) == 1


def test_a_symptom_rule_without_a_framework():
    (f,) = judge(_log("no-matching-distribution", "ERROR: No matching distribution found for x", "x"), rule(symptom="no-matching-distribution"))
    assert f.title == "|||||"  # no framework, no build, no condition read: every field empty, none "None"
    assert f.section is Section.TENSORFLOW


def test_the_variant_the_matrix_found_by_cuda_counts_without_a_local_tag():
    """torch 2.4.1 reporting CUDA 12.1 is the cu121 variant although its version string has no +cu121."""
    (f,) = judge(machine(**K80_PY310, torch=torch("2.4.1", "12.1")), rule(framework="torch", variant="cu121"))
    assert f.evidence[0] == "torch 2.4.1 is the cu121 variant"
