"""The parent side with a torchrun stand-in (argv, env, private result files, the one P2P retry), and the topology
readers on real nvidia-smi outputs (sources in tests/data/multigpu/*.source and the files' first lines)."""

from __future__ import annotations

import json
from pathlib import Path

from gpudoctor.topology_text import p2p_expectation, parse_topo_links, parse_topo_p2p
from gpudoctor.verify.multigpu import launch as launch_mod
from gpudoctor.verify.multigpu.model import RankResult
from gpudoctor.probes.p2p import probe_p2p_status
from gpudoctor.verify.model import SmokeStatus
from tests.multigpu.fakes import FakeTorchrun, nccl_lines, rank

DATA = Path(__file__).parent.parent / "data" / "multigpu"


def test_a_healthy_gloo_launch_reads_every_rank_file_and_passes():
    fake = FakeTorchrun(lambda env: ([rank(0), rank(1)], False, ["some log"]))
    result = launch_mod.run_ddp(2, "gloo", 60, fake)
    assert result.status is SmokeStatus.PASSED and len(fake.calls) == 1
    argv, env = fake.calls[0]
    assert argv[argv.index("--nproc-per-node") + 1] == "2" and argv[argv.index("--backend") + 1] == "gloo"
    assert "NCCL_DEBUG" not in env or env["NCCL_DEBUG"] == "INFO"


def test_an_nccl_hang_is_retried_once_with_p2p_disabled_and_the_verdict_names_p2p():
    def behave(env):
        if env.get("NCCL_P2P_DISABLE") == "1":
            return [rank(0, backend="nccl"), rank(1, backend="nccl")], False, []
        return [], True, nccl_lines()

    fake = FakeTorchrun(behave)
    result = launch_mod.run_ddp(2, "nccl", 30, fake)
    assert [env.get("NCCL_P2P_DISABLE") for _, env in fake.calls] == [None, "1"]
    assert all(env["NCCL_DEBUG"] == "INFO" for _, env in fake.calls)
    assert result.status is SmokeStatus.FAILED and "with NCCL_P2P_DISABLE=1 it passed" in result.reason
    assert "Could not enable P2P" in result.stderr_tail


def test_a_gloo_hang_is_not_retried():
    fake = FakeTorchrun(lambda env: ([], True, []))
    result = launch_mod.run_ddp(2, "gloo", 5, fake)
    assert len(fake.calls) == 1 and result.status is SmokeStatus.FAILED and "hung" in result.reason


def test_a_rank_file_for_another_rank_or_schema_is_not_taken(tmp_path):
    (tmp_path / "rank-0.json").write_text(json.dumps({"schema": "gpudoctor.multigpu.rank/1", "result": rank(1).to_dict()}))
    (tmp_path / "rank-1.json").write_text(json.dumps({"schema": "other", "result": rank(1).to_dict()}))
    ranks, problems = launch_mod.read_ranks(str(tmp_path), 2)
    assert ranks == () and len(problems) == 2 and "answers for rank 1" in problems[0]


def test_rank_results_round_trip():
    r = rank(1)
    assert RankResult.from_dict(json.loads(json.dumps(r.to_dict()))) == r


def test_topo_m_with_nvlink_pairs_and_cross_socket_pairs():
    links = parse_topo_links((DATA / "topo-m-h100nvl-nccl1608.txt").read_text())
    assert links[(0, 1)] == links[(1, 0)] == "NV12" and links[(0, 2)] == links[(2, 1)] == "SYS" and len(links) == 6


def test_tab_separated_topo_m_and_p2p_matrix_of_geforce_boards():
    links = parse_topo_links((DATA / "topo-m-5090x2-club3090-1140.txt").read_text())
    p2p = parse_topo_p2p((DATA / "topo-p2p-rw-5090x2-club3090-1140.txt").read_text())
    assert links == {(0, 1): "PHB", (1, 0): "PHB"} and p2p[(0, 1)] == "GPU not supported"
    assert p2p_expectation(links[(0, 1)], p2p[(0, 1)]) is None  # GeForce over PCIe: normal, no alarm


def test_nvlink_without_p2p_is_a_problem_and_unknown_is_not():
    assert "NVLink is down" in p2p_expectation("NV12", "GPU not supported")
    assert p2p_expectation("NV12", None) is None and p2p_expectation("NV12", "ok") is None


class FakeP2pNvml:
    """pynvml's names: nvmlDeviceGetP2PStatus(handle1, handle2, p2pIndex) -> nvmlGpuP2PStatus_t (int)."""

    NVML_P2P_CAPS_INDEX_READ, NVML_P2P_CAPS_INDEX_WRITE, NVML_P2P_CAPS_INDEX_NVLINK = 0, 1, 2

    class NVMLError(Exception):
        pass

    def nvmlDeviceGetCount(self):
        return 2

    def nvmlDeviceGetHandleByIndex(self, i):
        return f"handle{i}"

    def nvmlDeviceGetP2PStatus(self, a, b, index):
        if index == 2:
            raise self.NVMLError("Not Supported")
        return 0 if index == 0 else 2


def test_nvml_p2p_status_per_pair_and_capability():
    status = probe_p2p_status(FakeP2pNvml())
    assert status[(0, 1)] == {"read": "ok", "write": "GPU not supported", "nvlink": None} and (0, 0) not in status
