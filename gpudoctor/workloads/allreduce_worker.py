"""bench across GPUs: one rank of an all-reduce (no training), started by torchrun's standalone mode:

    python -m torch.distributed.run --standalone --nproc-per-node N -m gpudoctor.workloads.allreduce_worker \
        --backend nccl|gloo --result-dir DIR --allreduce-mib M [--collective-timeout S]

Each rank joins the group and times the all-reduce (gpudoctor.workloads.allreduce); rank 0 writes DIR/allreduce.json
atomically. Judging is the parent's (gpudoctor.bench.across). This module imports torch; the parent never imports it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys

import torch
import torch.distributed as dist

from gpudoctor.workloads.allreduce import ALLREDUCE_SCHEMA, measure


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="gpudoctor.workloads.allreduce_worker")
    p.add_argument("--backend", required=True, choices=["nccl", "gloo"])
    p.add_argument("--result-dir", required=True)
    p.add_argument("--allreduce-mib", type=int, default=16)
    p.add_argument("--collective-timeout", type=float, default=120.0)
    return p.parse_args(argv)


def run(args: argparse.Namespace) -> None:
    """bench across devices: join the group, time the all-reduce, rank 0 writes DIR/allreduce.json (no training)."""
    rank, local_rank = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    device = torch.device(f"cuda:{local_rank}") if args.backend == "nccl" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    else:
        torch.set_num_threads(1)
    dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=args.collective_timeout))
    figure = measure(device, max(args.allreduce_mib, 1) * 1024 * 1024, iterations=20 if device.type == "cuda" else 5)
    dist.barrier()
    dist.destroy_process_group()
    if rank == 0:
        path = os.path.join(args.result_dir, "allreduce.json")
        with open(path + ".partial", "w", encoding="utf-8") as f:
            json.dump({"schema": ALLREDUCE_SCHEMA, "ranks": figure.ranks, "bytes": figure.nbytes, "seconds": figure.seconds,
                       "algbw_gbs": figure.algbw_gbs, "busbw_gbs": figure.busbw_gbs}, f)  # fmt: skip
        os.replace(path + ".partial", path)


def main(argv: list[str] | None = None) -> int:
    run(parse(argv))
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
