"""Facts <-> the public JSON snapshot (shared/facts-format.md), and a Report -> the public JSON report (the snapshot
included), which `check --json` prints and fleet reads back.

The converter is driven by the dataclasses' own type hints, so the snapshot format and the model cannot drift
apart. Reading is strict about types (a wrong type names its key) and lenient about presence (a missing key is
unknown), which is what a hand-written partial snapshot needs.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from functools import cache
from typing import Any, Union

from . import __version__, jsontext
from .errors import SnapshotError
from .model import REPORT_SCHEMA, SNAPSHOT_SCHEMA, Facts, Finding, Report, Severity, exit_code, type_hints
from .snapshot_values import normalise

MAX_INT = 2**63 - 1  # no fact is larger (memory in MiB, a pid, an error count); more is a forged or broken snapshot


def facts_to_dict(facts: Facts) -> dict[str, Any]:
    return _dump(facts)


def facts_to_json(facts: Facts) -> str:
    return json.dumps(facts_to_dict(facts), indent=2, sort_keys=False) + "\n"


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    fix = finding.fix
    return {
        "id": finding.id,
        "severity": finding.severity.label,
        "section": finding.section.name.lower(),
        "title": finding.title,
        "evidence": list(finding.evidence),
        "fix": {"summary": fix.summary, "commands": list(fix.commands), "url": fix.url} if fix else None,
        "explains": list(finding.explains),
    }


def report_to_dict(report: Report, strict: bool = False) -> dict[str, Any]:
    return {
        "schema": REPORT_SCHEMA,
        "gpudoctor": __version__,
        "source": report.source,
        "matrix_reviewed": report.matrix_reviewed,
        "summary": {
            "errors": report.count(Severity.ERROR),
            "warnings": report.count(Severity.WARNING),
            "info": report.count(Severity.INFO),
            "ok": report.count(Severity.OK),
            "crashed_checks": len(report.crashes),
            "exit_code": int(exit_code(report, strict)),
        },
        "primary": report.primary,
        "sections": [{"section": r.section.name.lower(), "status": r.status.value, "reason": r.reason} for r in report.sections],
        "findings": [finding_to_dict(f) for f in report.findings],
        "crashes": [{"check": c.check, "error": c.error} for c in report.crashes],
        "facts": facts_to_dict(report.facts),
    }


def facts_from_json(text: str, origin: str = "snapshot") -> Facts:
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{origin}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except jsontext.TooDeep:
        raise SnapshotError(f"{origin}: JSON nested too deeply to be a snapshot") from None
    except ValueError as exc:  # an integer longer than Python's int/str conversion limit (4,300 digits)
        raise SnapshotError(f"{origin}: not a usable snapshot ({str(exc).split(';')[0]})") from None
    return facts_from_dict(data, origin)


def facts_from_dict(data: Any, origin: str = "snapshot") -> Facts:
    if not isinstance(data, dict):
        raise SnapshotError(f"{origin}: expected a JSON object at the top level, got {_json_type(data)}")
    schema = data.get("schema", SNAPSHOT_SCHEMA)
    if not isinstance(schema, str) or not schema.startswith("gpudoctor.facts/"):
        raise SnapshotError(f"{origin}: key 'schema' must be \"{SNAPSHOT_SCHEMA}\", got {schema!r}")
    if schema.split("/", 1)[1] != SNAPSHOT_SCHEMA.split("/", 1)[1]:
        raise SnapshotError(f"{origin}: snapshot schema {schema!r} is not supported (this gpudoctor reads {SNAPSHOT_SCHEMA})")
    facts = from_json_value(Facts, data, "")
    return normalise(facts if facts.schema == SNAPSHOT_SCHEMA else dataclasses.replace(facts, schema=SNAPSHOT_SCHEMA))


# ---------------------------------------------------------------------------------------------------------------


def _dump(value: Any) -> Any:
    if type(value) in _SCALARS:
        return value
    names = _field_names(type(value))
    if names is not None:
        return {name: _dump(getattr(value, name)) for name in names}
    if isinstance(value, tuple):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


_SCALARS = frozenset({str, int, float, bool, type(None)})


@cache
def _field_names(cls: type) -> tuple[str, ...] | None:
    """A dataclass's field names, once per class (a fleet dumps 10,000 reports' facts); None for any other type."""
    return tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else None


@cache
def _hints(cls: type) -> dict[str, Any]:
    return type_hints(cls)


def from_json_value(tp: Any, value: Any, path: str = "") -> Any:
    """JSON -> the type hint ``tp``: frozen dataclasses (unknown keys ignored: a newer gpudoctor may add keys),
    tuples, optionals, dicts, str, int (64-bit), finite float, bool. The one converter for every gpudoctor document
    read back (snapshots; bench results): a wrong type is a SnapshotError naming its key."""
    planned = _PLANS.get(id(tp))
    kind, detail = planned[1] if planned is not None and planned[0] is tp else _planned(tp)
    if kind == "union":
        allows_none, others = detail
        if value is None and allows_none:
            return None
        (inner,) = others
        return from_json_value(inner, value, path)
    if kind == "dataclass":
        if not isinstance(value, dict):
            raise _type_error(path, "an object", value)
        kwargs = {}
        for name, hint in detail:
            if name in value:  # unknown keys are kept forward-compatible: gpudoctor may add keys
                kwargs[name] = from_json_value(hint, value[name], _join(path, name))
        try:
            return tp(**kwargs)
        except TypeError as exc:  # a required field (ProbeError.probe) is missing
            raise SnapshotError(f"key '{_shown(path) or '.'}': {exc}") from None
    if kind == "tuple":
        if not isinstance(value, list):
            raise _type_error(path, "a list", value)
        (inner, _ellipsis) = detail
        return tuple(from_json_value(inner, item, f"{path}[{i}]") for i, item in enumerate(value))
    if kind == "dict":
        if not isinstance(value, dict):
            raise _type_error(path, "an object", value)
        _key_tp, value_tp = detail
        return {str(k): from_json_value(value_tp, v, _join(path, str(k))) for k, v in value.items()}
    if kind == "bool":
        if not isinstance(value, bool):
            raise _type_error(path, "true or false", value)
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _type_error(path, "an integer", value)
        if not -MAX_INT <= value <= MAX_INT:
            raise SnapshotError(f"key '{_shown(path)}' is out of range: {len(str(abs(value)))} digits (at most a 64-bit integer)")
        return value
    if kind == "str":
        if not isinstance(value, str):
            raise _type_error(path, "a string", value)
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise _type_error(path, "a finite number", value)
        return float(value)
    raise TypeError(f"snapshot converter cannot handle {tp!r} at {path}")  # a model change without a converter


_PLANS: dict[int, tuple[Any, tuple[str, Any]]] = {}  # id(type hint) -> (the hint, its plan): no hashing of hints


def _planned(tp: Any) -> tuple[str, Any]:
    plan = _plan(tp)
    _PLANS[id(tp)] = (tp, plan)  # the hint is kept alive here, so its id is never another's
    return plan


@cache
def _plan(tp: Any) -> tuple[str, Any]:
    """How from_json_value reads ``tp``, worked out once per type hint (issue 23: a fleet reads 10,000 snapshots):
    ("union", (None allowed, the other types)), ("dataclass", ((field, hint), ...)), ("tuple", args), ("dict", args),
    or the scalar's name ("bool", "int", "str", "float"); ("unknown", None) for anything else."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        return "union", (type(None) in args, [a for a in args if a is not type(None)])
    if dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        return "dataclass", tuple((f.name, hints[f.name]) for f in dataclasses.fields(tp))
    if origin is tuple:
        return "tuple", typing.get_args(tp)
    if origin is dict:
        return "dict", typing.get_args(tp)
    for scalar in (bool, int, str, float):
        if tp is scalar:
            return scalar.__name__, None
    return "unknown", None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list", dict: "an object"}.get(
        type(value), type(value).__name__
    )


def _type_error(path: str, expected: str, value: Any) -> SnapshotError:
    return SnapshotError(f"key '{_shown(path)}' must be {expected}, got {_json_type(value)} ({_preview(value)})")


def _preview(value: Any) -> str:
    if isinstance(value, (list, dict)):
        return f"{len(value)} item{'s' if len(value) != 1 else ''}"  # dumping a deep or huge one is not worth it
    try:
        return json.dumps(value)[:40]
    except (ValueError, RecursionError):
        return type(value).__name__


def _shown(path: str) -> str:
    """A key path as an error may quote it: the keys come from the snapshot, so a newline or an escape sequence in one
    is shown escaped, keeping the library's error one line whatever prints it."""
    from .escape import text

    return text(path)
