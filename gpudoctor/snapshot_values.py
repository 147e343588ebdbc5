"""Spellings people write in a hand-made or pasted snapshot, read as the format's own.

A compute capability is ``"8.6"`` in the format, but a user copying from an arch list writes ``"sm_86"``; a CUDA
version is ``"12.1"``, but a wheel tag says ``"cu121"``. Both are the same fact, so they are normalised when the
snapshot is read. A value that is no spelling of the fact at all (``"weird"``) becomes unknown (None), and a
ProbeError says so, so it shows in the report instead of crashing or misleading a check.
"""

from __future__ import annotations

import dataclasses
import re

from .model import Driver, Facts, Frameworks, ProbeError

_CC_DOTTED = re.compile(r"\s*(\d{1,3})\.(\d{1,3})\s*")
_CC_TAG = re.compile(r"\s*(?:sm|compute|cc)?_?(\d{1,4})[a-z]?\s*", re.IGNORECASE)
_CUDA_TAG = re.compile(r"\s*(?:cu|cuda)[_ ]?(\d{2,4})\s*", re.IGNORECASE)
_VERSION_START = re.compile(r"\s*\d{1,4}(?:\.\d|\s*$)")  # "12.8", "12.4.131", "12.8 (r570)": read by the checks as they are


def compute_capability(value: str) -> str | None:
    """"8.6", "sm_86", "compute_86", "86", "sm_90a" -> "8.6"/"9.0"; "sm_120" -> "12.0"; None when it is not one."""
    m = _CC_DOTTED.fullmatch(value)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}"
    m = _CC_TAG.fullmatch(value)
    if not m:
        return None
    digits = m.group(1).lstrip("0") or "0"
    if len(digits) == 1:
        return f"{digits}.0"
    return f"{int(digits[:-1])}.{digits[-1]}"


def cuda_version(value: str) -> str | None:
    """"12.1" stays; "CUDA 12.1" -> "12.1"; "cu121" -> "12.1", "cu90" -> "9.0"; "cuda12" -> "12"; None when it is not one."""
    m = _CUDA_TAG.fullmatch(value)
    if m:
        digits = m.group(1)
        if len(digits) == 2 and digits[0] == "1":  # "cuda12" is CUDA 12 (as in cupy-cuda12x): there was no CUDA 1.x
            return digits
        return f"{int(digits[:-1])}.{digits[-1]}"
    if _VERSION_START.match(value):
        return value
    m = re.fullmatch(r"\s*cuda[ _]?(\d{1,4}\.\d.*)", value, re.IGNORECASE)
    return m.group(1).strip() if m else None


def _with(value, **changes):
    """``dataclasses.replace``, or the value itself when it already holds these values (a snapshot's facts are mostly
    normal already: a fleet reads 10,000 of them, issue 23)."""
    if all(type(getattr(value, k)) is type(v) and getattr(value, k) == v for k, v in changes.items()):
        return value
    return dataclasses.replace(value, **changes)


def normalise(facts: Facts) -> Facts:
    errors: list[ProbeError] = []

    def fix(value: str | None, read, key: str, what: str) -> str | None:
        if value is None:
            return None
        normal = read(value)
        if normal is None:
            errors.append(ProbeError("snapshot", f"{key} {value[:60]!r} is not {what}: read as unknown"))
        return normal

    changes: dict[str, object] = {}
    if facts.gpus:
        gpus = tuple(_with(g, compute_capability=fix(g.compute_capability, compute_capability,
                                                     f"gpus[{i}].compute_capability", "a compute capability"))
                     for i, g in enumerate(facts.gpus))
        if gpus != facts.gpus:
            changes["gpus"] = gpus
    if facts.driver and facts.driver.cuda_version is not None:
        d: Driver = facts.driver
        changes["driver"] = _with(d, cuda_version=fix(d.cuda_version, cuda_version, "driver.cuda_version", "a CUDA version"))
    if facts.cuda_toolkits:
        changes["cuda_toolkits"] = tuple(
            _with(t, version=fix(t.version, cuda_version, f"cuda_toolkits[{i}].version", "a CUDA version"))
            for i, t in enumerate(facts.cuda_toolkits))
    fw: Frameworks | None = facts.frameworks
    if fw and fw.torch and fw.torch.cuda is not None:
        fw = _with(fw, torch=_with(
            fw.torch, cuda=fix(fw.torch.cuda, cuda_version, "frameworks.torch.cuda", "a CUDA version")))
    if fw and fw.tensorflow and fw.tensorflow.cuda is not None:
        fw = _with(fw, tensorflow=_with(
            fw.tensorflow, cuda=fix(fw.tensorflow.cuda, cuda_version, "frameworks.tensorflow.cuda", "a CUDA version")))
    if fw is not facts.frameworks:
        changes["frameworks"] = fw
    if errors:
        changes["probe_errors"] = facts.probe_errors + tuple(errors)
    return _with(facts, **changes) if changes else facts


