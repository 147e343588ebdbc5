"""One node's document (a `check --json` report, or a `check --save` snapshot that is judged here) -> NodeResult.
A document that is neither becomes a failed node with the reason, never an exception and never dropped."""

from __future__ import annotations

import json
from dataclasses import fields
from functools import cache

from .. import jsontext
from ..errors import GpuDoctorError
from ..model import Facts
from .digest import NotAReport, node_from_report
from .model import NodeResult

_REASON_CHARS = 200
_FACTS_KEYS = frozenset(f.name for f in fields(Facts)) - {"schema"}


def node_from_text(text: str, name: str, origin: str, shared: dict | None = None) -> NodeResult:
    try:
        data = jsontext.loads(text)  # the same nesting bound on every Python
    except json.JSONDecodeError as exc:
        return failed(name, origin, f"not valid JSON ({exc.msg} at line {exc.lineno}): {_first_line(text)}")
    except jsontext.TooDeep:
        return failed(name, origin, "not a usable report (JSON nested too deeply)")
    except ValueError as exc:
        return failed(name, origin, f"not a usable report ({type(exc).__name__})")
    return node_from_data(data, name, origin, shared)


def node_from_data(data: object, name: str, origin: str, shared: dict | None = None) -> NodeResult:
    if _is_snapshot(data):
        return _judge_snapshot(data, name, origin)
    try:
        return node_from_report(data, name, origin, shared)
    except NotAReport as exc:
        return failed(name, origin, str(exc))


def _is_snapshot(data: object) -> bool:
    """A `check --save` snapshot; a hand-written partial one may leave out "schema" (snapshot.py reads it so too)."""
    if not isinstance(data, dict):
        return False
    schema = data.get("schema")
    if schema is None:
        return bool(_FACTS_KEYS & data.keys())
    return isinstance(schema, str) and schema.startswith("gpudoctor.facts/")


def failed(name: str, origin: str, reason: str) -> NodeResult:
    return NodeResult(name=name, origin=origin, failure=reason[:_REASON_CHARS])


def _judge_snapshot(data: dict, name: str, origin: str) -> NodeResult:
    """A snapshot holds facts only: judge it with the same checks `gpudoctor check --from` runs."""
    from ..checks import run_checks
    from ..snapshot import facts_from_dict, report_to_dict

    try:
        facts = facts_from_dict(data, origin)
    except GpuDoctorError as exc:
        return failed(name, origin, str(exc))
    report = run_checks(facts, _matrix(), f"snapshot {origin}")
    return node_from_report(report_to_dict(report), name, origin)


@cache
def _matrix():
    from ..matrix import load_matrix

    return load_matrix()


def _first_line(text: str) -> str:
    stripped = text.strip()
    return (stripped.splitlines() or ["(empty)"])[0][:80]
