"""Facts only pasted text gives: the messages a log printed (symptoms) and evidence that disagrees (contradictions).
Split out of facts.py (gpudoctor.model exports them; docs/facts-format.md) so that a probe of this machine never
creates their classes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Symptom:
    """A message a framework or tool printed that states a fact ("libcudart.so.11.0: cannot open shared object
    file", "no kernel image is available"), read from a pasted log. ``kind`` is a stable key (evidence/messages.py)."""

    kind: str
    text: str
    framework: str | None = None  # "torch" | "tensorflow" | "jax" | None
    subject: str | None = None  # what it names: a library ("libcudnn.so.8"), an arch ("sm_120"), a package


@dataclass(frozen=True)
class Contradiction:
    """Two pieces of evidence that disagree about one fact; the first is kept, both are reported."""

    fact: str  # the snapshot key path, e.g. "driver.version"
    kept: str
    kept_from: str
    other: str
    other_from: str
