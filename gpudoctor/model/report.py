"""Findings and reports: what the checks judged from the facts."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .facts import Facts

REPORT_SCHEMA = "gpudoctor.report/1"



class Severity(enum.IntEnum):
    OK = 0
    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class Section(enum.Enum):
    """Report sections, in print order."""

    GPU = "GPU and driver"
    CUDA = "CUDA toolkit"
    CUDNN = "cuDNN"
    TORCH = "PyTorch"
    TENSORFLOW = "TensorFlow"
    JAX = "JAX"
    ENVIRONMENT = "Environment"


@dataclass(frozen=True)
class Fix:
    """How to resolve a finding: a summary, the exact commands, and a page that explains it."""
    summary: str
    commands: tuple[str, ...] = ()
    url: str | None = None


@dataclass(frozen=True)
class Finding:
    """One judgement about the machine: a stable id, a severity, the evidence and the fix."""
    id: str  # stable kebab-case id (shared/facts-format.md); never changes meaning
    severity: Severity
    section: Section
    title: str
    evidence: tuple[str, ...] = ()
    fix: Fix | None = None
    explains: tuple[str, ...] = ()  # ids of other findings in the report that this one causes


class Status(enum.Enum):
    """A section's verdict, as data (Flutter's ValidationType): not applicable is not a failure, and not judged is
    not healthy."""

    OK = "ok"
    NOTE = "note"
    WARNING = "warning"
    ERROR = "error"
    NOT_APPLICABLE = "not applicable"
    NOT_JUDGED = "not judged"
    CRASHED = "crashed"


@dataclass(frozen=True)
class SectionResult:
    """How one report section came out: judged, not judged or not applicable, and why."""
    section: Section
    status: Status
    reason: str | None = None  # for not judged: what would fill it; for not applicable: why


@dataclass(frozen=True)
class CheckCrash:
    """A check that raised: reported as data (Flutter's crash result), never a dead doctor."""

    check: str
    error: str


@dataclass(frozen=True)
class Report:
    """The judged result of a check run: the facts, the findings and any crashed checks."""
    facts: Facts
    findings: tuple[Finding, ...]
    crashes: tuple[CheckCrash, ...] = ()
    matrix_reviewed: str | None = None
    source: str = "this machine"  # or the snapshot file it was read from
    sections: tuple[SectionResult, ...] = ()
    primary: str | None = None  # the id of the finding that explains the most, shown first

    @property
    def worst(self) -> Severity:
        return max((f.severity for f in self.findings), default=Severity.OK)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)


class ExitCode(enum.IntEnum):
    OK = 0
    PROBLEMS = 1  # an error finding (or a warning with --strict), or a failed smoke test
    USAGE = 2  # click's convention: bad options or unreadable input
    INTERNAL = 3  # gpudoctor itself failed (a check crashed)


def exit_code(report: Report, strict: bool = False) -> ExitCode:
    if report.crashes:
        return ExitCode.INTERNAL
    threshold = Severity.WARNING if strict else Severity.ERROR
    return ExitCode.PROBLEMS if report.worst >= threshold else ExitCode.OK

