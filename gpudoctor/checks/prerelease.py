"""A nightly or pre-release framework build: the matrix describes releases, so say what the judgement assumed."""

from __future__ import annotations

import re
from typing import Iterator

from ..model import Facts, Finding, Section, Severity

_LETTER_BEFORE_LOCAL = re.compile(r"^[^+]*[A-Za-z]")  # "2.9.0.dev20250801+cu128", "2.8.0rc1"; not "2.7.1+cu128"


def prerelease_kind(version: str) -> str | None:
    """"nightly" | "pre-release" | None, by PEP 440 (packaging). None also for text that is no PEP 440 version."""
    if not _LETTER_BEFORE_LOCAL.match(version):
        return None  # the common case, decided without importing packaging (its import costs the check budget)
    from packaging.version import InvalidVersion, Version

    try:
        parsed = Version(version)
    except (InvalidVersion, ValueError):  # ValueError: a component longer than int() reads (untrusted text)
        return None
    if parsed.is_devrelease:
        return "nightly"
    return "pre-release" if parsed.is_prerelease else None


def framework_prerelease(facts: Facts, matrix: object) -> Iterator[Finding]:
    frameworks = facts.frameworks
    for name, section, build in (("torch", Section.TORCH, frameworks and frameworks.torch),
                                 ("tensorflow", Section.TENSORFLOW, frameworks and frameworks.tensorflow)):
        version = getattr(build, "version", None) or (facts.python_packages or {}).get(name)
        kind = prerelease_kind(version) if isinstance(version, str) else None
        if kind is None:
            continue
        release = re.match(r"\d+\.\d+", version)
        series = release.group(0) if release else version
        yield Finding(
            "framework-prerelease-build", Severity.INFO, section,
            f"{name} {version} is a {kind} build: it is judged as the {name} {series} release the matrix describes",
            (f"{name} {version}: PEP 440 {kind}; its CUDA variants, arch list and driver needs may differ from {series}'s",),
        )


CHECKS = (framework_prerelease,)
