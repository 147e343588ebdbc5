"""What a finding rests on, found by taking evidence away: a cause rests on printed output when the checks still
reach it from the printed observations alone; a pasted line shows it when, without that line's fact, they no longer
do; a contradiction touches it when the cause does not survive either leaving the disputed fact out or taking the
other value. Nothing here needs to know which facts a check reads: the checks themselves are asked again."""

from __future__ import annotations

from typing import Callable, Iterable

from ..checks import run_checks
from ..evidence.merge import merge
from ..evidence.observation import Observation
from ..model import Contradiction, Report, Severity

Judge = Callable[[list[Observation]], Report]


def judge_with(matrix: object, source: str) -> Judge:
    """Observations -> the report the checks make of them (merge, then every check)."""
    return lambda observations: run_checks(merge(observations), matrix, source)


def reaches(report: Report, finding_id: str) -> bool:
    return any(f.id == finding_id and f.severity >= Severity.WARNING for f in report.findings)


def printed(observations: Iterable[Observation]) -> list[Observation]:
    """What a command printed (or gpudoctor saved): not an issue form's answer, not the reporter's sentences."""
    return [o for o in observations if not o.stated]


def groups(observations: list[Observation]) -> list[list[Observation]]:
    """One group per fact: every observation of a key (a value two readers saw is one fact), and each item appended
    to a list ("symptoms[]": every error line) on its own."""
    by_key: dict[object, list[Observation]] = {}
    for index, o in enumerate(observations):
        by_key.setdefault(index if o.key.endswith("[]") else o.key, []).append(o)
    return list(by_key.values())


def minimal(observations: list[Observation], finding_id: str, judge: Judge) -> list[list[Observation]]:
    """A smallest set of facts from which the checks still reach the finding: each fact is taken away in turn,
    latest line first, and stays away when the finding is still reached without it. What is left is needed, given
    the rest (where two lines say the same, the earlier one is kept)."""
    kept = groups(observations)
    for group in sorted(kept, key=lambda g: (first(g).input, first(g).line), reverse=True):
        trial = [g for g in kept if g is not group]
        if reaches(judge([o for g in trial for o in g]), finding_id):
            kept = trial
    return kept


def touching(observations: list[Observation], contradictions: Iterable[Contradiction], finding_id: str,
             judge: Judge) -> list[Contradiction]:
    """The contradictions the finding depends on: without the disputed fact, or with the other value kept, the
    checks no longer reach it."""
    out = []
    for c in contradictions:
        without = [o for o in observations if o.key != c.fact]
        other = [o for o in observations if not (o.key == c.fact and o.where == c.kept_from)]
        if not reaches(judge(without), finding_id) or not reaches(judge(other), finding_id):
            out.append(c)
    return out


def first(group: list[Observation]) -> Observation:
    """The observation the merge keeps for a fact: the earliest input, printed before stated, the earliest line."""
    return min(group, key=lambda o: (o.input, o.stated, o.line))
