"""The facts snapshot: JSON round trip, partial hand-written snapshots, one-line errors naming the key."""

from __future__ import annotations

import json

import pytest

from gpudoctor.errors import SnapshotError
from gpudoctor.model import Facts, Frameworks, Gpu, TorchBuild
from gpudoctor.probes import collect
from gpudoctor.snapshot import facts_from_dict, facts_from_json, facts_to_json
from tests.conftest import FACTS_DIR, load_facts


def test_this_machine_round_trips():
    facts = collect()
    assert facts_from_json(facts_to_json(facts)) == facts


@pytest.mark.parametrize("path", sorted(FACTS_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_every_fixture_round_trips(path):
    facts = load_facts(path.stem)
    assert facts_from_json(facts_to_json(facts)) == facts


def test_partial_snapshot_leaves_the_rest_unknown():
    facts = facts_from_dict({"gpus": [{"name": "NVIDIA GeForce RTX 4090"}], "frameworks": {"torch": {"version": "2.5.1+cu124", "cuda": "12.4"}}})
    assert facts.driver is None and facts.host is None and facts.python_packages is None
    assert facts.gpus == (Gpu(name="NVIDIA GeForce RTX 4090"),)
    assert facts.frameworks == Frameworks(torch=TorchBuild(version="2.5.1+cu124", cuda="12.4"))


def test_empty_list_is_absent_and_null_is_unknown():
    assert facts_from_dict({"gpus": []}).gpus == ()
    assert facts_from_dict({"gpus": None}).gpus is None


def test_unknown_keys_are_tolerated_for_forward_compatibility():
    assert facts_from_dict({"gpus": [{"name": "x", "future_key": 1}], "new_section": {}}).gpus == (Gpu(name="x"),)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"gpus": {"name": "x"}}, "key 'gpus' must be a list, got an object"),
        ({"gpus": [{"memory_total_mib": "24 GB"}]}, "key 'gpus[0].memory_total_mib' must be an integer, got a string"),
        ({"driver": {"version": 570.1}}, "key 'driver.version' must be a string, got a number"),
        ({"host": {"wsl": True}}, "key 'host.wsl' must be an integer, got a boolean"),
        ({"gpus": [{"mig_enabled": "no"}]}, "key 'gpus[0].mig_enabled' must be true or false"),
        ({"probe_errors": [{"error": "x"}]}, "key 'probe_errors[0]'"),
        ({"schema": "gpudoctor.facts/2"}, "not supported"),
        ({"schema": "something-else"}, "key 'schema'"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_wrong_types_name_the_key_in_one_line(data, message):
    with pytest.raises(SnapshotError) as caught:
        facts_from_dict(data)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_not_json_is_a_one_line_error():
    with pytest.raises(SnapshotError, match=r"not valid JSON .* line 1"):
        facts_from_json("{not json", "my.json")


def test_snapshot_keys_match_the_public_format():
    data = json.loads(facts_to_json(Facts()))
    assert list(data) == ["schema", "host", "driver", "gpus", "pci_devices", "cuda_toolkits", "libraries",
                          "python_packages", "frameworks", "probe_errors", "symptoms", "provenance", "contradictions",
                          "amd_gpus", "rocm", "jetson",  # added in 0.3, after every 0.2 key
                          "kernel_log"]  # added in 0.4
    assert data["schema"] == "gpudoctor.facts/1"
