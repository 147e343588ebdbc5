"""Property tests over the snapshot format: any JSON-ish snapshot gives a report or a one-line error (never a
traceback, never a crashed check), and no string from it reaches the output raw: no control character, no extra
line, no Markdown structure."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from gpudoctor.checks import run_checks
from gpudoctor.cli import main
from gpudoctor.errors import SnapshotError
from gpudoctor.matrix import load_matrix
from gpudoctor.render.json_report import render_json
from gpudoctor.render.markdown import render_markdown
from gpudoctor.render.text import render_text
from gpudoctor.snapshot import facts_from_dict

from tests.conftest import FACTS_DIR

from .hostile import any_snapshot, odd_machine, overlay, snapshots

MATRIX = load_matrix()
# What a renderer may write: printable text, the newlines it puts there itself, and nothing that controls a terminal.
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _report(data):
    try:
        facts = facts_from_dict(json.loads(json.dumps(data)), "fuzz")
    except SnapshotError as exc:
        assert "\n" not in str(exc)
        return None
    return run_checks(facts, MATRIX, "fuzz")


def _text_lines_are_the_renderers_own(rendered: str) -> None:
    # Every line of the text report starts the way the renderer starts lines: a forged line (a value with a newline
    # in it) would start with whatever the value says.
    allowed = re.compile(r"^(|gpudoctor |Cause: |  |\[.\] |Summary: |Not judged: |Where each fact was read:)")
    for line in rendered.splitlines():
        assert allowed.match(line), line


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(any_snapshot)
def test_any_snapshot_is_judged_without_a_crash_and_rendered_safely(data):
    report = _report(data)
    if report is None:
        return
    assert report.crashes == (), report.crashes
    for verbose in (False, True):
        rendered = render_text(report, verbose=verbose)
        assert not RAW_CONTROL.search(rendered)
        _text_lines_are_the_renderers_own(rendered)
    markdown = render_markdown(report)
    assert not RAW_CONTROL.search(markdown)
    _markdown_has_only_its_own_structure(markdown)
    json.loads(render_json(report))  # valid JSON, and every string in it escaped by json.dumps
    render_json(report).encode("ascii")


def _markdown_has_only_its_own_structure(markdown: str) -> None:
    fence = None  # the renderer's open fence, while inside one
    code = False  # inside <details>: an indented code block
    for line in markdown.splitlines():
        if fence:
            if line == fence:
                fence = None
            else:
                assert line.startswith("    ") and not line.lstrip().startswith(fence.strip()), line
            continue
        if line == "<details><summary>facts</summary>":
            code = True
            continue
        if code:
            if line == "</details>":
                code = False
            else:
                assert line == "" or line.startswith("    "), line  # code: shown literally
            continue
        opening = re.fullmatch(r"(    `{3,})sh", line)
        if opening:
            fence = opening.group(1)
            continue
        # Prose: headings only where the renderer writes them; no fence, raw HTML, link, image or mention.
        if line.startswith("#"):
            assert re.match(r"^(## gpudoctor \S+ report|### \S )", line), line
        assert not re.match(r"^ {0,3}(```|~~~)", line), line
        assert not re.search(r"(?<!\\)<(?!https://)[A-Za-z/]", line), line
        assert not re.search(r"(?<!\\)\]\(", line), line
        assert not re.search(r"@(?!&#8203;)\w", line), line
        assert not re.search(r"(?<!\\)`", line) or re.search(r"`[a-z0-9-]+`", line), line
    assert fence is None and not code


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(snapshots)
def test_check_from_any_snapshot_exits_with_a_documented_code(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("snap") / "s.json"
    path.write_text(json.dumps(data))
    for args in ((), ("--markdown",), ("--json",)):
        result = CliRunner().invoke(main, ["check", "--from", str(path), *args])
        assert result.exit_code in (0, 1, 2), (result.exit_code, result.output)
        assert "Traceback" not in result.output
        if result.exit_code == 2:
            assert result.stdout == "" and result.stderr.count("\n") == 1


FIXTURES = {path.stem: json.loads(path.read_text()) for path in sorted(FACTS_DIR.glob("*.json"))}
# One machine with every kind of fact filled in (arch lists, both frameworks at run time, libraries, processes), so
# that a single odd value reaches the deepest checks.
FIXTURES["kitchen-sink"] = overlay(FIXTURES["torch-tf-cudnn-conflict"], {
    "host": {"env": {"CUDA_VISIBLE_DEVICES": "0", "CUDA_HOME": "/usr/local/cuda-12.4"}, "container": "docker", "wsl": 2},
    "gpus": [{"uuid": "GPU-6d4bd2a8-1b2c-4f3e-9a7d-0c1e2f3a4b5c", "pcie": {"gen_current": 4, "gen_max": 4, "width_current": 8,
              "width_max": 16}, "mig_enabled": False, "ecc_uncorrected_errors": 0,
              "processes": [{"pid": 1234, "name": "python", "used_mib": 20000}]}],
    "libraries": {"libcudnn": [{"path": "/usr/local/cuda-12.4/lib64/libcudnn.so.8", "version": "8.9.7"}]},
    "frameworks": {"torch": {"build": "cuda", "arch_list": ["sm_50", "sm_80", "sm_86", "sm_90"], "cudnn": "9.1.0",
                             "cuda_available": False, "device_count": 0},
                   "tensorflow": {"gpus_visible": 0}},
})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(odd_machine(FIXTURES))
def test_real_snapshots_with_odd_values_are_judged_or_left_alone(data):
    # Starting from real machines reaches every check; the odd value must be judged or ignored, never crash one.
    test_any_snapshot_is_judged_without_a_crash_and_rendered_safely.hypothesis.inner_test(data)


def test_a_driver_cuda_version_too_long_to_read_is_unknown_not_a_crash():
    # Found by the fuzz above: "1.999…" past int()'s 4,300-digit limit reads as no version, and the solver's PTX
    # rule then indexed None.
    data = overlay(FIXTURES["tf114-gpu-driver-396"], {"driver": {"cuda_version": "1." + "9" * 5000}})
    report = _report(data)
    assert report is None or report.crashes == ()


def test_a_version_of_thousands_of_digits_is_no_version():
    # hypothesis found it (CI, 2026-11-27): derive.py read a TensorFlow version's components with int(), which raises
    # past 4,300 digits; every version component is at most 18 ASCII digits now
    huge = "9" * 4400
    for framework, version in (("tensorflow", f"1.{huge}"), ("tensorflow", f"{huge}.1"), ("torch", f"{huge}.1")):
        data = {"schema": "gpudoctor.facts/1", "host": {"os": "windows", "arch": "x86_64"},
                "frameworks": {framework: {"version": version}}, "python_packages": {framework: version}}
        _report(data)  # judged, no exception
