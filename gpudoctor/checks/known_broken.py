"""known-broken-combination: one generic rule over matrices/known_broken.toml (gpudoctor.matrix.tables.broken).

A combination that installs and imports and still fails (a wheel's PTX that the driver cannot JIT for a GPU, a
bundled cuDNN without kernels for the GPU's architecture, an extra whose pin has no wheel for this Python) is
data with its sources; this check only matches the facts against each rule. A condition whose fact is unknown
does not hold, so a missing fact never raises the alarm.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from . import _builds as b
from ._facts import cudnn_version

if TYPE_CHECKING:
    from ..matrix.tables.broken import BrokenRule
    from ..matrix.tables.model import Matrix


def known_broken_combination(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    rules = getattr(matrix, "known_broken", ()) if matrix is not None else ()
    if not rules:
        return
    builds = b.builds(facts, matrix)
    for rule in rules:
        candidates: list[b.Build | None] = [x for x in builds if x.framework == rule.framework] if rule.framework else []
        if not candidates and rule.symptom:
            candidates = [None]  # the install itself failed: the log is the evidence
        for build in candidates:
            finding = _judge(rule, build, facts, matrix)
            if finding is not None:
                yield finding
                break


def _judge(rule: "BrokenRule", build: "b.Build | None", facts: Facts, matrix: "Matrix") -> Finding | None:
    from ..matrix.tables.broken import in_range

    evidence: list[str] = []
    values = {"framework": rule.framework or "", "version": "", "gpu": "", "cc": "", "python": "", "cudnn": ""}
    if build is not None:
        values["version"] = build.version
        if rule.versions:
            if not in_range(build.version, rule.versions):
                return None
            evidence.append(f"{build.label} installed ({rule.framework} {rule.versions} is affected)")
        if rule.variant:
            # the version's own tag first: a local build's CUDA may match a variant, which does not make it that wheel
            tag = build.version.split("+", 1)[1] if "+" in build.version else (build.torch_variant.tag if build.torch_variant else None)
            if tag != rule.variant:
                return None
            evidence.append(f"{build.label} is the {rule.variant} variant")
        if rule.cudnn:
            cudnn, where = _build_cudnn(build, facts, matrix)
            if not in_range(cudnn, rule.cudnn):
                return None
            values["cudnn"] = cudnn or ""
            evidence.append(f"{build.label} uses cuDNN {cudnn} ({where})")
    elif rule.versions or rule.variant or rule.cudnn:
        pass  # attempted, not installed: the symptom stands for the release; version conditions cannot be read
    if rule.python:
        python = facts.host.python if facts.host else None
        if not in_range(python, rule.python):
            return None
        values["python"] = b.python_minor(facts) or python or ""
        evidence.append(f"this Python is {python}")
    if rule.symptom:
        pattern = re.compile(rule.subject) if rule.subject else None
        hit = next((s for s in facts.symptoms or () if s.kind == rule.symptom
                    and (pattern is None or pattern.search(s.subject or "") or pattern.search(s.text or ""))), None)
        if hit is None:
            return None
        evidence.append(f"log: {hit.text}")
    if rule.gpu_cc:
        gpu = next((g for g in facts.gpus or () if in_range(b.gpu_cc(g, matrix), rule.gpu_cc)), None)
        if gpu is None:
            return None
        cc = b.gpu_cc(gpu, matrix)
        values["gpu"], values["cc"] = b.gpu_name(gpu), cc or ""
        evidence.append(f"{b.gpu_name(gpu)} has compute capability {cc}" + ("" if gpu.compute_capability else " (from its name)"))
    evidence.append(rule.why)
    evidence.append(f"known-broken rule {rule.key} (matrices/known_broken.toml): " + ", ".join(rule.sources))
    section = build.section if build is not None else (Section.TORCH if rule.framework == "torch" else Section.TENSORFLOW)
    return Finding(
        "known-broken-combination", Severity.ERROR, section,
        rule.title.format(**values), tuple(evidence),
        Fix(rule.fix, rule.commands, rule.url),
    )


def _build_cudnn(build: "b.Build", facts: Facts, matrix: "Matrix") -> tuple[str | None, str]:
    """The cuDNN a build uses: the running build's report, else the pin of the wheel the matrix describes. A build
    the wheels table does not describe (a tag like +cu999, a local +git build, a conda build whose CUDA is not the
    default wheel's) has no known pin: guessing the default wheel's would turn a guess into an error."""
    fw = facts.frameworks.torch if build.framework == "torch" and facts.frameworks else None
    reported = getattr(fw, "cudnn", None) if fw is not None else None
    if reported:
        return cudnn_version(str(reported)), "reported by the installed build"
    if build.framework != "torch":
        return (build.cudnn, f"the cuDNN {build.label} pins, per the matrix") if build.cudnn else (None, "unknown")
    release, variant = build.torch_release, build.torch_variant
    tag = build.version.split("+", 1)[1] if "+" in build.version else None
    if release is None or not (tag is None or (variant is not None and variant.tag == tag)):
        return None, "unknown"
    if tag is None and variant is not None and variant.tag != release.default_linux:
        return None, "unknown"  # an untagged build on another CUDA than the default wheel's is no wheel of the table
    if build.cudnn:
        return build.cudnn, f"the cuDNN {build.label} pins, per the matrix"
    if tag in (None, release.default_linux):
        wheel = matrix.wheel("torch", build.version)
        if wheel is not None and wheel.cudnn_pin:
            return wheel.cudnn_pin, f"the nvidia-cudnn pin of the published wheel ({wheel.source})"
    return None, "unknown"


CHECKS = (known_broken_combination,)
