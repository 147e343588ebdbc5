"""The JSON Schemas that ship in the package: in step with the model, and every fixture and output validates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import jsonschema  # a dev dependency: without it these contract tests must fail, not vanish as a skip
import referencing

from gpudoctor.resources import schema_path  # noqa: E402
from tests.conftest import FACTS_DIR  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import generate_schema  # noqa: E402


def shipped(name: str) -> dict:
    return json.loads((schema_path().parent / name).read_text())


def test_shipped_schemas_match_the_model():
    assert shipped("facts.schema.json") == generate_schema.facts_schema(), "run: python tools/generate_schema.py"
    assert shipped("report.schema.json") == generate_schema.report_schema(), "run: python tools/generate_schema.py"


@pytest.mark.parametrize("path", sorted(FACTS_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_fixture_validates(path):
    jsonschema.Draft202012Validator(shipped("facts.schema.json")).validate(json.loads(path.read_text()))


def test_schema_rejects_a_wrong_type():
    validator = jsonschema.Draft202012Validator(shipped("facts.schema.json"))
    assert not validator.is_valid({"gpus": [{"memory_total_mib": "lots"}]})


def report_validator():
    facts = shipped("facts.schema.json")
    registry = referencing.Registry().with_resource(facts["$id"], referencing.Resource.from_contents(facts))
    return jsonschema.Draft202012Validator(shipped("report.schema.json"), registry=registry)


def test_check_json_output_validates():
    done = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr  # 1: this machine has findings (a GPU host may)
    report_validator().validate(json.loads(done.stdout))


@pytest.mark.parametrize("path", sorted(FACTS_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_json_report_of_every_fixture_validates(path):
    done = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--json", "--from", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr
    report_validator().validate(json.loads(done.stdout))
