"""The parent side of ``verify --multi-gpu --framework tf``: one child (gpudoctor.verify.multigpu.tf_worker) runs
MirroredStrategy over N devices through the runner's streaming spawn with a timeout, writes its replicas' results to
a private directory, and assess.judge judges them like DDP's ranks. TensorFlow is imported only in that child."""

from __future__ import annotations

import collections
import json
import os
import shutil
import tempfile

from gpudoctor import child_start
from gpudoctor.verify.multigpu import assess
from gpudoctor.verify.multigpu.model import RANK_SCHEMA, Launch, RankResult
from gpudoctor.runner import Spawner, SubprocessRunner
from gpudoctor.workloads.children import child_env
from gpudoctor.verify.model import SmokeResult

TAIL_LINES = 40
# What every replica must reach: verify's TF CNN target (tf_cases/training.PLANS["cnn"], which imports TF; a test
# holds the two equal).
TF_CNN_TARGET = assess.CNN_TARGET


def worker_argv(replicas: int, where: str, result: str) -> list[str]:
    return child_start.argv("gpudoctor.verify.multigpu.tf_worker", "--replicas", str(replicas), "--where", where,
                            "--result", result)  # fmt: skip


def read_replicas(path: str) -> tuple[tuple[RankResult, ...], tuple[str, ...]]:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if doc.get("schema") != RANK_SCHEMA:
            raise ValueError(f"not a {RANK_SCHEMA} document")
        return tuple(RankResult.from_dict(r) for r in doc["replicas"]), ()
    except FileNotFoundError:
        return (), ()  # no result: the replicas check says which are missing
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return (), (f"the replicas' result is unreadable: {type(exc).__name__}: {str(exc)[:200]}",)


def run_mirrored(replicas: int, where: str, timeout_s: float, spawner: Spawner | None = None) -> SmokeResult:
    """``where``: "gpu" (the first N visible GPUs) or "cpu" (the CPU split into N logical devices)."""
    spawner = spawner or SubprocessRunner()
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
    private = tempfile.mkdtemp(prefix="gpudoctor-mirrored-")  # mode 0700: only this user writes the result
    try:
        result = os.path.join(private, "replicas.json")
        spawned = spawner.spawn(worker_argv(replicas, where, result), timeout=timeout_s, env=child_env(),
                                on_line=lambda line: tail.append(line))  # fmt: skip
        ranks, problems = read_replicas(result)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    launch = Launch(replicas, "mirrored", spawned.returncode, spawned.timed_out, spawned.wall_s, ranks, problems,
                    tuple(tail), error=spawned.error)  # fmt: skip
    return assess.judge(launch, None, timeout_s, TF_CNN_TARGET, framework="tensorflow", test="mirrored")
