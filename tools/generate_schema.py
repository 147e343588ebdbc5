"""Generate gpudoctor/schema/*.schema.json from the model's dataclasses.

The shipped schema is the public contract; tests/test_schema.py fails when the model and the shipped file
disagree, so a model change forces a reviewed schema change. Run: python tools/generate_schema.py
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any, Union

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpudoctor.model import REPORT_SCHEMA, SNAPSHOT_SCHEMA, Facts, type_hints  # noqa: E402

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "gpudoctor" / "schema"


def type_schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        (only,) = inner
        schema = type_schema(only, defs)
        return {"anyOf": [schema, {"type": "null"}]}
    if dataclasses.is_dataclass(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # reserve first: recursion-safe
            hints = type_hints(tp)
            defs[name] = {
                "type": "object",
                "properties": {f.name: type_schema(hints[f.name], defs) for f in dataclasses.fields(tp)},
                "additionalProperties": True,  # gpudoctor may add keys within schema version 1
            }
            required = [f.name for f in dataclasses.fields(tp)
                        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
            if required:
                defs[name]["required"] = required
        return {"$ref": f"#/$defs/{name}"}
    if origin is tuple:
        return {"type": "array", "items": type_schema(typing.get_args(tp)[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": type_schema(typing.get_args(tp)[1], defs)}
    return {bool: {"type": "boolean"}, int: {"type": "integer"}, str: {"type": "string"}}[tp]


def facts_schema() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    type_schema(Facts, defs)
    facts = defs.pop("Facts")
    facts["properties"]["schema"] = {"const": SNAPSHOT_SCHEMA}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://gpudoctor.dev/schema/facts.schema.json",
        "title": "gpudoctor facts snapshot (schema version 1)",
        "description": "Absent or null = unknown; an empty list or false = probed and absent. See shared/facts-format.md.",
        **facts,
        "$defs": defs,
    }


def report_schema() -> dict[str, Any]:
    fix = {"type": "object", "required": ["summary", "commands", "url"],
           "properties": {"summary": {"type": "string"}, "commands": {"type": "array", "items": {"type": "string"}},
                          "url": {"type": ["string", "null"]}}}
    finding = {"type": "object", "required": ["id", "severity", "section", "title", "evidence", "fix"],
               "properties": {"id": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
                              "severity": {"enum": ["ok", "info", "warning", "error"]},
                              "section": {"enum": ["gpu", "cuda", "cudnn", "torch", "tensorflow", "jax", "environment"]},
                              "title": {"type": "string"}, "evidence": {"type": "array", "items": {"type": "string"}},
                              "fix": {"anyOf": [fix, {"type": "null"}]},
                              "explains": {"type": "array", "items": {"type": "string"}}}}
    statuses = ["ok", "note", "warning", "error", "not applicable", "not judged", "crashed"]
    section = {"type": "object", "required": ["section", "status", "reason"],
               "properties": {"section": {"enum": ["gpu", "cuda", "cudnn", "torch", "tensorflow", "jax", "environment"]},
                              "status": {"enum": statuses}, "reason": {"type": ["string", "null"]}}}
    counts = {k: {"type": "integer", "minimum": 0} for k in ("errors", "warnings", "info", "ok", "crashed_checks")}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://gpudoctor.dev/schema/report.schema.json",
        "title": "gpudoctor check --json output (schema version 1)",
        "type": "object",
        "required": ["schema", "gpudoctor", "source", "matrix_reviewed", "summary", "primary", "sections", "findings", "crashes", "facts"],
        "properties": {
            "schema": {"const": REPORT_SCHEMA},
            "gpudoctor": {"type": "string"},
            "source": {"type": "string"},
            "matrix_reviewed": {"type": ["string", "null"]},
            "summary": {"type": "object", "required": [*counts, "exit_code"],
                        "properties": {**counts, "exit_code": {"enum": [0, 1, 2, 3]}}},
            "primary": {"type": ["string", "null"]},
            "sections": {"type": "array", "items": section},
            "findings": {"type": "array", "items": finding},
            "crashes": {"type": "array", "items": {"type": "object", "required": ["check", "error"]}},
            "facts": {"$ref": "facts.schema.json"},
        },
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2) + "\n"


if __name__ == "__main__":
    (SCHEMA_DIR / "facts.schema.json").write_text(render(facts_schema()))
    (SCHEMA_DIR / "report.schema.json").write_text(render(report_schema()))
    print(f"wrote {SCHEMA_DIR}/facts.schema.json and report.schema.json")
