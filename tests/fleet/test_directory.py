"""`fleet --from DIR` over the recorded snapshots of real machines and over generated reports."""

import json

import pytest

from gpudoctor.fleet.aggregate import aggregate
from gpudoctor.fleet.directory import FleetInputError, read_directory, read_golden

from ..conftest import FACTS_DIR
from .helpers import report, write_reports


@pytest.fixture(scope="module")
def recorded():
    return aggregate(read_directory(FACTS_DIR), "recorded")


def test_every_recorded_snapshot_is_a_judged_node(recorded):
    assert len(recorded.nodes) == len(list(FACTS_DIR.glob("*.json")))
    assert recorded.failed == ()
    by_name = {n.name: n for n in recorded.nodes}
    assert dict(by_name["healthy-h100"].sections)["gpu"] == "ok"
    assert dict(by_name["nouveau"].sections)["gpu"] == "error"


def test_recorded_machines_drift_with_the_right_outliers(recorded):
    drift = {d.key: d for d in recorded.drift}
    # cuda-visible-devices-wrong.json is the one machine whose second A100 runs at x8 and with 3 uncorrected errors.
    # Three recorded machines report their link: healthy-h100 and the H200 host at x16, that one at x8 of x16.
    assert drift["pcie_width"].majority == "x16"
    assert set(drift["pcie_width"].outliers) == {("cuda-visible-devices-wrong", "x8 of x16")}
    assert drift["ecc_uncorrected"].majority == "0"  # likewise two machines with 0, one with 3
    assert set(drift["ecc_uncorrected"].outliers) == {("cuda-visible-devices-wrong", "3")}
    assert ("healthy-a100-r535", "535.104.05") in drift["driver"].outliers
    assert "driver-library-mismatch" in drift["gpu_count"].unknown


def test_recorded_errors_are_grouped_with_their_machines(recorded):
    groups = {g.id: g for g in recorded.findings}
    assert groups["nouveau-loaded"].nodes == ("nouveau",)
    assert set(groups["tf-cpu-package-shadows-gpu"].nodes) == {"tf114-cpu-package-on-gpu", "tf-cpu-shadows-gpu"}
    assert "healthy-h100" not in recorded.nodes_with_errors and "nouveau" in recorded.nodes_with_errors


def test_golden_from_a_recorded_snapshot(recorded):
    golden = read_golden(FACTS_DIR / "healthy-a100-r535.json")
    fleet = aggregate(recorded.nodes, golden=golden)
    diffs = {(d.node, d.key): (d.value, d.golden) for d in fleet.golden_diffs}
    assert diffs[("healthy-h100", "driver")] == ("570.124.06", "535.104.05")
    assert not any(node == "healthy-a100-r535" for node, _ in diffs)


def test_garbage_files_are_failed_nodes_never_dropped(tmp_path):
    write_reports(tmp_path, {"node1": report(), "node2": "{not json", "node3": "[1, 2]", "node4": "",
                             "node5": {"schema": "gpudoctor.facts/1", "gpus": "eight"}})
    nodes = {n.name: n for n in read_directory(tmp_path)}
    assert nodes["node1"].answered
    assert nodes["node2"].failure.startswith("not valid JSON")
    assert nodes["node3"].failure.startswith("not a gpudoctor report")
    assert nodes["node4"].failure.startswith("not valid JSON")
    assert "gpus" in nodes["node5"].failure


def test_wrong_types_inside_a_report_are_unknown_not_a_crash(tmp_path):
    hostile = report()
    hostile["facts"]["driver"] = {"version": 535}
    hostile["facts"]["gpus"] = [{"name": ["x"], "pcie": "wide", "ecc_uncorrected_errors": True}]
    hostile["findings"] = [{"id": 7, "severity": "fatal"}, "junk"]
    write_reports(tmp_path, {"n": hostile})
    (node,) = read_directory(tmp_path)
    assert node.fact("driver") is None and node.fact("gpu_model") is None and node.fact("ecc_uncorrected") is None
    assert node.fact("gpu_count") == "1"
    assert [(f.id, f.severity) for f in node.findings] == [("?", "info")]


def test_nested_directories_name_nodes_by_their_path(tmp_path):
    write_reports(tmp_path / "rack1", {"node1": report()})
    write_reports(tmp_path / "rack2", {"node1": report()})
    assert sorted(n.name for n in read_directory(tmp_path)) == ["rack1/node1", "rack2/node1"]


def test_an_empty_or_missing_directory_is_a_usage_error(tmp_path):
    with pytest.raises(FleetInputError, match="no \\*.json"):
        list(read_directory(tmp_path))
    with pytest.raises(FleetInputError, match="not a directory"):
        list(read_directory(tmp_path / "nope"))


def test_a_golden_that_is_not_a_gpudoctor_document_is_a_usage_error(tmp_path):
    (tmp_path / "golden.json").write_text(json.dumps({"hello": 1}))
    with pytest.raises(FleetInputError, match="not a gpudoctor report"):
        read_golden(tmp_path / "golden.json")
