from gpudoctor.fleet.aggregate import aggregate
from gpudoctor.fleet.digest import node_from_report
from gpudoctor.fleet.drift import against_golden, find_drift
from gpudoctor.fleet.model import NodeResult

from .helpers import report


def node(name, **changes):
    return node_from_report(report(**changes), name, f"{name}.json")


def test_the_majority_value_wins_and_only_the_differing_nodes_are_outliers():
    nodes = [node(f"node{i}") for i in range(1, 5)] + [node("node17", driver="535.104.05")]
    (drift,) = [d for d in find_drift(nodes) if d.key == "driver"]
    assert (drift.majority, drift.majority_count) == ("570.124.06", 4)
    assert drift.outliers == (("node17", "535.104.05"),)


def test_identical_nodes_have_no_drift():
    assert find_drift([node("a"), node("b"), node("c")]) == ()


def test_a_node_that_could_not_tell_is_neither_majority_nor_outlier():
    unknown = node_from_report({**report(), "facts": {}}, "blind", "blind.json")
    drifts = {d.key: d for d in find_drift([node("a"), node("b"), unknown, node("c", driver="550.54.15")])}
    assert drifts["driver"].outliers == (("c", "550.54.15"),)
    assert drifts["driver"].unknown == ("blind",)
    assert "gpu_model" not in drifts  # unknown on one node, the same on the others: no drift


def test_a_tie_has_no_majority_and_lists_every_node_whatever_the_order():
    nodes = [node("a", driver="550.54.15"), node("b", driver="535.104.05")]
    (drift,) = [d for d in find_drift(nodes) if d.key == "driver"]
    assert drift.majority is None and drift.majority_count == 1
    assert drift.outliers == (("a", "550.54.15"), ("b", "535.104.05"))  # neither is called the odd one out
    assert drift.summary == "no majority (the most common values are on 1 node each)"
    (again,) = [d for d in find_drift(list(reversed(nodes))) if d.key == "driver"]
    assert again.majority is None and sorted(again.outliers) == sorted(drift.outliers)


def test_a_clear_majority_beside_a_tie_among_the_rest_still_wins():
    nodes = [node("a"), node("b"), node("c", driver="550.54.15"), node("d", driver="535.104.05")]
    (drift,) = [d for d in find_drift(nodes) if d.key == "driver"]
    assert drift.majority == "570.124.06" and drift.summary == "570.124.06 on 2 nodes"
    assert [name for name, _ in drift.outliers] == ["c", "d"]


def test_a_narrowed_pcie_link_drifts_with_its_width():
    (drift,) = [d for d in find_drift([node("a", pcie_width=16), node("b", pcie_width=16), node("c", pcie_width=8)])
                if d.key == "pcie_width"]
    assert drift.majority == "x16" and drift.outliers == (("c", "x8 of x16"),)


def test_failed_nodes_take_no_part_in_drift_but_stay_in_the_report():
    down = NodeResult("node9", "srun", failure="no answer")
    fleet = aggregate([node("node1"), down, node("node2", driver="1.0")])
    assert [n.name for n in fleet.nodes] == ["node1", "node2", "node9"]
    assert fleet.failed == (down,) and fleet.exit_code == 1
    assert all("node9" not in (name for name, _ in d.outliers) for d in fleet.drift)


def test_golden_names_each_fact_a_node_has_otherwise():
    golden = node("golden", driver="550.54.15")
    diffs = against_golden([node("node17", driver="535.104.05"), node("node18", driver="550.54.15")], golden)
    assert [(d.node, d.label, d.value, d.golden) for d in diffs] == [("node17", "driver", "535.104.05", "550.54.15")]


def test_golden_never_counts_an_unknown_as_a_difference():
    blind = node_from_report({**report(), "facts": {}}, "blind", "blind.json")
    assert against_golden([blind], node("golden")) == ()
    assert aggregate([blind], golden=node("golden")).exit_code == 0


def test_nodes_sort_naturally():
    fleet = aggregate([node("node10"), node("node2"), node("node1")])
    assert [n.name for n in fleet.nodes] == ["node1", "node2", "node10"]


def test_findings_are_grouped_by_id_with_their_nodes_errors_first():
    from .helpers import report as real

    broken = node_from_report(real("laptop-cpu-wheel"), "laptop", "x")
    fleet = aggregate([node("a"), broken, node("b")])
    assert fleet.findings[0].id == "torch-cpu-only-build" and fleet.findings[0].nodes == ("laptop",)
    found = {g.id: g.nodes for g in fleet.findings}
    assert found["gpus-found"] == ("a", "b", "laptop")
    assert fleet.nodes_with_errors == ("laptop",) and fleet.exit_code == 1
