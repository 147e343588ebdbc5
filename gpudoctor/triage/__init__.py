"""A maintainer's reply to an issue: name the cause only when sure, otherwise ask for the output that would settle
it (or, with ``only_when_sure``, say nothing).

Sure means: the checks reach the cause from what commands printed, without the issue form's answers and the
reporter's sentences (``Observation.stated``), and no contradiction in the evidence touches it (support.py says how
both are found: by asking the checks again with evidence taken away). The lines quoted are those whose facts the
cause cannot do without. Pure: the caller reads the text and loads the matrix; nothing here prints.
"""

from __future__ import annotations

import dataclasses

from ..checks.causes import EFFECTS, primary
from ..checks.coverage import SETTLING_COMMANDS
from ..checks.evidence import section_of
from ..evidence import observations_in
from ..evidence.document import Document
from ..model import Finding, Report, Section, Severity, Status
from . import support
from .verdict import Missing, Outcome, QuotedLine, Triage

__all__ = ["Missing", "Outcome", "QuotedLine", "Triage", "triage"]

# Findings about the evidence itself: never a cause of the reporter's problem.
_ABOUT_EVIDENCE = frozenset({"evidence-contradiction", "evidence-not-recognised", "evidence-truncated"})
# Findings that a framework cannot use the GPU, which say that it fails but not why: a reply asks for the output that
# would show the cause instead of naming the effect as one (checks/causes.py links them under their causes).
_EFFECTS = frozenset({*EFFECTS, "framework-import-failed"})
# torch's wheels bring their own CUDA libraries: one it cannot load says its install or environment is broken, not how
# (a container without the runtime, a foreign LD_LIBRARY_PATH, a conda env without cudatoolkit); other programs load a
# CUDA library by its file name, where the library missing from the loader path is the cause itself
_EFFECTS_IN_SECTION = frozenset({("cuda-library-not-on-loader-path", Section.TORCH)})
# A cause is named only at this severity: a warning is what might go wrong, not why the reporter's GPU does not work.
NAMED_SEVERITY = Severity.ERROR
MAX_QUOTED = 8


def triage(inputs: list[tuple[str, str]], matrix: object, only_when_sure: bool = False) -> Triage:
    """``inputs``: (text, origin) pairs, the issue body first (as ``check --from`` takes them)."""
    observations = [dataclasses.replace(o, input=n) for n, (text, origin) in enumerate(inputs)
                    for o in observations_in(text, origin)]
    source = "issue " + " + ".join(origin for _, origin in inputs)
    judge = support.judge_with(matrix, source)
    report = judge(observations)
    suspect = _suspect(report)
    if suspect is None:
        return Triage(Outcome.NOTHING, report)
    printed = support.printed(observations)
    doubt, commands, shown = _doubt(observations, printed, report, suspect, judge)
    if doubt is None:
        return Triage(Outcome.CAUSE, report, suspect, _quote(shown, inputs), _missing(report))
    outcome = Outcome.UNSURE if only_when_sure else Outcome.ASK
    return Triage(outcome, report, None, (), _missing(report), doubt, commands)


def _suspect(report: Report) -> Finding | None:
    """The cause the report leads with, leaving out findings about the evidence itself."""
    candidates = tuple(f for f in report.findings if f.id not in _ABOUT_EVIDENCE)
    lead = primary(candidates)
    return next((f for f in candidates if f.id == lead), None)


def _doubt(observations, printed, report: Report, suspect: Finding, judge):
    """Why the suspected cause may not be named (None when it may), the commands whose output would settle it, and
    the printed facts it rests on."""
    if suspect.severity < NAMED_SEVERITY:
        return "what the report shows may go wrong, but not why the GPU does not work", (SETTLING_COMMANDS[suspect.section],), []
    if suspect.id in _EFFECTS or (suspect.id, suspect.section) in _EFFECTS_IN_SECTION:
        return "the report shows that the GPU cannot be used, but not why", (SETTLING_COMMANDS[suspect.section],), []
    if not support.reaches(judge(printed), suspect.id):
        needed = support.minimal(observations, suspect.id, judge)
        sections = [section_of(g[0].key) for g in needed if support.first(g).stated] or [suspect.section]
        return ("it rests on what the report states in words or in the issue form, not on output a command printed",
                _unique(SETTLING_COMMANDS[s] for s in sections), [])
    shown = support.minimal(printed, suspect.id, judge)
    contradictions = report.facts.contradictions or ()
    touching = support.touching(shown, observations, contradictions, suspect.id, judge)
    if touching:
        facts = ", ".join(dict.fromkeys(c.fact for c in touching))
        return (f"the pasted outputs disagree about {facts}",
                _unique(SETTLING_COMMANDS[section_of(c.fact)] for c in touching), [])
    return None, (), shown


def _quote(necessary, inputs: list[tuple[str, str]]) -> tuple[QuotedLine, ...]:
    documents: dict[int, Document] = {}
    out: dict[tuple[int, int], QuotedLine] = {}
    for group in necessary:
        o = support.first(group)
        if o.line <= 0 or o.input >= len(inputs):
            continue  # a snapshot's value has no line to quote
        document = documents.setdefault(o.input, Document.from_text(inputs[o.input][0]))
        if o.line <= len(document.lines) and document.lines[o.line - 1].strip():
            out.setdefault((o.input, o.line), QuotedLine(o.input, o.line, document.lines[o.line - 1], o.reader))
    return tuple(sorted(out.values(), key=lambda q: (q.input, q.line)))[:MAX_QUOTED]


def _missing(report: Report) -> tuple[Missing, ...]:
    return tuple(Missing(r.section, r.reason or "", SETTLING_COMMANDS[r.section])
                 for r in report.sections if r.status == Status.NOT_JUDGED and r.section in SETTLING_COMMANDS)


def _unique(items) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))

