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
from gpudoctor.matrix.tables.model import arch_support
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
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    for section, arch in ((Section.TORCH, torch.arch_list if torch else None), (Section.TENSORFLOW, tf.compute_capabilities if tf else None)):
        for gpu in facts.gpus or () if present and arch else ():
            cc = gpu.compute_capability or load_matrix().gpu_compute_capability(gpu.name or "")
            if cc and arch_support(tuple(arch), cc) is None:
                out[section] = f"the build's arch list has no code for compute capability {cc}"
    if present and jax and jax.build == "cpu" and facts.host and facts.host.os == "linux":
        out[Section.JAX] = "the CPU build of JAX on a Linux machine with an NVIDIA GPU"
    mac = facts.host is not None and facts.host.os == "darwin"
    for symptom in facts.symptoms or ():
        if mac and symptom.kind == "torch-not-compiled-with-cuda":
            continue  # no torch for macOS has CUDA: the line says the program asked for CUDA, not that torch is broken
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


RTX5090_SMI = """+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.124.04             Driver Version: 570.124.04     CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 5090        Off |   00000000:01:00.0  On |                  N/A |
|  0%   38C    P8             21W /  575W |    1021MiB /  32607MiB |      2%      Default |
+-----------------------------------------+------------------------+----------------------+
"""


@pytest.mark.parametrize("arch_line", [
    # torch's own line without its version (https://github.com/gpustack/gpustack/issues/1324 prints it)
    "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
    # a printed torch.cuda.get_arch_list() (https://github.com/pytorch/pytorch/issues/182250 shows this list)
    "['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90']",
])
def test_an_arch_list_without_a_version_is_judged(arch_line):
    """Issue 20, class 1: an arch list alone decides the arch rule and proves a CUDA build; never a green tick."""
    report = run_checks(read_evidence(RTX5090_SMI + arch_line + "\n"), load_matrix())
    finding = next(f for f in report.findings if f.id == "gpu-arch-not-in-build")
    assert finding.severity.label == "error" and "version unknown" in finding.title
    assert {s.section: s.status for s in report.sections}[Section.TORCH] is Status.ERROR
