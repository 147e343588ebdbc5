"""The parent side of the bench child (how it ended -> a result), the worker's precision choice, the renderers
(hostile GPU names stay text) and the CLI's --compare / --save without measuring anything."""

from __future__ import annotations

import json

from click.testing import CliRunner

from gpudoctor.bench.child import judge_child
from gpudoctor.bench.model import WORKER_SCHEMA, BenchReport, DeviceResult, Judged, Measurement, report_from_dict, to_dict
from gpudoctor.bench.worker import parse_min_cc, precisions_for
from gpudoctor.cli import main
from gpudoctor.render.bench_html import to_html
from gpudoctor.render.bench_text import compare_text, to_text
from gpudoctor.runner import SpawnResult

ARGV = ("python", "-m", "gpudoctor.bench.worker")


def doc(done: bool, *measurements: dict) -> str:
    return json.dumps({"schema": WORKER_SCHEMA, "device": "cuda:0", "device_name": "NVIDIA L4", "done": done,
                       "compute_capability": "8.9", "pci_bus_id": "00000000:01:00.0", "torch": "2.15.0",
                       "measurements": list(measurements)})  # fmt: skip


def test_a_timeout_keeps_the_finished_figures_and_names_the_rest_not_reached():
    text = doc(False, {"name": "matmul-fp32", "value": 28.0, "detail": "8192x8192"})
    result, bus = judge_child("auto", SpawnResult(ARGV, -9, timed_out=True, wall_s=45.0), text, [], 45.0)
    assert result.measurement("matmul-fp32").value == 28.0
    assert result.error.startswith("timed out after 45s")
    assert result.measurement("largest-batch").error == "not reached: timed out after 45s and was killed"
    assert bus == "00000000:01:00.0" and result.device_name == "NVIDIA L4"


def test_a_crash_without_a_result_is_a_failure_that_quotes_the_last_line():
    result, _ = judge_child("cuda:0", SpawnResult(ARGV, -6), None, ["CUDA error: an illegal memory access"], 60.0)
    assert result.error == "child died with SIGABRT (last output: CUDA error: an illegal memory access)"


def test_an_exit_0_without_the_result_file_is_not_a_success():
    result, _ = judge_child("cuda:0", SpawnResult(ARGV, 0), None, [], 60.0)
    assert result.error.startswith("the child wrote no result")


def test_a_finished_child_is_a_clean_result():
    text = doc(True, {"name": "memory-copy", "value": 250.0}, {"name": "not-a-measurement", "value": 1.0})
    result, _ = judge_child("auto", SpawnResult(ARGV, 0), text, [], 60.0)
    assert result.error is None and [m.name for m in result.measurements] == ["memory-copy"]


def test_tensor_precisions_follow_the_matrix_thresholds():
    floors = parse_min_cc("fp16=7.0,tf32=8.0,bf16=8.0")
    assert precisions_for((7, 5), floors, cuda=True) == ("fp32", "fp16")
    assert precisions_for((9, 0), floors, cuda=True) == ("fp32", "tf32", "fp16", "bf16")
    assert precisions_for((6, 1), floors, cuda=True) == ("fp32",)
    assert precisions_for(None, floors, cuda=False) == ("fp32", "bf16")


HOSTILE = '<script>alert(1)</script> [bold red]x[/] \x1b[2J'


def hostile_report() -> BenchReport:
    d = DeviceResult("cuda:0", HOSTILE, "8.9", spec_name="L4", measurements=(Measurement("matmul-bf16", 60.0),),
                     judged=(Judged("matmul-bf16", 60.0, "TFLOPS", 121.0, 60 / 121, "bf16 matmul 60.0 TFLOPS = 50%"),))
    return BenchReport((d,), quick=True, host="<b>host</b>")


def test_html_escapes_a_hostile_gpu_name_and_draws_the_bar():
    page = to_html(hostile_report())
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'style="width:49.6%"' in page and "http" not in page  # self-contained: no network reference


def test_text_shows_rich_markup_and_control_characters_as_written():
    out = to_text(hostile_report())
    assert "[bold red]x[/]" in out and "\x1b" not in out and "\\x1b[2J" in out
    assert "50% of 121 TFLOPS" in out


def test_a_saved_result_round_trips():
    report = hostile_report()
    assert report_from_dict(json.loads(json.dumps(to_dict(report))), "a.json") == report


def test_compare_sets_two_saved_files_side_by_side(tmp_path):
    a, b = hostile_report(), BenchReport((DeviceResult("cpu", "CPU", measurements=(Measurement("matmul-bf16", 0.12),)),))
    (tmp_path / "a.json").write_text(json.dumps(to_dict(a)))
    (tmp_path / "b.json").write_text(json.dumps(to_dict(b)))
    run = CliRunner().invoke(main, ["bench", "--compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    assert run.exit_code == 0, run.output
    row = next(line for line in run.output.splitlines() if line.startswith("matmul bf16"))
    assert row.split()[2:] == ["60.0", "TFLOPS", "120", "GFLOPS", "0.00x"]
    assert "0.00x" in compare_text(a, b, "a", "b")


def test_compare_with_an_unreadable_file_is_one_error_line(tmp_path):
    (tmp_path / "a.json").write_text('{"schema": "something else"}')
    run = CliRunner().invoke(main, ["bench", "--compare", str(tmp_path / "a.json"), str(tmp_path / "missing.json")])
    assert run.exit_code == 2
    assert "not a saved gpudoctor bench result" in run.output and "Traceback" not in run.output


def test_save_never_overwrites_without_force(tmp_path):
    target = tmp_path / "result.json"
    target.write_text("mine")
    run = CliRunner().invoke(main, ["bench", "--save", str(target)])
    assert run.exit_code == 2 and "already exists" in run.output
    assert target.read_text() == "mine"


def test_a_bad_device_is_a_usage_error():
    assert CliRunner().invoke(main, ["bench", "--device", "gpu7"]).exit_code == 2


def test_a_device_index_means_that_cuda_device():
    from gpudoctor.cli.bench_cmd import _device

    assert (_device(None, None, "1"), _device(None, None, "CUDA"), _device(None, None, "cpu")) == ("cuda:1", "cuda:0", "cpu")
