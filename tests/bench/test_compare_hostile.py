"""``bench --compare`` over hostile saved results (found by tools/fuzz_cli.py): a file that is not a usable result
is one error line with exit 2 (it was exit 3 for no device, deep nesting and 5,000-digit numbers, and /dev/zero
filled memory); a usable one is shown with no control character and no line of its own; the HTML page of a
result adds no markup."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudoctor.bench.model import BENCH_SCHEMA, MEASUREMENTS, report_from_dict
from gpudoctor.cli import main
from gpudoctor.render.bench_html import to_html
from gpudoctor.render.bench_text import to_text

from ..render.hostile import HOSTILE
from ..render.html_check import injected_markup
from ..render.test_hostile_snapshots import RAW_CONTROL

hostile = st.lists(st.one_of(st.sampled_from(HOSTILE + ["\nFORGED", "<b class=FUZZ>", "[bold]x"]), st.text(max_size=6)),
                   min_size=1, max_size=3).map("".join)
number = st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0, 1e308, 5e-324]))
measurement = st.fixed_dictionaries({"name": st.one_of(st.sampled_from(list(MEASUREMENTS)), hostile), "value": number,
                                     "detail": hostile, "error": st.one_of(st.none(), hostile)})
finding = st.fixed_dictionaries({"id": hostile, "severity": st.one_of(st.sampled_from(["info", "error"]), hostile),
                                 "title": hostile, "evidence": st.lists(hostile, max_size=2), "fix": st.lists(hostile, max_size=2)})
judged = st.fixed_dictionaries({"name": st.sampled_from(list(MEASUREMENTS) + ["cnn-speedup"]), "value": st.floats(0, 1e6),
                                "unit": hostile, "peak": number, "ratio": number, "text": hostile})
device = st.fixed_dictionaries({"device": hostile}, optional={
    "device_name": hostile, "compute_capability": hostile, "spec_name": hostile, "note": hostile, "error": hostile,
    "framework_version": hostile, "measurements": st.lists(measurement, max_size=4), "findings": st.lists(finding, max_size=2),
    "judged": st.lists(judged, max_size=2)})
results = st.fixed_dictionaries({"schema": st.just(BENCH_SCHEMA), "devices": st.lists(device, max_size=2)},
                                optional={"host": hostile, "quick": st.booleans()})


def _compare(tmp_path, a: str | bytes, b: str = "b.json") -> object:
    target = tmp_path / "a.json"
    target.write_bytes(a if isinstance(a, bytes) else a.encode("utf-8", "surrogatepass"))
    return CliRunner().invoke(main, ["bench", "--compare", str(target), str(tmp_path / b)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(results, results)
def test_any_saved_result_is_compared_or_refused_in_one_line(tmp_path, a, b):
    (tmp_path / "b.json").write_text(json.dumps(b))
    result = _compare(tmp_path, json.dumps(a))
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 2:
        assert result.stdout == "" and result.stderr.count("\n") == 1 and result.stderr.startswith("gpudoctor: error: ")
    assert not RAW_CONTROL.search(result.output)
    assert not re.search(r"^\s*FORGED", result.output, re.M)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results.filter(lambda r: r["devices"]))
def test_a_hostile_result_renders_as_text_and_as_html_without_markup(data):
    report = report_from_dict(json.loads(json.dumps(data)), "fuzz")
    for verbose in (False, True):
        text = to_text(report, verbose=verbose)
        assert not RAW_CONTROL.search(text) and not re.search(r"^\s*FORGED", text, re.M)
    page = to_html(report)
    assert not RAW_CONTROL.search(page)
    assert injected_markup(page) == []


@pytest.mark.parametrize("content, reason", [
    ('{"schema": "%s", "devices": []}' % BENCH_SCHEMA, "no device was measured"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"schema": "%s", "x": %s}' % (BENCH_SCHEMA, '{"x": ' * 5000 + "1" + "}" * 5000), "nested too deeply"),
    ('{"schema": "%s", "devices": [%s]}' % (BENCH_SCHEMA, "1" * 5000), "ValueError"),
    (b"\xff\xfe{}", "not UTF-8"),
])
def test_an_unusable_result_is_a_usage_error_with_its_reason(tmp_path, content, reason):
    (tmp_path / "b.json").write_text("{}")
    result = _compare(tmp_path, content)
    assert result.exit_code == 2 and reason in result.stderr and result.stderr.count("\n") == 1, result.output


def test_an_endless_file_is_refused_after_a_bounded_read(tmp_path, monkeypatch):
    # /dev/zero used to be read to the end (memory exhausted, or a hang); the bound is what makes it an error line.
    from gpudoctor.bench import model

    monkeypatch.setattr(model, "MAX_SAVED_BYTES", 1024)
    result = _compare(tmp_path, "{" + " " * 2048 + "}")
    assert result.exit_code == 2 and "larger than" in result.stderr
