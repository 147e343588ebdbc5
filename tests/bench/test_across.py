"""bench across devices: NVIDIA's tools' verdicts parsed from real outputs (tests/data/nvidia_tools/SOURCES.md),
run through a FakeRunner; the all-reduce launch with a torchrun stand-in; the bus bandwidth judged against the
topology (a real topo -m of an H100 NVL host); every GPU benched in turn; the renderers; and, slow, a real 2-process
gloo all-reduce on this CPU."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Callable, Mapping, Sequence

import pytest

from gpudoctor.bench import BenchOptions, run_bench
from gpudoctor.bench.across import measure_allreduce, measure_across
from gpudoctor.bench.interconnect import judge, peer_links
from gpudoctor.bench.model import WORKER_SCHEMA, BenchReport, Interconnect, ToolVerdict, report_from_dict, to_dict
from gpudoctor.bench.nvidia_tools import probe_nvidia_tools
from gpudoctor.bench.tool_verdicts import parse_all_reduce_perf, parse_dcgmi_diag, parse_nvbandwidth
from gpudoctor.matrix import load_matrix
from gpudoctor.render.bench_html import to_html
from gpudoctor.render.bench_text import to_text
from gpudoctor.runner import CommandResult, SpawnResult
from gpudoctor.topology_text import parse_topo_links
from gpudoctor.workloads.allreduce import ALLREDUCE_SCHEMA
from tests.conftest import needs
from tests.fakes import FakeRunner

DATA = Path(__file__).resolve().parent.parent / "data"
TOOLS = DATA / "nvidia_tools"


def tool_output(name: str) -> str:
    return (TOOLS / name).read_text(encoding="utf-8")


# --- NVIDIA's tools -----------------------------------------------------------------------------------------------


def test_dcgmi_diag_of_dcgm_3_and_4_pass_every_test_and_metadata_is_not_a_test():
    old = parse_dcgmi_diag(tool_output("dcgmi-diag-3.0.4-dcgm-issue55.txt"))
    assert (old.verdict, old.summary) == ("pass", "9 pass of 9 tests")
    new = parse_dcgmi_diag(tool_output("dcgmi-diag-4.2.3-dcgm-issue253.txt"))
    assert (new.verdict, new.summary) == ("pass", "2 pass of 2 tests")  # "DCGM Version | 4.2.3" is not a test


def test_dcgmi_diag_fail_and_warn_rows_decide_the_verdict_and_are_named():
    # the real DCGM 3 table with two rows changed as a failing node prints them (DCGM's result words)
    text = tool_output("dcgmi-diag-3.0.4-dcgm-issue55.txt")
    failed = text.replace("| Persistence Mode          | Pass ", "| Persistence Mode          | Warn ").replace(
        "| Page Retirement/Row Remap | Pass ", "| Page Retirement/Row Remap | Fail ")
    verdict = parse_dcgmi_diag(failed)
    assert verdict.verdict == "fail" and verdict.summary == "7 pass, 1 fail, 1 warn of 9 tests"
    assert "Deployment: Page Retirement/Row Remap Fail" in verdict.details
    per_gpu = tool_output("dcgmi-diag-4.2.3-dcgm-issue253.txt").replace("GPU2: Pass", "GPU2: Fail")
    assert "software: GPU 2 Fail" in parse_dcgmi_diag(per_gpu).details


def test_all_reduce_perf_summary_and_a_failed_data_check():
    text = tool_output("all_reduce_perf-2x2080ti-nccl-issue340.txt")
    ok = parse_all_reduce_perf(text)
    assert (ok.verdict, ok.value) == ("pass", 6.6972)
    wrong = parse_all_reduce_perf(text.replace("values : 0 OK", "values : 50 FAILED"))
    assert wrong.verdict == "fail" and "50 values out of bounds" in wrong.summary


def test_nvbandwidth_sum_lines_and_an_assert():
    ok = parse_nvbandwidth(tool_output("nvbandwidth-0.8-a100-nvbandwidth-issue42.txt"))
    assert (ok.verdict, ok.value, ok.details) == ("pass", 25.13, ("host_to_device_memcpy_sm 25.13 GB/s",))
    bad = parse_nvbandwidth(tool_output("nvbandwidth-0.7-assert-nvbandwidth-issue34.txt"))
    assert bad.verdict == "fail" and "Invalid value when checking the pattern" in bad.summary


def test_output_without_a_result_is_an_error_verdict_not_a_pass():
    for parse in (parse_dcgmi_diag, parse_all_reduce_perf, parse_nvbandwidth):
        assert parse("Error: unable to connect to host engine\n").verdict == "error"


def test_tools_run_only_when_installed_and_their_exit_status_counts():
    assert probe_nvidia_tools(FakeRunner(), 2) == ()  # none installed: nothing runs, nothing is said
    runner = FakeRunner({
        "dcgmi": tool_output("dcgmi-diag-3.0.4-dcgm-issue55.txt"),
        "all_reduce_perf": CommandResult(("all_reduce_perf",), 1, tool_output("all_reduce_perf-2x2080ti-nccl-issue340.txt")),
        "nvbandwidth": CommandResult(("nvbandwidth",), None, error="nvbandwidth: timed out after 180s"),
    })  # fmt: skip
    dcgmi, nccl, nvb = probe_nvidia_tools(runner, 2)
    assert runner.calls[0] == ("dcgmi", "diag", "-r", "1") and runner.calls[1][-2:] == ("-g", "2")
    assert dcgmi.verdict == "pass"
    assert nccl.verdict == "fail" and nccl.summary.startswith("exited with status 1")
    assert (nvb.verdict, nvb.summary) == ("error", "nvbandwidth: timed out after 180s")


# --- the all-reduce launch ----------------------------------------------------------------------------------------


class FakeLaunch:
    """The runner's spawn: the bench worker (writes a worker result for --device) or torchrun's all-reduce-only
    launch (writes rank 0's allreduce.json), or plays a hang."""

    def __init__(self, busbw: float | None = 0.36, hang: bool = False):
        self.busbw, self.hang = busbw, hang
        self.calls: list[tuple[str, ...]] = []

    def spawn(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
              on_line: Callable[[str], None] | None = None) -> SpawnResult:  # fmt: skip
        argv = tuple(argv)
        self.calls.append(argv)
        if "gpudoctor.bench.worker" in argv:
            device = argv[argv.index("--device") + 1]
            with open(argv[argv.index("--result-file") + 1], "w", encoding="utf-8") as f:
                json.dump({"schema": WORKER_SCHEMA, "device": device, "device_name": "NVIDIA H100 80GB HBM3",
                           "done": True, "measurements": [{"name": "matmul-bf16", "value": 700.0}]}, f)  # fmt: skip
            return SpawnResult(argv, 0, wall_s=10.0)
        assert argv[1:4] == ("-m", "torch.distributed.run", "--standalone") and "gpudoctor.workloads.allreduce_worker" in argv, argv
        if self.hang:
            return SpawnResult(argv, None, timed_out=True, wall_s=timeout)
        if self.busbw is not None:
            path = os.path.join(argv[argv.index("--result-dir") + 1], "allreduce.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"schema": ALLREDUCE_SCHEMA, "ranks": 2, "bytes": 16777216, "seconds": 0.047,
                           "algbw_gbs": self.busbw, "busbw_gbs": self.busbw}, f)  # fmt: skip
        return SpawnResult(argv, 0, wall_s=18.0)


