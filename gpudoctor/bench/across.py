"""bench across devices: the all-reduce bus bandwidth from a torchrun launch of gpudoctor.workloads.allreduce_worker
(NCCL over every visible GPU, or N gloo processes on the CPU), the P2P matrix (NVML) and
the links (``nvidia-smi topo -m``), then judged by gpudoctor.bench.interconnect. The launch goes through the
runner's streaming spawn with a timeout, in one process group that is killed whole when it hangs."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from typing import Any

from gpudoctor.bench import interconnect
from gpudoctor.bench.model import Interconnect
from gpudoctor.matrix.tables.gpu_specs import GpuSpec, GpuSpecTable
from gpudoctor.runner import Runner, Spawner, SubprocessRunner
from gpudoctor.workloads import torchrun
from gpudoctor.workloads.allreduce import ALLREDUCE_SCHEMA
from gpudoctor.workloads.torchrun import launch_env

ALLREDUCE_MIB = {"nccl": 256, "gloo": 16}  # nccl-tests' large-message end on GPUs; small enough for a shared CPU


def allreduce_argv(nproc: int, backend: str, result_dir: str, timeout_s: float) -> list[str]:
    return torchrun.command(nproc, "gpudoctor.workloads.allreduce_worker", backend, result_dir, ALLREDUCE_MIB[backend],
                            timeout_s)


def measure_allreduce(nproc: int, backend: str, timeout_s: float, spawner: Spawner) -> Interconnect:
    private = tempfile.mkdtemp(prefix="gpudoctor-allreduce-")  # mode 0700: only this user writes the result
    tail: list[str] = []
    try:
        spawned = spawner.spawn(allreduce_argv(nproc, backend, private, timeout_s), timeout=timeout_s,
                                env=launch_env(backend, False), on_line=lambda line: tail.append(line))  # fmt: skip
        doc, problem = _read(os.path.join(private, "allreduce.json"))
    finally:
        shutil.rmtree(private, ignore_errors=True)
    if spawned.error is not None:
        return Interconnect(nproc, backend, error=f"could not start torchrun: {spawned.error}", wall_s=spawned.wall_s)
    if spawned.timed_out:
        return Interconnect(nproc, backend, error=f"the {nproc}-rank {backend} all-reduce hung: killed after "
                            f"{timeout_s:g}s", wall_s=spawned.wall_s)  # fmt: skip
    if doc is None:
        last = next((line.strip() for line in reversed(tail) if line.strip()), "")
        why = problem or f"torchrun exited with status {spawned.returncode} and no result"
        return Interconnect(nproc, backend, error=why + (f": {last[:200]}" if last else ""), wall_s=spawned.wall_s)
    return Interconnect(int(doc["ranks"]), backend, busbw_gbs=float(doc["busbw_gbs"]),
                        algbw_gbs=float(doc["algbw_gbs"]), nbytes=int(doc["bytes"]), wall_s=spawned.wall_s)  # fmt: skip


def _read(path: str) -> tuple[dict | None, str | None]:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if doc.get("schema") != ALLREDUCE_SCHEMA:
            raise ValueError(f"not a {ALLREDUCE_SCHEMA} document")
        for key in ("ranks", "bytes", "algbw_gbs", "busbw_gbs"):
            float(doc[key])
        return doc, None
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return None, f"the all-reduce result is unreadable: {type(exc).__name__}: {str(exc)[:200]}"


def measure_across(nproc: int, backend: str, timeout_s: float, table: GpuSpecTable, spec: GpuSpec | None,
                   spawner: Spawner | None = None, runner: Runner | None = None, nvml: Any | None = None,
                   ) -> Interconnect:  # fmt: skip
    """The all-reduce, then (on GPUs) the links and P2P status of every pair, judged."""
    import dataclasses

    from gpudoctor.probes.p2p import probe_p2p_status, probe_topology

    start = time.perf_counter()
    measured = measure_allreduce(nproc, backend, timeout_s, spawner or SubprocessRunner())
    if backend == "nccl":
        links = probe_topology(runner or SubprocessRunner())
        p2p = None
        if nvml is not None:
            try:
                p2p = probe_p2p_status(nvml)
            except Exception:  # noqa: BLE001 - P2P status unknown is None, never an error
                p2p = None
        measured = dataclasses.replace(measured, links=interconnect.peer_links(links, p2p, nproc))
    judged = interconnect.judge(measured, spec, table)
    return dataclasses.replace(judged, wall_s=time.perf_counter() - start)
