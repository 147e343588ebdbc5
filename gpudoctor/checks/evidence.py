"""The evidence itself: two pasted blocks that disagree about one fact are reported, never silently merged."""

from __future__ import annotations

import functools
from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity

_SECTION_OF = (("driver", Section.GPU), ("gpus", Section.GPU), ("pci_devices", Section.GPU), ("cuda_toolkits", Section.CUDA),
               ("libraries.libcudnn", Section.CUDNN), ("libraries", Section.CUDA), ("frameworks.torch", Section.TORCH),
               ("python_packages.torch", Section.TORCH), ("frameworks.tensorflow", Section.TENSORFLOW),
               ("python_packages.tensorflow", Section.TENSORFLOW))


@functools.lru_cache(maxsize=1024)  # a 1 MB paste has over a thousand contradictions about a few dozen facts
def section_of(key: str) -> Section:
    return next((section for prefix, section in _SECTION_OF if key.startswith(prefix)), Section.ENVIRONMENT)


_CONTRADICTION_FIX = Fix("Check which output is current (two environments, two machines, or an upgrade in between?) and "
                         "paste fresh output of `python -m torch.utils.collect_env` and `nvidia-smi` from the same shell")


def evidence_contradiction(facts: Facts, matrix: object) -> Iterator[Finding]:
    for c in facts.contradictions or ():
        yield Finding(
            "evidence-contradiction", Severity.WARNING, section_of(c.fact),
            f"The evidence disagrees about {c.fact}: {c.kept} or {c.other}",
            (f"{c.kept} ({c.kept_from}) — this value was used", f"{c.other} ({c.other_from})"),
            _CONTRADICTION_FIX,
        )


def evidence_not_recognised(facts: Facts, matrix: object) -> Iterator[Finding]:
    if facts.provenance != {} or facts.symptoms:
        return  # None: a probed machine; a non-empty dict: something was read
    yield Finding(
        "evidence-not-recognised", Severity.INFO, Section.ENVIRONMENT,
        "Nothing in this text describes the machine, so nothing could be judged",
        ("gpudoctor reads gpudoctor snapshots, collect_env, nvidia-smi (table, -q, -q -x, -L), nvcc --version, pip/conda "
         "lists, TensorFlow build info and device lists, and framework error lines",),
        Fix("Ask for the output of these two commands, run where the problem happens",
            ("python -m torch.utils.collect_env", "nvidia-smi")),
    )


def evidence_truncated(facts: Facts, matrix: object) -> Iterator[Finding]:
    for symptom in facts.symptoms or ():
        if symptom.kind == "input-truncated":
            yield Finding("evidence-truncated", Severity.INFO, Section.ENVIRONMENT,
                          "The input was longer than gpudoctor reads: the rest was not judged", (symptom.text,))


CHECKS = (evidence_contradiction, evidence_not_recognised, evidence_truncated)
