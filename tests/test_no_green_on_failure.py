"""No section reads ✓ while the facts prove it broken (issue 20): every thread of the development corpus, every
snapshot fixture, the examples and the real H200 host's captures are judged, and each section whose facts alone
prove a failure must be anything but OK. The failure rules here are deliberately independent of the checks: they
say what a maintainer would call broken from the facts, not how gpudoctor finds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.checks._facts import gpu_presence, torch_build_kind
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.model import arch_support
from gpudoctor.model import Facts, Section, Status

from .evidence.corpus import diagnose, threads

ROOT = Path(__file__).resolve().parent.parent
H200 = ROOT.parent / "shared" / "fixtures" / "h200-host"
FAILING_SYMPTOMS = {  # a framework's own line that it cannot use the GPU, and the section it belongs to
    "driver-too-old": Section.TORCH, "arch-not-in-build": None, "cudnn-loaded-mismatch": Section.CUDNN,
    "torch-not-compiled-with-cuda": Section.TORCH, "numpy-abi": None, "jax-cuda-backend-failed": Section.JAX,
}


def proven_failures(facts: Facts) -> dict[Section, str]:
    out: dict[Section, str] = {}
    present = gpu_presence(facts)
    torch = facts.frameworks.torch if facts.frameworks else None
    jax = facts.frameworks.jax if facts.frameworks else None
    if present and torch and torch_build_kind(torch) == "cpu" and not (facts.host and facts.host.os == "darwin"):
        out[Section.TORCH] = "a CPU-only torch on a machine with an NVIDIA GPU"
    if present and torch and torch.arch_list and facts.gpus:
        for gpu in facts.gpus:
            if gpu.compute_capability and arch_support(tuple(torch.arch_list), gpu.compute_capability) is None:
                out[Section.TORCH] = f"torch's arch list has no code for compute capability {gpu.compute_capability}"
    if present and jax and jax.build == "cpu" and facts.host and facts.host.os == "linux":
        out[Section.JAX] = "the CPU build of JAX on a Linux machine with an NVIDIA GPU"
    for symptom in facts.symptoms or ():
        section = FAILING_SYMPTOMS.get(symptom.kind, "absent")
        if section is None and symptom.framework in ("torch", "tensorflow"):
            section = Section.TORCH if symptom.framework == "torch" else Section.TENSORFLOW
        if isinstance(section, Section):
            out.setdefault(section, f"the log says so: {symptom.text[:80]}")
    return out


def _inputs():
    for thread in threads():
        yield pytest.param(lambda t=thread: diagnose(t), id=f"thread-{thread.name}")
    for path in sorted((ROOT / "tests" / "data" / "facts").glob("*.json")) + sorted((ROOT / "examples").glob("*.json")):
        yield pytest.param(lambda p=path: run_checks(read_evidence(p.read_text(), p.name), load_matrix(), p.name), id=path.name)
    for name in ("snap.json", "collect_env.txt", "nvidia-smi.txt", "nvidia-smi-q.txt", "pip-list.txt"):
        if (H200 / name).exists():
            yield pytest.param(lambda n=name: run_checks(read_evidence((H200 / n).read_text(), n), load_matrix(), n), id=f"h200-{name}")


@pytest.mark.parametrize("judge", list(_inputs()))
def test_no_section_is_green_where_the_facts_prove_a_failure(judge):
    report = judge()
    status = {s.section: s.status for s in report.sections}
    green = {section: why for section, why in proven_failures(report.facts).items() if status.get(section) is Status.OK}
    assert green == {}, green


def test_the_rule_can_fail():
    from gpudoctor.model import Driver, Frameworks, Gpu, TorchBuild

    facts = Facts(gpus=(Gpu(index=0, name="NVIDIA GeForce RTX 3090", compute_capability="8.6"),), driver=Driver(version="550.54.14"),
                  frameworks=Frameworks(torch=TorchBuild(version="2.3.0+cpu")))
    assert proven_failures(facts) == {Section.TORCH: "a CPU-only torch on a machine with an NVIDIA GPU"}
    assert {s.section: s.status for s in run_checks(facts, load_matrix()).sections}[Section.TORCH] is Status.ERROR
