"""What a finding rests on, found by taking evidence away: a cause rests on printed output when the checks still
reach it from the printed observations alone; the lines that show it are a smallest set of printed facts from which
they still reach it; a contradiction touches it when the disputed fact is one of those, or when either of its
values, added to them, loses the cause. Nothing here needs to know which facts a check reads: the checks themselves
are asked again."""

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
    """A smallest set of facts from which the checks still reach the finding (each fact in it is needed, given the
    others), found by QuickXplain (Junker, 2004): halves are tried before single facts, so a paste of hundreds of
    facts costs a few dozen runs of the checks, most of them over a handful of facts. Earlier lines are preferred
    where two say the same."""
    ordered = sorted(groups(observations), key=lambda g: (first(g).input, first(g).line))

    def holds(chosen: list[list[Observation]]) -> bool:
        return reaches(judge([o for g in chosen for o in g]), finding_id)

    def explain(background: list[list[Observation]], candidates: list[list[Observation]], changed: bool) -> list:
        if changed and holds(background):
            return []
        if len(candidates) <= 1:
            return candidates
        half = len(candidates) // 2
        head, tail = candidates[:half], candidates[half:]
        needed_tail = explain(background + head, tail, True)
        needed_head = explain(background + needed_tail, head, bool(needed_tail))
        return needed_head + needed_tail

    return explain([], ordered, True) if holds(ordered) else ordered


def touching(support: list[list[Observation]], observations: list[Observation], contradictions: Iterable[Contradiction],
             finding_id: str, judge: Judge) -> list[Contradiction]:
    """The contradictions the finding depends on: the disputed fact is one it rests on (in ``support``, its minimal
    printed facts), or adding either value of it to those facts loses the finding."""
    base = [o for g in support for o in g]
    keys = {o.key for o in base}
    out = []
    for c in contradictions:
        values = [o for o in observations if o.key == c.fact]
        kept = [o for o in values if o.where == c.kept_from]
        other = [o for o in values if o.where != c.kept_from]
        if c.fact in keys or not reaches(judge(base + kept), finding_id) or not reaches(judge(base + other), finding_id):
            out.append(c)
    return out


def first(group: list[Observation]) -> Observation:
    """The observation the merge keeps for a fact: the earliest input, printed before stated, the earliest line."""
    return min(group, key=lambda o: (o.input, o.stated, o.line))