def test_the_all_reduce_launch_reads_rank_0s_figure_and_a_hang_or_silence_is_an_error():
    ok = measure_allreduce(2, "gloo", 60, FakeLaunch())
    assert (ok.busbw_gbs, ok.nbytes, ok.error) == (0.36, 16777216, None)
    hung = measure_allreduce(2, "nccl", 60, FakeLaunch(hang=True))
    assert hung.busbw_gbs is None and "hung: killed after 60s" in hung.error
    silent = measure_allreduce(2, "gloo", 60, FakeLaunch(busbw=None))
    assert "exited with status 0 and no result" in silent.error


# --- judging against the topology ---------------------------------------------------------------------------------


def h100_pair(p2p: str = "ok") -> tuple:
    links = parse_topo_links((DATA / "multigpu" / "topo-m-h100nvl-nccl1608.txt").read_text())
    two = {k: v for k, v in links.items() if set(k) == {0, 1}}  # the NV12 pair
    return peer_links(two, {(0, 1): {"read": p2p}, (1, 0): {"read": p2p}}, 2)


def spec_table():
    table = load_matrix().gpu_specs
    return table, table.for_name("NVIDIA H100 80GB HBM3")


def test_nvlink_busbw_far_below_half_the_nvlink_figure_is_a_warning_with_its_causes():
    table, spec = spec_table()
    low = judge(Interconnect(2, "nccl", busbw_gbs=40.0, links=h100_pair("topology not supported")), spec, table)
    assert low.expected_gbs == spec.nvlink_gbs / 2 and low.ratio == pytest.approx(40.0 / low.expected_gbs)
    ids = [f.id for f in low.findings]
    assert ids == ["bench-p2p-unavailable", "bench-allreduce-below-topology"]
    assert any("P2P is not available between GPU0-GPU1" in e for e in low.findings[1].evidence)
    healthy = judge(Interconnect(2, "nccl", busbw_gbs=380.0, links=h100_pair()), spec, table)
    assert healthy.findings == () and healthy.ratio > 0.8


