"""The facts snapshot: JSON round trip, partial hand-written snapshots, one-line errors naming the key."""

from __future__ import annotations

import json

import pytest

from gpudoctor.errors import SnapshotError
from gpudoctor.model import Driver, Facts, Frameworks, Gpu, GpuProcess, TorchBuild
from gpudoctor.probes import collect
from gpudoctor.snapshot import MAX_INT, facts_from_dict, facts_from_json, facts_to_dict, facts_to_json
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


def test_the_json_is_indented_in_model_order_and_ends_with_a_newline():
    text = facts_to_json(Facts(driver=Driver(version="570.86.15")))
    assert text.endswith("}\n")
    assert '\n  "driver": {\n    "version": "570.86.15",\n    "cuda_version": null,' in text


def test_nested_tuples_and_dicts_are_dumped_as_lists_and_objects():
    facts = Facts(gpus=(Gpu(processes=(GpuProcess(pid=1, name="python", used_mib=512),)),), python_packages={"torch": "2.7.0", "jax": None})
    data = facts_to_dict(facts)
    assert data["gpus"][0]["processes"] == [{"pid": 1, "name": "python", "used_mib": 512}]
    assert data["python_packages"] == {"torch": "2.7.0", "jax": None}
    assert data["probe_errors"] == []
    assert facts_from_dict(json.loads(json.dumps(data))) == facts


@pytest.mark.parametrize("value", [MAX_INT, -MAX_INT, 0])
def test_a_64_bit_integer_is_read(value):
    assert facts_from_dict({"gpus": [{"memory_total_mib": value}]}).gpus[0].memory_total_mib == value


@pytest.mark.parametrize("value", [MAX_INT + 1, -MAX_INT - 1, 10**30])
def test_an_integer_past_64_bits_is_out_of_range(value):
    with pytest.raises(SnapshotError) as caught:
        facts_from_dict({"gpus": [{"memory_total_mib": value}]})
    digits = len(str(abs(value)))
    assert str(caught.value) == f"key 'gpus[0].memory_total_mib' is out of range: {digits} digits (at most a 64-bit integer)"


@pytest.mark.parametrize(("data", "message"), [
    ({"gpus": [{}, {"name": 1}]}, "key 'gpus[1].name' must be a string, got a number (1)"),
    ({"gpus": [{"memory_total_mib": 1.5}]}, "key 'gpus[0].memory_total_mib' must be an integer, got a number (1.5)"),
    ({"gpus": [{"name": None, "pcie": {"gen_max": "4"}}]}, "key 'gpus[0].pcie.gen_max' must be an integer, got a string (\"4\")"),
    ({"gpus": [{"mig_enabled": 0}]}, "key 'gpus[0].mig_enabled' must be true or false, got a number (0)"),
    ({"driver": ["570"]}, "key 'driver' must be an object, got a list (1 item)"),
    ({"driver": [1, 2]}, "key 'driver' must be an object, got a list (2 items)"),
    ({"gpus": {}}, "key 'gpus' must be a list, got an object (0 items)"),
    ({"python_packages": ["torch"]}, "key 'python_packages' must be an object, got a list (1 item)"),
    ({"python_packages": {"torch": 2}}, "key 'python_packages.torch' must be a string, got a number (2)"),
    ({"host": {"os": False}}, "key 'host.os' must be a string, got a boolean (false)"),
    ({"host": {"env": {"CUDA_HOME": None}}}, "key 'host.env.CUDA_HOME' must be a string, got null (null)"),
    ({"probe_errors": [{"probe": "nvml"}]}, "key 'probe_errors[0]': "),
    ({"schema": 1}, "snapshot: key 'schema' must be \"gpudoctor.facts/1\", got 1"),
])
def test_each_wrong_value_is_named_with_its_path_type_and_a_preview(data, message):
    with pytest.raises(SnapshotError) as caught:
        facts_from_dict(data)
    assert str(caught.value).startswith(message)


def test_a_long_wrong_value_is_previewed_in_forty_characters():
    with pytest.raises(SnapshotError) as caught:
        facts_from_dict({"gpus": [{"memory_total_mib": "9" * 100}]})
    assert str(caught.value).endswith(f'got a string ({json.dumps("9" * 100)[:40]})')


def test_the_origin_names_the_file_in_each_top_level_error():
    with pytest.raises(SnapshotError, match=r"^my\.json: expected a JSON object at the top level, got a list$"):
        facts_from_json("[]", "my.json")
    with pytest.raises(SnapshotError, match=r"^my\.json: expected a JSON object at the top level, got null$"):
        facts_from_json("null", "my.json")
    with pytest.raises(SnapshotError, match=r"^my\.json: snapshot schema 'gpudoctor\.facts/2' is not supported \(this gpudoctor reads gpudoctor\.facts/1\)$"):
        facts_from_json('{"schema": "gpudoctor.facts/2"}', "my.json")
    with pytest.raises(SnapshotError, match=r"^my\.json: not valid JSON \(Expecting value at line 2, column 1\)$"):
        facts_from_json("\n", "my.json")


def test_json_nested_too_deeply_is_a_one_line_error():
    with pytest.raises(SnapshotError, match=r"^paste: JSON nested too deeply to be a snapshot$"):
        facts_from_json("[" * 100_000 + "]" * 100_000, "paste")


def test_a_number_too_long_to_convert_is_a_one_line_error():
    with pytest.raises(SnapshotError) as caught:
        facts_from_json('{"gpus": [{"memory_total_mib": ' + "9" * 5000 + "}]}", "paste")
    assert str(caught.value).startswith("paste: not a usable snapshot (Exceeds the limit")
    assert ";" not in str(caught.value) and "\n" not in str(caught.value)


def test_the_current_schema_is_accepted_and_a_missing_one_is_assumed():
    assert facts_from_dict({"schema": "gpudoctor.facts/1"}) == Facts()
    assert facts_from_dict({}).schema == "gpudoctor.facts/1"


def test_errors_name_the_snapshot_when_no_origin_is_given():
    with pytest.raises(SnapshotError, match=r"^snapshot: expected a JSON object at the top level, got a list$"):
        facts_from_json("[]")
    with pytest.raises(SnapshotError, match=r"^snapshot: expected a JSON object at the top level, got tuple$"):
        facts_from_dict(("not", "json"))  # a Python caller's value that JSON has no name for


def test_a_model_type_without_a_converter_is_a_programming_error_naming_it():
    from gpudoctor.snapshot import from_json_value

    with pytest.raises(TypeError, match=r"^snapshot converter cannot handle <class 'complex'> at gpus\[0\]\.x$"):
        from_json_value(complex, 1.5, "gpus[0].x")


def test_floats_are_read_finite_and_never_from_a_boolean():
    # Bench results are read back with the same converter as snapshots: their figures are floats.
    from gpudoctor.snapshot import from_json_value

    assert from_json_value(float, 3) == 3.0 and isinstance(from_json_value(float, 3), float)
    for bad in (True, "1.5", float("nan"), float("inf")):
        with pytest.raises(SnapshotError, match=r"^key 'x' must be a finite number"):
            from_json_value(float, bad, "x")


def test_a_key_with_a_newline_is_quoted_escaped_in_the_error():
    # Keys come from the snapshot: the library's error stays one line, whatever prints it (found by hypothesis).
    with pytest.raises(SnapshotError) as caught:
        facts_from_dict({"host": {"env": {"A\nB\x1b[31m": 5}}}, "x")
    assert "\n" not in str(caught.value) and "\x1b" not in str(caught.value)
    assert "host.env.A\\nB" in str(caught.value)
