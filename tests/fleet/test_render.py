"""Node names, titles, values and failure reasons come from nodes: untrusted, escaped once per format."""

import json
from html.parser import HTMLParser

from gpudoctor.fleet.aggregate import aggregate
from gpudoctor.fleet.digest import node_from_report
from gpudoctor.fleet.model import NodeResult
from gpudoctor.render.fleet_html import render_fleet_html
from gpudoctor.render.fleet_json import render_fleet_json
from gpudoctor.render.fleet_markdown import render_fleet_markdown
from gpudoctor.render.fleet_text import render_fleet_text

from .helpers import report

HOSTILE = '<img src=x onerror=alert(1)>\x1b[31m\n## forged'


def hostile_fleet():
    bad = report(driver=HOSTILE)
    bad["findings"][0]["title"] = "</script><script>alert(2)</script>"
    return aggregate([node_from_report(report(), "node1", "a"), node_from_report(report(), "node2", "b"),
                      node_from_report(bad, HOSTILE, "c"), NodeResult("node9", "srun", failure=HOSTILE)],
                     golden=node_from_report(report(), "golden", "golden.json"))


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.scripts, self._in_script = [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


def test_html_shows_hostile_values_as_text_and_runs_only_its_own_script():
    page = render_fleet_html(hostile_fleet())
    parsed = _Collect()
    parsed.feed(page)
    assert "img" not in parsed.tags
    assert parsed.tags.count("script") == 1 and "alert" not in "".join(parsed.scripts)
    assert "&lt;img src=x onerror=alert(1)&gt;\\x1b[31m\\n## forged" in page
    assert "http" not in page.split("<body>")[0].replace("http-equiv", "")  # nothing loaded from the network


def test_html_table_has_one_row_per_node_failures_included():
    page = render_fleet_html(hostile_fleet())
    body = page.split("<tbody>")[1].split("</tbody>")[0]
    assert body.count("<tr>") == 4 and 'class="failed"' in body


def test_text_cannot_forge_a_line_or_colour_the_terminal():
    out = render_fleet_text(hostile_fleet())
    assert "\x1b" not in out and "\n## forged" not in out
    assert "FAILED TO ANSWER" in out and "golden 570.124.06" in out


def test_markdown_adds_no_structure():
    out = render_fleet_markdown(hostile_fleet())
    assert "\n## forged" not in out and "\\<img" in out and " <img" not in out


def test_json_keeps_the_values_exactly():
    data = json.loads(render_fleet_json(hostile_fleet()))
    names = [n["name"] for n in data["nodes"]]
    assert HOSTILE in names and data["summary"]["failed"] == 1 and data["summary"]["exit_code"] == 1
    assert {"node": HOSTILE, "fact": "driver", "value": HOSTILE, "golden": "570.124.06"} in data["golden"]["differences"]


def test_markdown_table_of_nodes_that_all_failed_has_as_many_separators_as_columns():
    """No node answered: no section columns, and the header, separator and rows must still agree."""
    fleet = aggregate([NodeResult("node1", "srun", failure="timed out"), NodeResult("node2", "srun", failure="refused")])
    table = [line for line in render_fleet_markdown(fleet).splitlines() if line.startswith("|")]
    assert table == ["| node | exit |", "|---|---|", "| node1 | **failed to answer**: timed out |",
                     "| node2 | **failed to answer**: refused |"]


def test_markdown_row_of_a_node_whose_report_has_no_sections_fits_the_header():
    bare = report()
    bare["sections"] = []
    fleet = aggregate([node_from_report(bare, "node1", "a")])
    table = [line for line in render_fleet_markdown(fleet).splitlines() if line.startswith("|")]
    assert [line.count("|") for line in table] == [3, 3, 3], table
