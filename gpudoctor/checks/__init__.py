"""Checks judge, never observe: each is a pure function (Facts, Matrix) -> findings, with no subprocess, no
environment, no file reads and no framework import. The registry is an explicit ordered list: the order here is
the order of the report."""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from ..model import CheckCrash, Facts, Finding, Report

if TYPE_CHECKING:
    from ..matrix import Matrix

CheckFunction = Callable[[Facts, "Matrix | None"], Iterable[Finding]]


@dataclass(frozen=True)
class Check:
    name: str  # the function's name, for --list and crash reports
    function: CheckFunction


def registry() -> tuple[Check, ...]:
    # Imported here so that loading the package costs nothing until checks run.
    from . import arch, environment, frameworks, gpu, tensorflow_libs, versions

    modules = [gpu, environment, frameworks, versions, arch, tensorflow_libs]
    return tuple(Check(fn.__name__, fn) for module in modules for fn in module.CHECKS)


def run_checks(facts: Facts, matrix: "Matrix | None" = None, source: str = "this machine") -> Report:
    findings: list[Finding] = []
    crashes: list[CheckCrash] = []
    for check in registry():
        try:
            findings.extend(check.function(facts, matrix))
        except Exception as exc:  # noqa: BLE001 - a crash becomes a result (Flutter's crash validator)
            where = traceback.extract_tb(exc.__traceback__)[-1]
            crashes.append(CheckCrash(check.name, f"{type(exc).__name__}: {exc} ({where.filename.rsplit('/', 1)[-1]}:{where.lineno})"))
    reviewed = getattr(matrix, "reviewed", None)
    return Report(facts, tuple(findings), tuple(crashes), reviewed, source)
