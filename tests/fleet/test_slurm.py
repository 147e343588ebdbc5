"""`fleet --slurm` against recorded output of a real Slurm 22.05 (Debian 12, tools/slurm/start.sh, two slurmd):
srun's merged, --label'led stdout/stderr, captured through gpudoctor.runner.spawn with the argv srun_argv builds."""

from __future__ import annotations

import pytest

from gpudoctor.fleet.slurm import SlurmError, SlurmRequest, collect, srun_argv
from gpudoctor.runner import CommandResult, SpawnResult

from ..conftest import DATA
from ..fakes import FakeRunner

SLURM = DATA / "slurm"
SINFO_BOTH_IDLE = "node1 idle\nnode2 idle\n"


class FakeSpawner:
    """runner.spawn's signature; replays a recorded srun output line by line."""

    def __init__(self, recording: str | None, returncode: int | None = 0, timed_out: bool = False):
        self.lines = (SLURM / f"{recording}.txt").read_text().splitlines() if recording else []
        self.returncode, self.timed_out = returncode, timed_out
        self.calls: list[tuple[tuple[str, ...], float]] = []

    def spawn(self, argv, timeout, env=None, on_line=None):
        self.calls.append((tuple(argv), timeout))
        for line in self.lines:
            on_line(line)
        error = None if self.returncode is not None or self.timed_out else "srun: No such file or directory"
        return SpawnResult(tuple(argv), self.returncode, self.timed_out, error)


def run(recording, sinfo=SINFO_BOTH_IDLE, **request):
    spawner = FakeSpawner(recording)
    done = []
    nodes = collect(SlurmRequest(**request), FakeRunner({"sinfo": sinfo}), spawner, on_node_done=done.append)
    return {n.name: n for n in nodes}, spawner, done


def test_two_real_nodes_answer_with_their_reports():
    nodes, spawner, done = run("two-nodes")
    assert sorted(nodes) == ["node1", "node2"] and sorted(done) == ["node1", "node2"]
    for node in nodes.values():
        assert node.answered and node.exit_code == 0
        assert "no-nvidia-gpu" in {f.id for f in node.findings}  # the CI machine has no GPU
        assert node.fact("gpu_count") == "0"
    argv, timeout = spawner.calls[0]
    assert argv[:2] == ("srun", "--ntasks-per-node=1") and "--nodes=2" in argv and "--nodelist=node1,node2" in argv
    assert "--exclusive" not in argv and timeout > 120


def test_gpudoctor_missing_on_a_node():
    nodes, _, _ = run("not-found", sinfo="node1 idle\n")
    assert nodes["node1"].failure.startswith("gpudoctor not found on the node (exit 127)")


def test_garbage_output_is_a_failed_node():
    nodes, _, _ = run("garbage", sinfo="node1 idle\n")
    assert nodes["node1"].failure == "exit 0 without a report: check --json"


def test_a_command_that_fails_without_a_report():
    nodes, _, _ = run("exit-without-report")
    assert all(n.failure.startswith("exit 1 without a report") for n in nodes.values())


def test_a_node_past_the_time_limit():
    nodes, _, _ = run("timeout", sinfo="node1 idle\n", time_limit_s=60)
    assert nodes["node1"].failure.startswith("no answer within the time limit (60 s)")


def test_a_node_sinfo_says_is_down_is_listed_and_not_asked():
    sinfo = (SLURM / "sinfo-node2-down.txt").read_text()
    nodes, spawner, _ = run("two-nodes", sinfo=sinfo)
    assert nodes["node2"].failure == "not available to run a job (Slurm state down)"
    assert "--nodelist=node1" in spawner.calls[0][0]


def test_a_node_in_the_list_that_never_answers():
    nodes, _, _ = run("not-found", sinfo="node1 idle\nnode2 idle\n")
    assert nodes["node2"].failure.startswith("no answer")


def test_the_check_options_travel_as_arguments_never_inside_the_script():
    request = SlurmRequest(partition="gpu", time_limit_s=90, gpudoctor=("/opt/venv/bin/gpudoctor",),
                           check_options=("--ignore", "x; rm -rf /"))
    argv = srun_argv(request, ["n1"])
    script_at = argv.index("-c") + 1
    assert "rm -rf" not in argv[script_at]
    assert argv[script_at + 1:] == ["gpudoctor-fleet", "/opt/venv/bin/gpudoctor", "check", "--json", "--ignore",
                                    "x; rm -rf /"]
    assert "--time=1:30" in argv and "--partition=gpu" in argv


def test_no_srun_is_one_clear_error():
    spawner = FakeSpawner(None, returncode=None)
    with pytest.raises(SlurmError, match="srun could not start"):
        collect(SlurmRequest(), FakeRunner({"sinfo": SINFO_BOTH_IDLE}), spawner)


def test_sinfo_failing_is_one_clear_error():
    runner = FakeRunner({"sinfo": CommandResult(("sinfo",), 1, "", "sinfo: error: Invalid partition name specified")})
    with pytest.raises(SlurmError, match="Invalid partition"):
        collect(SlurmRequest(partition="nope"), runner, FakeSpawner(None))


def test_with_a_node_count_slurm_picks_and_sinfo_is_not_asked():
    runner = FakeRunner({})
    nodes = collect(SlurmRequest(nodes=2), runner, FakeSpawner("two-nodes"))
    assert runner.calls == [] and sorted(n.name for n in nodes) == ["node1", "node2"]
