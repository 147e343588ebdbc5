"""python-version-no-wheel from pip's own lines: "No matching distribution found for torch==1.13.1" and "Could not
find a version that satisfies the requirement torch (from versions: ...)". pip's list holds only what has a wheel
for this interpreter and platform, so it says what the Python alone cannot."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from . import _builds as b

if TYPE_CHECKING:
    from ..model import Symptom
    from ..matrix.tables.model import Matrix


def python_version_no_wheel_from_message(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    if not facts.symptoms:
        return  # pip's lines are all it reads (a snapshot has none)
    from .pip_index import judged_requests

    explained = judged_requests(facts, matrix)  # pip looked in the wrong index: not the Python's fault
    from_list = list(_not_offered_by_pip(facts, matrix, explained))
    yield from from_list
    py = b.python_minor(facts)
    if matrix is None:
        return
    for symptom in _wanted_distributions(facts):
        if symptom.text in explained:
            continue
        name, op, version = re.match(r"([A-Za-z_-]*)(==|<=|>=|~=)?\s*(.*)", symptom.subject or "").groups()
        framework = "torch" if name == "torch" else "tensorflow" if name.startswith("tensorflow") else None
        version = "" if op == ">=" else version  # a lower bound names no release
        if framework is None:
            continue
        releases = matrix.torch if framework == "torch" else matrix.tensorflow
        release = (matrix.torch_release(version) if framework == "torch" else matrix.tf_release(version)) if version else None
        if py is None:
            if not from_list and (release is not None or not version) and not _some_offered(facts, name):
                yield _python_unknown(symptom, name, release)
            continue
        pythons = release.python if release else tuple(dict.fromkeys(p for r in releases for p in r.python))
        if py in pythons:
            continue
        what = f"{framework} {release.series}" if release else framework
        yield Finding(
            "python-version-no-wheel", Severity.ERROR, Section.TORCH if framework == "torch" else Section.TENSORFLOW,
            f"Python {py} has no wheel of {what}: pip finds nothing to install",
            (f"log: {symptom.text}", f"this Python is {facts.host.python}",
             f"{what} has wheels for Python {min(pythons, key=b.vt)}–{max(pythons, key=b.vt)}"),
            b.install_fix(facts, matrix, framework, f"Use a Python that {what} has wheels for, or a release built for Python {py}"),
        )


def _some_offered(facts: Facts, name: str) -> bool:
    """Whether pip listed versions of the package it could install here: then this Python has wheels of it."""
    return any((s.subject or "").startswith(f"{name}==") and (s.subject or "").partition("|")[2].strip() not in ("", "none")
               for s in (facts.symptoms or ()) if s.kind == "pip-offered-versions")


def _python_unknown(symptom: Symptom, name: str, release: object | None) -> Finding:
    """pip found no distribution of a release that was published (or of the package at all), and the paste does not
    say which Python asked: the interpreter or its platform is the usual reason, named as a warning with the Python
    range the release has wheels for."""
    section, url = ((Section.TORCH, b.TORCH_PREVIOUS_URL) if name == "torch" else (Section.TENSORFLOW, b.TF_PIP_URL))
    pythons = getattr(release, "python", ())
    span = f"{pythons[0]}–{pythons[-1]}" if pythons else ""
    what = f"{name} {release.series}" if release is not None else name  # type: ignore[attr-defined]
    return Finding(
        "python-version-no-wheel", Severity.WARNING, section,
        f"pip finds no {what} for this interpreter{f': it has wheels for Python {span} only' if span else ''}",
        (f"log: {symptom.text}",
         f"{what} was published{f' for Python {span}' if span else ''}; pip says so when this interpreter's Python version "
         "or platform (32-bit, ARM, macOS) has no wheel of it, the index URL has no such build, or pip is too old for the "
         "wheel's tag (pip before 19.0 cannot install manylinux2010 wheels)"),
        Fix(f"Use a Python {span} environment (64-bit) for {what}" if span else f"Check that this Python (64-bit, its version) has {name} wheels, and the index URL",
            ("python -c \"import sys, struct, platform; print(sys.version, struct.calcsize('P') * 8, 'bit', platform.machine())\"",), url),
    )


def _wanted_distributions(facts: Facts) -> list[Symptom]:
    """pip's "No matching distribution found for X" lines, and its "Could not find a version that satisfies the
    requirement X (from versions: ...)" lines read as the same request (one finding per request)."""
    out = [s for s in (facts.symptoms or ()) if s.kind == "no-matching-distribution"]
    for s in (s for s in (facts.symptoms or ()) if s.kind == "pip-offered-versions"):
        wanted = (s.subject or "").partition("|")[0].rstrip("=")
        if not any(o.subject == wanted for o in out):
            from ..model import Symptom  # a paste's class, created where a paste gave symptoms

            out.append(Symptom("no-matching-distribution", s.text, s.framework, wanted))
    return out


