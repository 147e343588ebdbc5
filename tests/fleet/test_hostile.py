"""Hostile node reports and directories (found by tools/fuzz_cli.py): whatever a node sends as its name, section,
status, finding id or title, the fleet is aggregated without a crash and every format shows it as text: no control
character, no line or Markdown table cell of its own, no HTML element. A directory entry that is not a regular
file is a failed node, never a hang."""

from __future__ import annotations

import os
import re
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudoctor.fleet.aggregate import aggregate
from gpudoctor.fleet.digest import node_from_report
from gpudoctor.fleet.directory import read_directory
from gpudoctor.render.fleet_html import render_fleet_html
from gpudoctor.render.fleet_markdown import render_fleet_markdown
from gpudoctor.render.fleet_text import render_fleet_text

from ..render.hostile import HOSTILE, ODD_VERSIONS
from ..render.html_check import injected_markup
from ..render.test_hostile_snapshots import RAW_CONTROL
from .helpers import report, write_reports

# A value that starts a line of the output only if a newline from the input reached it raw.
MARKERS = ["\nFORGED", "\r\nFORGED", "\u2028FORGED", "<b class=FUZZ>", "<script>FUZZ</script>", "| FUZZ |"]
hostile = st.lists(st.one_of(st.sampled_from(HOSTILE + MARKERS + ODD_VERSIONS + ["²", "٣", "9" * 5000]), st.text(max_size=8)),
                   min_size=1, max_size=4).map("".join)


@st.composite
def hostile_node(draw):
    data = report("torch-tf-cudnn-conflict")
    for section in data["sections"]:
        section["section"] = draw(st.one_of(st.just(section["section"]), hostile))
        section["status"] = draw(st.one_of(st.just(section["status"]), hostile))
    for finding in data["findings"]:
        finding["id"] = draw(st.one_of(st.just(finding["id"]), hostile))
        finding["title"] = draw(st.one_of(st.just(finding["title"]), hostile))
    data["facts"]["driver"]["version"] = draw(hostile)
    return node_from_report(data, draw(hostile), "x.json")


def _markdown_table_is_whole(markdown: str) -> None:
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    cells = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
    assert len(cells) == 1, rows


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(hostile_node(), min_size=1, max_size=3), hostile_node())
def test_hostile_node_reports_render_as_text_in_every_format(nodes, golden):
    fleet = aggregate(nodes, "fuzz", golden)
    text, markdown, page = render_fleet_text(fleet), render_fleet_markdown(fleet), render_fleet_html(fleet)
    for rendered in (text, markdown, page):
        assert not RAW_CONTROL.search(rendered)
    for rendered in (text, markdown):
        assert not re.search(r"^[\s|#>*`-]*FORGED", rendered, re.M), rendered
    _markdown_table_is_whole(markdown)
    assert not re.search(r"(?<!\\)<[A-Za-z!/]|(?<!\\)\]\(", markdown)
    assert injected_markup(page) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(), min_size=2, max_size=6))
def test_any_node_names_sort_without_a_crash(names):
    # "node²" is isdigit() but not a number; int() refuses 5,000 digits: both crashed the natural sort (exit 3).
    names += ["node²", "9" * 5000, "node٣"]
    fleet = aggregate([node_from_report(report(), name, "x") for name in names])
    assert sorted(n.name for n in fleet.nodes) == sorted(names)


def test_node_names_still_sort_naturally_with_leading_zeros_and_long_numbers():
    names = ["n10", "n2", "n02", "n" + "9" * 5000, "n1"]
    fleet = aggregate([node_from_report(report(), name, "x") for name in names])
    assert [n.name for n in fleet.nodes] == ["n1", "n02", "n2", "n10", "n" + "9" * 5000]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_or_device_in_the_directory_is_a_failed_node_not_a_hang(tmp_path):
    write_reports(tmp_path, {"ok": report()})
    os.mkfifo(tmp_path / "pipe.json")  # nobody ever writes to it: reading it would wait forever
    if os.path.exists("/dev/zero"):
        os.symlink("/dev/zero", tmp_path / "zero.json")
    result: list = []
    reader = threading.Thread(target=lambda: result.extend(read_directory(tmp_path)), daemon=True)
    reader.start()
    reader.join(20)
    assert not reader.is_alive(), "reading the directory hung on a FIFO"
    by_name = {n.name: n for n in result}
    assert by_name["ok"].answered
    assert "not a regular file" in by_name["pipe"].failure
    if "zero" in by_name:
        assert "not a regular file" in by_name["zero"].failure
