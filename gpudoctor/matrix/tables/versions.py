"""Version strings as the tools print them, compared as tuples: "570.124.04", "2.7.1+cu128", "12.8".

Pure functions, no I/O. Every comparison of versions in the matrix goes through ``vtuple``.
"""

from __future__ import annotations

import functools
import re
from typing import Iterable

_VERSION_RE = re.compile(r"\d+(?:\.\d+)*")


@functools.lru_cache(maxsize=4096)  # the same few hundred version strings are compared thousands of times a run
def vtuple(text: str) -> tuple[int, ...]:
    """"570.124.04" -> (570, 124, 4); "2.7.1+cu128" -> (2, 7, 1); "12.8" -> (12, 8). ValueError if not a version."""
    m = _VERSION_RE.match(text.strip()) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"not a version: {text!r}")
    return tuple(int(part) for part in m.group(0).split("."))


def try_vtuple(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        return vtuple(text)
    except ValueError:
        return None


@functools.lru_cache(maxsize=4096)  # as vtuple: every row's series is asked by every check (issue 23)
def series(text: str, parts: int = 2) -> str:
    """"2.7.1+cu128" -> "2.7"; "12.8.1" -> "12.8"."""
    return ".".join(str(p) for p in vtuple(text)[:parts])


def version_ge(a: str, b: str) -> bool:
    """a >= b, padding the shorter with zeros ("580" >= "580.0.0")."""
    return tuple_ge(vtuple(a), vtuple(b))


def tuple_ge(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """``version_ge`` for tuples already parsed."""
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)) >= b + (0,) * (n - len(b))


def python_span(pythons: Iterable[str]) -> str:
    """("2.7", "3.3", "3.4", "3.5") -> "2.7, 3.3–3.5": consecutive minors of one major as a range, majors apart."""
    ordered = sorted(set(pythons), key=vtuple)
    if not ordered:
        return "none"
    groups: list[list[str]] = []
    for p in ordered:
        last = groups[-1][-1] if groups else None
        if last and vtuple(last)[0] == vtuple(p)[0] and vtuple(p)[1:2] == (vtuple(last)[1] + 1,):
            groups[-1].append(p)
        else:
            groups.append([p])
    return ", ".join(g[0] if len(g) == 1 else f"{g[0]}–{g[-1]}" for g in groups)


def local_tag(version: str) -> str | None:
    """"2.7.1+cu128" -> "cu128"; "2.6.0" -> None."""
    return version.split("+", 1)[1].strip() if "+" in version else None


def cuda_tag(cuda: str) -> str:
    """"12.8" -> "cu128"; "11.8" -> "cu118"."""
    major, minor = vtuple(cuda)[:2]
    return f"cu{major}{minor}"


def exact_release(version: str, latest: str) -> str:
    """The exact release asked for ("2.7.1"), or the newest of the series for "2.7" (a query's answer)."""
    from packaging.version import InvalidVersion, Version

    try:
        asked = Version(version.split("+", 1)[0])
    except InvalidVersion:
        return latest
    return str(asked) if len(asked.release) >= 3 else latest
