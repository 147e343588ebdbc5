"""What a triage decided about an issue: name a cause, ask for output, or say nothing; and why."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..model import Finding, Report, Section


class Outcome(enum.Enum):
    """Which reply the issue gets. The value is the exit code of ``gpudoctor triage`` (README: "For maintainers"),
    chosen apart from 2 (usage or unreadable input) and 3 (gpudoctor itself failed)."""

    CAUSE = 0  # a reply naming the cause, its lines and its fix
    ASK = 4  # a reply asking for the output that would settle it; no cause named
    UNSURE = 5  # --only-when-sure and no cause it is sure of: nothing printed
    NOTHING = 6  # no machine evidence in the text, or nothing wrong in it: nothing printed


@dataclass(frozen=True)
class QuotedLine:
    """One line of the issue that shows the cause, as it was pasted (control characters removed), and where."""

    input: int  # which input (0 for the issue body)
    line: int  # 1-based, as an editor shows it
    text: str
    reader: str  # what read it there ("collect_env", "nvidia-smi table", ...)


@dataclass(frozen=True)
class Missing:
    """A section that could not be judged, and the one command whose output would settle it."""

    section: Section
    reason: str
    command: str


@dataclass(frozen=True)
class Triage:
    """The decision and what the reply is made of; ``report`` is the ordinary check of the same text."""

    outcome: Outcome
    report: Report
    cause: Finding | None = None  # set only when outcome is CAUSE
    quoted: tuple[QuotedLine, ...] = ()
    missing: tuple[Missing, ...] = ()
    doubt: str | None = None  # why a suspected cause is not named: it rests on stated facts, or a contradiction touches it
    doubt_commands: tuple[str, ...] = ()  # what would settle the doubt
