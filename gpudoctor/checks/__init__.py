"""Checks judge, never observe: each is a pure function (Facts, Matrix) -> findings, with no subprocess, no
environment, no file reads and no framework import. The registry is an explicit ordered list: the order here is
the order of the report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, NamedTuple

import dataclasses

from ..model import CheckCrash, Facts, Finding, Report, Section, Severity

if TYPE_CHECKING:
    from ..matrix import Matrix

CheckFunction = Callable[[Facts, "Matrix | None"], Iterable[Finding]]


class RegisteredCheck(NamedTuple):
    """A check function as the registry holds it: its name and the report section it judges."""
    name: str  # the function's name, for --list and crash reports
    function: CheckFunction
    section: Section | None = None


def registry() -> tuple[RegisteredCheck, ...]:
    modules = _REGISTRY.get("modules")
    if modules is None:
        _REGISTRY["modules"] = modules = _modules()
    # Built once while the modules' CHECKS stay the same objects (a fleet judges thousands of snapshots; a test that
    # replaces a module's CHECKS gets a registry of its own).
    current = tuple(module.CHECKS for module in modules)
    built = _REGISTRY.get("built")
    if built is not None and len(built[0]) == len(current) and all(a is b for a, b in zip(built[0], current)):
        return built[1]
    checks = tuple(RegisteredCheck(fn.__name__, fn, _SECTIONS.get(module.__name__.rsplit(".", 1)[-1])) for module in modules for fn in module.CHECKS)
    _REGISTRY["built"] = (current, checks)
    return checks


def _modules() -> list:
    # Imported here so that loading the package costs nothing until checks run (and once: a fleet judges 10,000).
    from . import (
        amd,
        arch,
        conda_requests,
        cudnn_majors,
        environment,
        evidence,
        frameworks,
        gpu,
        gpu_variants,
        health,
        jax,
        jax_platform,
        keras,
        known_broken,
        messages,
        pip_index,
        pip_messages,
        platforms_apple,
        platforms_jetson,
        platforms_misc,
        prerelease,
        rocm_builds,
        rocm_wsl,
        shell,
        shm,
        tensorflow_libs,
        tensorflow_toolkit,
        tensorflow_windows,
        toolkit_targets,
        versions,
        xid,
    )

    # The fact rules first, then the rules over pasted log lines (their findings merge into the fact rules' ones).
    modules = [
        gpu,
        xid,
        health,
        amd,
        rocm_wsl,
        environment,
        shm,
        frameworks,
        conda_requests,
        rocm_builds,
        prerelease,
        versions,
        arch,
        known_broken,
        tensorflow_libs,
        tensorflow_toolkit,
        tensorflow_windows,
        toolkit_targets,
        keras,
        platforms_apple,
        platforms_jetson,
        platforms_misc,
        gpu_variants,
        shell,
        jax,
        jax_platform,
        messages,
        cudnn_majors,
        pip_index,
        pip_messages,
        evidence,
    ]
    return modules


_REGISTRY: dict = {}  # "modules" -> the check modules in order; "built" -> (each module's CHECKS, the registry built from them)


# Which section a crashed check leaves unjudged (a module's checks report into this section, mostly).
_SECTIONS = {
    "gpu": Section.GPU,
    "amd": Section.GPU,
    "rocm_wsl": Section.GPU,
    "xid": Section.GPU,
    "health": Section.GPU,
    "rocm_builds": Section.TORCH,
    "environment": Section.ENVIRONMENT,
    "shm": Section.ENVIRONMENT,
    "frameworks": Section.TORCH,
    "conda_requests": Section.TORCH,
    "prerelease": Section.TORCH,
    "versions": Section.TORCH,
    "arch": Section.TORCH,
    "known_broken": Section.TORCH,
    "tensorflow_libs": Section.TENSORFLOW,
    "tensorflow_toolkit": Section.TENSORFLOW,
    "tensorflow_windows": Section.TENSORFLOW,
    "toolkit_targets": Section.CUDA,
    "keras": Section.TENSORFLOW,
    "platforms_apple": Section.GPU,
    "platforms_jetson": Section.GPU,
    "platforms_misc": Section.ENVIRONMENT,
    "gpu_variants": Section.ENVIRONMENT,
    "shell": Section.ENVIRONMENT,
    "jax": Section.JAX,
    "jax_platform": Section.JAX,
    "messages": Section.GPU,
    "cudnn_majors": Section.CUDNN,
    "pip_index": Section.TORCH,
    "pip_messages": Section.TORCH,
    "evidence": Section.ENVIRONMENT,
}


def run_checks(facts: Facts, matrix: "Matrix | None" = None, source: str = "this machine", ignore: frozenset[str] = frozenset()) -> Report:
    """Every check over the facts; findings whose id is in ``ignore`` are left out before causes and section status
    are worked out (an ignored finding never leads the report)."""
    from .causes import link, primary
    from .coverage import sections
    from .derive import derive

    facts = derive(facts, matrix)  # derived facts, once, before any check (each says why in the provenance)
    findings: list[Finding] = []
    crashes: list[CheckCrash] = []
    crashed: set[Section] = set()
    for check in registry():
        try:
            findings.extend(check.function(facts, matrix))
        except Exception as exc:  # noqa: BLE001 - a crash becomes a result (Flutter's crash validator)
            import traceback

            where = traceback.extract_tb(exc.__traceback__)[-1]
            crashes.append(CheckCrash(check.name, f"{type(exc).__name__}: {exc} ({where.filename.rsplit('/', 1)[-1]}:{where.lineno})"))
            if check.section:
                crashed.add(check.section)
    merged = link(tuple(f for f in merge_duplicates(findings) if f.id not in ignore))
    reviewed = getattr(matrix, "reviewed", None)
    return Report(facts, merged, tuple(crashes), reviewed, source, sections(merged, facts, frozenset(crashed)), primary(merged))


def merge_duplicates(findings: list[Finding]) -> tuple[Finding, ...]:
    """One finding per (id, section): a later one (e.g. from a log line) adds its evidence to the first."""
    out: dict[tuple[str, object], Finding] = {}
    merged: dict[tuple[str, object], tuple[list[str], set[str], list[Severity]]] = {}  # evidence so far, as a set, severities
    for finding in findings:
        key = (finding.id, finding.section)
        first = out.get(key)
        if first is None:
            out[key] = finding
            continue
        if key not in merged:
            merged[key] = (list(first.evidence), set(first.evidence), [first.severity])
        evidence, seen, severities = merged[key]
        extra = [line for line in finding.evidence if line not in seen]  # built once: a paste has thousands of lines
        evidence += extra
        seen.update(extra)
        severities.append(finding.severity)
    for key, (evidence, _, severities) in merged.items():
        out[key] = dataclasses.replace(out[key], evidence=tuple(evidence), severity=max(severities))
    return tuple(out.values())
