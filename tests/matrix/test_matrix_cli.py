"""`gpudoctor matrix`: text for people, --json for scripts, one-line errors with exit 2."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main


def invoke(*args: str):
    return CliRunner().invoke(main, ["matrix", *args])


def test_summary_says_the_reviewed_date():
    result = invoke()
    assert result.exit_code == 0
    assert "reviewed 2026-11-21" in result.output


def test_sources_lists_urls():
    result = invoke("--sources")
    assert "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html" in result.output


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("torch", "2.7.1"), "cu128"),
        (("cuda", "12.8"), "570.26"),
        (("gpu", "RTX 4090"), "compute capability 8.9"),
        (("tf", "2.16"), "nvidia-cudnn-cu12==8.9.7.29"),
        (("tensorflow", "2.10"), "GPU supported"),
        (("cudnn", "9.11"), "compute capability 7.5 … newest"),
        (("driver", "470.82.01"), "CUDA 11.4"),
    ],
)
def test_queries(args, needle):
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert needle in result.output
    assert "Matrix reviewed 2026-11-21" in result.output


def test_json_torch():
    result = invoke("torch", "2.7.1", "--json")
    data = json.loads(result.output)
    assert data["schema"] == "gpudoctor.matrix/1" and data["matrix_reviewed"] == "2026-11-21"
    cu128 = next(v for v in data["variants"] if v["tag"] == "cu128")
    assert "sm_120" in cu128["arch"] and cu128["index_url"] == "https://download.pytorch.org/whl/cu128"
    assert data["default_linux"] == "cu126"


def test_json_cuda_and_gpu():
    cuda = json.loads(invoke("cuda", "13.0", "--json").output)
    assert cuda["min_driver_linux"] == "580.65.06" and cuda["compute_capabilities"]["min"] == "7.5"
    gpu = json.loads(invoke("gpu", "Tesla V100-SXM2-16GB", "--json").output)
    assert gpu["compute_capability"] == "7.0"
    assert gpu["newest_torch"] == {"version": "2.14.1", "variant": "cu126", "cuda": "12.6", "code": "sass"}


@pytest.mark.parametrize("args", [("torch", "3.0"), ("tf", "9.9"), ("cuda", "99.1"), ("gpu", "Voodoo 5"), ("torch", "2.7.1+cu999")])
def test_unknown_is_a_one_line_error_with_exit_2(args):
    result = invoke(*args)
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert result.output.startswith("gpudoctor: ")


HOSTILE_QUERIES = ["RTX 4090\r\nFORGED\x1b[31m", "\x1b]8;;http://evil\x07", "\u202e6.4", "9" * 5000, "r" + "9" * 5000,
                   "gfx\x00", "", "(", "\\", "²", "²³.1"]


@pytest.mark.parametrize("command", ["gpu", "rocm", "jetpack"])
@pytest.mark.parametrize("query", HOSTILE_QUERIES)
def test_a_hostile_query_is_answered_or_refused_without_raw_control_characters(command, query):
    # Found by tools/fuzz_cli.py: `matrix gpu` matched "RTX 4090\r\nFORGED" by its words and echoed it raw, so a
    # carriage return and a new line reached the terminal.
    from ..render.test_hostile_snapshots import RAW_CONTROL

    result = invoke(command, "--", query)
    assert result.exit_code in (0, 2), result.output
    assert not RAW_CONTROL.search(result.output)
    assert not any(line.startswith("FORGED") for line in result.output.splitlines())
    if result.exit_code == 2:
        assert result.stderr.count("\n") == 1