def test_a_sys_path_judges_against_pcie_and_names_the_socket_crossing():
    table, spec = spec_table()
    links = parse_topo_links((DATA / "multigpu" / "topo-m-h100nvl-nccl1608.txt").read_text())
    pairs = peer_links({k: v for k, v in links.items() if set(k) == {0, 2}}, None, 3)
    judged = judge(Interconnect(3, "nccl", busbw_gbs=3.0, links=pairs), spec, table)
    assert judged.expected_basis.startswith("PCIe gen 5 x16")
    (finding,) = judged.findings
    assert any("SYS" in e for e in finding.evidence)


def test_no_spec_no_figure_and_the_cpu_raise_nothing():
    table, _ = spec_table()
    assert judge(Interconnect(2, "nccl", busbw_gbs=1.0, links=h100_pair()), None, table).findings == ()
    assert judge(Interconnect(2, "nccl", error="hung", links=h100_pair()), table.specs[0], table).findings == ()
    cpu = judge(Interconnect(2, "gloo", busbw_gbs=0.3), None, table)
    assert cpu.expected_gbs is None and cpu.findings == ()


# --- every GPU in turn, and the report ----------------------------------------------------------------------------


class NoNvml:
    def nvmlInit(self):
        raise OSError("no driver here")


def test_auto_with_two_gpus_benches_each_then_the_all_reduce_and_the_tools():
    assert BenchOptions(gpus=1).devices() == ("auto",) and BenchOptions(gpus=1).across() is None
    launch = FakeLaunch(busbw=300.0)
    runner = FakeRunner({"dcgmi": tool_output("dcgmi-diag-3.0.4-dcgm-issue55.txt"), "nvidia-smi": "GPU0\tGPU1\n"})
    report = run_bench(BenchOptions(gpus=2, quick=True), load_matrix(), launch, NoNvml(), runner=runner)
    assert [d.device for d in report.devices] == ["cuda:0", "cuda:1"]
    assert [c[c.index("--device") + 1] for c in launch.calls if "--device" in c] == ["cuda:0", "cuda:1"]
    assert report.interconnect.backend == "nccl" and report.interconnect.busbw_gbs == 300.0
    assert [t.tool for t in report.nvidia_tools] == ["dcgmi diag"]
    assert report_from_dict(json.loads(json.dumps(to_dict(report))), "x") == report


def test_text_and_html_show_the_all_reduce_the_p2p_matrix_and_hostile_tool_text_as_written():
    table, spec = spec_table()
    ic = judge(Interconnect(2, "nccl", busbw_gbs=40.0, nbytes=2**28, links=h100_pair()), spec, table)
    tool = ToolVerdict("dcgmi diag", "dcgmi diag -r 1", "fail", "1 fail of 9 tests", ("<script>[bold]x",))
    report = BenchReport((), interconnect=ic, nvidia_tools=(tool,))
    text = to_text(report)
    assert "bus bandwidth 40.0 GB/s of 256 MiB" in text and "NV12 P2P" in text and "<script>[bold]x" in text
    assert "WARNING [bench-allreduce-below-topology]" in text and report.worst == "error"
    html = to_html(report)
    assert "&lt;script&gt;" in html and "<script>" not in html and "NV12 P2P" in html


@pytest.mark.slow
@needs("torch")
def test_a_real_two_process_gloo_all_reduce_on_this_cpu():
    table = load_matrix().gpu_specs
    measured = measure_across(2, "gloo", 240, table, None)
    assert measured.error is None and measured.busbw_gbs > 0 and measured.ranks == 2
    assert measured.nbytes == 16 * 2**20 and measured.expected_gbs is None
    assert dataclasses.replace(measured, wall_s=None).links == ()
