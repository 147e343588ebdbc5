"""Collect from Slurm: `gpudoctor check --json` once on every node through one `srun` (one task per node, a time
limit, no --exclusive), through the runner (an argv list, never a local shell, a timeout).

Each task runs a fixed /bin/sh line on the node that prints the node's name, runs gpudoctor, then prints its exit
status; the check options travel as positional arguments ("$@"), never inside the script. srun's --label prefixes
every line with the task number, which is how the merged output is split back into nodes. Nodes sinfo lists as
down or drained, and nodes that never answer, are results with the reason, never dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..digits import is_ascii_int
from ..errors import GpuDoctorError
from ..runner import Runner, Spawner
from .documents import failed, node_from_text
from .model import NodeResult

NODE_MARK, EXIT_MARK = "gpudoctor-node: ", "gpudoctor-exit: "
TASK_SCRIPT = f'printf "{NODE_MARK}%s\\n" "${{SLURMD_NODENAME:-$(hostname)}}"; "$@"; printf "{EXIT_MARK}%s\\n" "$?"'
# sinfo's compact states (man sinfo, NODE STATE CODES) where a job step can start; "*" (not responding) is never.
USABLE_STATES = {"idle", "mix", "alloc", "comp", "completing", "mixed", "allocated", "plnd", "planned"}
_LABELLED = re.compile(r"^\s*(\d+): ?(.*)$")
_SRUN_TASK_ERROR = re.compile(r"^srun: error: (\S+): tasks? (\d+)")


class SlurmError(GpuDoctorError):
    """Slurm cannot be asked at all (no srun/sinfo here, sinfo failing): exit 2 with the reason."""


@dataclass(frozen=True)
class SlurmRequest:
    """Which Slurm nodes to ask (partition, count or hostlist), the time limit, and the gpudoctor command to run."""

    partition: str | None = None
    nodes: int | None = None  # let Slurm pick this many
    nodelist: str | None = None  # a Slurm hostlist, "node[1-4],gpu7"
    time_limit_s: int = 120
    gpudoctor: tuple[str, ...] = ("gpudoctor",)  # the command that runs gpudoctor on the nodes
    check_options: tuple[str, ...] = ()


def plan_nodes(request: SlurmRequest, runner: Runner) -> tuple[list[str], list[NodeResult]]:
    """The nodes to ask and the ones sinfo already says cannot answer. With --nodes N Slurm picks: nothing to plan."""
    if request.nodes is not None:
        return [], []
    argv = ["sinfo", "--noheader", "--Node", "--format=%N %t"]
    argv += [f"--partition={request.partition}"] if request.partition else []
    argv += [f"--nodes={request.nodelist}"] if request.nodelist else []
    result = runner.run(argv, timeout=30)
    if not result.ok:
        raise SlurmError(f"sinfo failed: {(result.error or result.stderr or result.stdout).strip() or result.returncode}")
    usable, unusable = [], []
    for line in dict.fromkeys(result.stdout.splitlines()):  # a node in two partitions is listed twice
        name, _, state = line.strip().partition(" ")
        if not name or name in usable or any(n.name == name for n in unusable):
            continue
        if state.rstrip("*~#!%$@^-") in USABLE_STATES and not state.endswith("*"):
            usable.append(name)
        else:
            unusable.append(failed(name, "sinfo", f"not available to run a job (Slurm state {state or 'unknown'})"))
    if not usable and not unusable:
        raise SlurmError("sinfo lists no node" + (f" in partition {request.partition}" if request.partition else ""))
    return usable, unusable


def srun_argv(request: SlurmRequest, nodelist: Sequence[str]) -> list[str]:
    minutes, seconds = divmod(max(request.time_limit_s, 1), 60)
    argv = ["srun", "--ntasks-per-node=1", f"--time={minutes}:{seconds:02d}", "--label", "--kill-on-bad-exit=0",
            "--job-name=gpudoctor-fleet"]
    argv += [f"--partition={request.partition}"] if request.partition else []
    if nodelist:
        argv += [f"--nodes={len(nodelist)}", f"--nodelist={','.join(nodelist)}"]
    elif request.nodes is not None:
        argv += [f"--nodes={request.nodes}"]
    return argv + ["/bin/sh", "-c", TASK_SCRIPT, "gpudoctor-fleet", *request.gpudoctor, "check", "--json",
                   *request.check_options]


@dataclass
class _Task:
    """One srun task's output as it arrives: its node, the lines it printed so far, and its exit status once done."""

    name: str | None = None
    lines: list[str] = field(default_factory=list)
    exit_status: int | None = None


