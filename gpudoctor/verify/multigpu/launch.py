"""The parent side of ``verify --multi-gpu``: starts torchrun's standalone mode through the runner's streaming spawn
(one process group, killed whole at the timeout), reads the ranks' result files from a private directory, and, when
an NCCL run hung, runs it once more with NCCL_P2P_DISABLE=1 (assess.should_retry_without_p2p decides). Nothing the
ranks print is taken as a result; their output is kept as a tail (NCCL_DEBUG=INFO lines included) for the report."""

from __future__ import annotations

import collections
import json
import os
import shutil
import tempfile

from gpudoctor.runner import Spawner, SubprocessRunner
from gpudoctor.verify.model import SmokeResult
from gpudoctor.verify.multigpu import assess
from gpudoctor.verify.multigpu.model import RANK_SCHEMA, Launch, RankResult
from gpudoctor.workloads import torchrun
from gpudoctor.workloads.torchrun import launch_env

TAIL_LINES = 200  # enough to hold NCCL's init lines of a few ranks; the report shows the last NCCL ones
ALLREDUCE_MIB = {"nccl": 256, "gloo": 4}  # nccl-tests' large-message end on GPUs; small on a shared CPU


def torchrun_argv(nproc: int, backend: str, result_dir: str, timeout_s: float) -> list[str]:
    return torchrun.command(nproc, "gpudoctor.verify.multigpu.rank_worker", backend, result_dir, ALLREDUCE_MIB[backend],
                            timeout_s)


def launch(nproc: int, backend: str, timeout_s: float, spawner: Spawner, p2p_disabled: bool = False) -> Launch:
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
    private = tempfile.mkdtemp(prefix="gpudoctor-multigpu-")  # mode 0700: only this user writes the results
    try:
        spawned = spawner.spawn(torchrun_argv(nproc, backend, private, timeout_s), timeout=timeout_s,
                                env=launch_env(backend, p2p_disabled), on_line=lambda line: tail.append(line))  # fmt: skip
        ranks, problems = read_ranks(private, nproc)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    return Launch(nproc, backend, spawned.returncode, spawned.timed_out, spawned.wall_s, ranks, problems,
                  tuple(tail), p2p_disabled, spawned.error)  # fmt: skip


def read_ranks(directory: str, nproc: int) -> tuple[tuple[RankResult, ...], tuple[str, ...]]:
    ranks, problems = [], []
    for rank in range(nproc):
        path = os.path.join(directory, f"rank-{rank}.json")
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            if doc.get("schema") != RANK_SCHEMA:
                raise ValueError(f"not a {RANK_SCHEMA} document")
            result = RankResult.from_dict(doc["result"])
            if result.rank != rank:
                raise ValueError(f"it answers for rank {result.rank}")
            ranks.append(result)
        except FileNotFoundError:
            continue  # a missing rank is judged by assess.ranks_check
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            problems.append(f"rank {rank}'s result is unreadable: {type(exc).__name__}: {str(exc)[:200]}")
    return tuple(ranks), tuple(problems)


def run_ddp(nproc: int, backend: str, timeout_s: float, spawner: Spawner | None = None) -> SmokeResult:
    spawner = spawner or SubprocessRunner()
    first = launch(nproc, backend, timeout_s, spawner)
    retry = launch(nproc, backend, timeout_s, spawner, p2p_disabled=True) if assess.should_retry_without_p2p(first) else None
    return assess.judge(first, retry, timeout_s, assess.CNN_TARGET)