def _not_offered_by_pip(facts: Facts, matrix: "Matrix | None", explained: set[str]) -> Iterator[Finding]:
    """pip's "(from versions: ...)" lists only what has a wheel for this Python and platform: a published release
    missing from it has no wheel here. The Python itself need not be in the paste, and where it is, pip's list still
    wins over the matrix's Python range, which does not say per platform (torch 1.13 had Python 3.11 wheels for Linux
    only)."""
    python_known = b.python_minor(facts) is not None
    for symptom in (s for s in (facts.symptoms or ()) if s.kind == "pip-offered-versions" and s.text not in explained):
        wanted, _, offered = (symptom.subject or "").partition("|")
        name, _, version = wanted.partition("==")
        framework = "torch" if name == "torch" else "tensorflow"
        if offered.strip() == "none":
            if not (python_known and _judged_by_the_matrix(facts, matrix, name, version)):
                yield _nothing_offered(symptom, name, facts.host.python if python_known else None)
            continue
        if python_known and _judged_by_the_matrix(facts, matrix, name, version):
            continue  # the rule above names this Python already
        if not version:
            continue
        release = None
        if matrix is not None:
            release = matrix.torch_release(version) if framework == "torch" else matrix.tf_release(version)
        if release is None or version in offered.replace(" ", "").split(","):
            continue
        section = Section.TORCH if framework == "torch" else Section.TENSORFLOW
        if python_known:  # the matrix says this Python has the release's wheels: the platform has none
            yield _no_wheel_for_platform(symptom, name, version, release, facts.host.python, matrix)
            continue
        yield Finding(
            "python-version-no-wheel", Severity.ERROR, section,
            f"{name} {version} exists, but not for this Python or platform: pip offers only other versions",
            (f"log: {symptom.text}", f"{framework} {release.series} has wheels for Python {release.python[0]}–{release.python[-1]}",
             "pip's 'from versions' list holds only releases with a wheel for this interpreter"),
            Fix(f"Use a Python {release.python[0]}–{release.python[-1]} environment for {name} {version}, or install one of the versions pip offers",
                (f"python{release.python[-1]} -m venv .venv && . .venv/bin/activate && pip install '{wanted}'",), b.TORCH_PREVIOUS_URL
                if framework == "torch" else b.TF_PIP_URL),
        )


def _no_wheel_for_platform(symptom: Symptom, name: str, version: str, release: object, python: str, matrix: "Matrix | None") -> Finding:
    tf = name.startswith("tensorflow")
    last = getattr(matrix, "tf_windows_gpu_last", None) if tf else None
    windows = (f"; on native Windows TensorFlow's GPU builds end at {last} (later ones: WSL2)"
               if last and b.vt(version) and b.vt(version)[:2] > b.vt(last)[:2] else "")
    return Finding(
        "python-version-no-wheel", Severity.ERROR, Section.TENSORFLOW if tf else Section.TORCH,
        f"{name} {version} exists, but has no wheel for this platform (Python {python} fits it): pip offers only other versions",
        (f"log: {symptom.text}", f"{name.split('-')[0]} {release.series} has wheels for Python {release.python[0]}–{release.python[-1]}",
         "pip's 'from versions' list holds only releases with a wheel for this interpreter and platform"),
        Fix(f"Install one of the versions pip offers, or use a platform {name} {version} has wheels for{windows}", (),
            b.TF_PIP_URL if tf else b.TORCH_PREVIOUS_URL),
    )


def _judged_by_the_matrix(facts: Facts, matrix: "Matrix | None", name: str, version: str) -> bool:
    """Whether the rule above already names this Python as having no wheel of the package (then it speaks)."""
    if matrix is None or name not in ("torch", "tensorflow", "tensorflow-gpu", "tensorflow-cpu"):
        return False
    release = matrix.torch_release(version) if name == "torch" and version else matrix.tf_release(version) if version else None
    releases = matrix.torch if name == "torch" else matrix.tensorflow
    pythons = release.python if release else tuple(p for r in releases for p in r.python)
    return b.python_minor(facts) not in pythons


def _nothing_offered(symptom: Symptom, name: str, python: str | None) -> Finding:
    """"(from versions: none)": pip sees no wheel of the package at all for this interpreter and platform: the
    cause is named with its usual alternatives (a wrong index URL gives the same line), as a warning."""
    section, url = ((Section.TENSORFLOW, b.TF_PIP_URL) if name.startswith("tensorflow") else
                    (Section.JAX, "https://docs.jax.dev/en/latest/installation.html") if name.startswith("jax") else
                    (Section.TORCH, b.TORCH_URL))
    return Finding(
        "python-version-no-wheel", Severity.WARNING, section,
        f"pip finds no {name} wheel at all for this Python{f' ({python})' if python else ''} and platform",
        (f"log: {symptom.text}",
         "'from versions: none' means the index has no wheel for this interpreter: most often a Python newer (or older) "
         "than the release supports, a 32-bit Python, or an index URL without that build"),
        Fix(f"Check the Python (64-bit, a version {name} publishes wheels for) and the index URL",
            ("python -c \"import sys, struct; print(sys.version, struct.calcsize('P') * 8, 'bit')\"",), url),
    )


CHECKS = (python_version_no_wheel_from_message,)
