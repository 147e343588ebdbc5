"""The findings a pasted line proves by itself, as matrices/signatures.toml's [[finding]] entries list them (data, not
code), and the evidence lines every message rule quotes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding
from ._facts import gpu_presence, symptoms

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix
    from ..model import Symptom


def lines(found: list[Symptom]) -> tuple[str, ...]:
    """The symptoms' lines as evidence, each once, at most four."""
    seen: list[str] = []
    for s in found:
        if s.text not in seen:
            seen.append(s.text)
    return tuple(f"log: {text}" for text in seen[:4])


def log_rules(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    """The findings a symptom proves by itself. Where no NVIDIA GPU can be (a Mac, or one said to have none), a rule's
    ``without_nvidia_gpu`` severity stands: a library's CPU-only build is then what can run."""
    if not facts.symptoms or matrix is None:
        return
    mac = facts.host is not None and facts.host.os == "darwin"
    no_nvidia_gpu = mac or gpu_presence(facts) is False
    for rule in matrix.log_findings:
        found = symptoms(facts, rule.symptom)
        if not found:
            continue
        if no_nvidia_gpu and rule.without_nvidia_gpu is not None:
            where = "this is a Mac" if mac else "no NVIDIA GPU is here"
            yield Finding(rule.id, rule.without_nvidia_gpu, rule.section, rule.title,
                          lines(found) + rule.explanation + (f"{where}: a CPU-only build is what can run, so this is expected",), rule.fix)
            continue
        yield Finding(rule.id, rule.severity, rule.section, rule.title, lines(found) + rule.explanation, rule.fix)