class OutputSplitter:
    """Feeds on srun's merged, labelled output line by line (so progress shows while nodes answer)."""

    def __init__(self, on_node_done: Callable[[str], None] | None = None):
        self.tasks: dict[int, _Task] = {}
        self.srun_lines: list[str] = []
        self.task_nodes: dict[int, str] = {}  # from srun's own error lines: "srun: error: node2: task 1: ..."
        self._on_node_done = on_node_done

    def feed(self, line: str) -> None:
        match = _LABELLED.match(line)
        if not match:
            self.srun_lines.append(line)
            if error := _SRUN_TASK_ERROR.match(line):
                self.task_nodes.setdefault(int(error.group(2)), error.group(1))
            return
        task = self.tasks.setdefault(int(match.group(1)), _Task())
        body = match.group(2)
        if body.startswith(NODE_MARK) and task.name is None:
            task.name = body[len(NODE_MARK):].strip() or None
        elif body.startswith(EXIT_MARK) and is_ascii_int(body[len(EXIT_MARK):].strip(), 9):
            task.exit_status = int(body[len(EXIT_MARK):])
            if self._on_node_done is not None:
                self._on_node_done(task.name or f"task {match.group(1)}")
        else:
            task.lines.append(body)

    def results(self, timed_out: bool, time_limit_s: int) -> list[NodeResult]:
        results = []
        for number, task in sorted(self.tasks.items()):
            name = task.name or self.task_nodes.get(number) or f"task {number}"
            results.append(_task_result(task, name, f"srun task {number}", timed_out, time_limit_s, self.srun_lines))
        return results


def _task_result(task: _Task, name: str, origin: str, timed_out: bool, time_limit_s: int,
                 srun_lines: list[str]) -> NodeResult:  # fmt: skip
    document = _json_block(task.lines) if task.exit_status is not None else None
    if document is None:
        # slurmstepd says "*** STEP 10.0 ON node1 CANCELLED AT ... DUE TO TIME LIMIT ***" in the task's own output.
        limit = any("DUE TO TIME LIMIT" in line for line in (*task.lines, *srun_lines))
        if limit or (timed_out and task.exit_status is None):
            return failed(name, origin, f"no answer within the time limit ({time_limit_s} s)")
        if task.exit_status is None:
            return failed(name, origin, "stopped before answering" + _last_message(task.lines))
    if document is not None:
        node = node_from_text(document, name, origin)
        if node.answered:
            return node
        return failed(name, origin, f"exit {task.exit_status}, output unreadable: {node.failure}")
    if task.exit_status == 127:
        return failed(name, origin, "gpudoctor not found on the node (exit 127)" + _last_message(task.lines))
    return failed(name, origin, f"exit {task.exit_status} without a report" + _last_message(task.lines))


def _json_block(lines: list[str]) -> str | None:
    """The report: from its first line "{" to its last line "}" (json_report indents, so both are whole lines);
    anything the node printed around it (warnings on stderr) is left out."""
    starts = [i for i, line in enumerate(lines) if line.startswith("{")]
    ends = [i for i, line in enumerate(lines) if line.rstrip() == "}"]
    if not starts:
        return None
    end = ends[-1] if ends and ends[-1] >= starts[0] else len(lines) - 1
    return "\n".join(lines[starts[0]: end + 1])


def _last_message(lines: list[str]) -> str:
    text = [line.strip() for line in lines if line.strip()]
    return f": {text[-1][:120]}" if text else ""


def collect(request: SlurmRequest, runner: Runner, spawner: Spawner,
            on_start: Callable[[int], None] | None = None,
            on_node_done: Callable[[str], None] | None = None) -> list[NodeResult]:  # fmt: skip
    usable, unusable = plan_nodes(request, runner)
    if request.nodes is None and not usable:
        return unusable
    if on_start is not None:
        on_start(len(usable) if usable else request.nodes or 0)
    splitter = OutputSplitter(on_node_done)
    done = spawner.spawn(srun_argv(request, usable), timeout=request.time_limit_s + 60, on_line=splitter.feed)
    if done.returncode is None and not done.timed_out:
        raise SlurmError(f"srun could not start: {done.error}")
    answered = splitter.results(done.timed_out, request.time_limit_s)
    seen = {n.name for n in answered}
    reason = next((line for line in reversed(splitter.srun_lines) if line.startswith("srun: error")), None)
    if not answered and not usable:  # Slurm picked the nodes and none ran: nothing to list but srun's reason
        raise SlurmError(f"srun ran no task (exit {done.returncode}): {reason or 'no output'}"
                         + (" (timed out)" if done.timed_out else ""))
    missing = [failed(name, "srun", "no answer" + (f" ({reason[:160]})" if reason else f" (srun exit {done.returncode})"))
               for name in usable if name not in seen]
    return answered + missing + unusable
