"""One rank of ``verify --multi-gpu``, started by torchrun's standalone mode (it sets RANK, LOCAL_RANK, WORLD_SIZE):

    python -m torch.distributed.run --standalone --nproc-per-node N -m gpudoctor.verify.multigpu.rank_worker \
        --backend nccl|gloo --result-dir DIR [--steps S] [--allreduce-mib M]

Trains the verify CNN under DistributedDataParallel, each rank on its own shard of the synthetic data, and writes
DIR/rank-R.json (atomically) with what it saw: its device, its held-out loss before and after, a checksum of its
parameters (and the norms it gathered from every rank), and the first step's gradient check: DDP's gradient against
the mean of the ranks' local gradients (computed under no_sync and all-reduced by hand). Judging is the parent's.
This module imports torch; the parent never imports it.

Test-only faults (GPUDOCTOR_MULTIGPU_FAULT; not a user option): ``hang`` rank 1 sleeps before DDP's first
collective, so every other rank blocks in it (the parent's timeout must kill the group); ``diverge`` rank 1 nudges
its parameters after training, outside DDP (the replicas must be judged different).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import sys
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from gpudoctor.verify.multigpu.model import FAULT_ENV, RANK_SCHEMA, RankResult
from gpudoctor.workloads import data
from gpudoctor.workloads.torch_models import Cnn, images
from gpudoctor.verify.torch_cases.training import PLANS, evaluate

PLAN = PLANS["cnn"]


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="gpudoctor.verify.multigpu.rank_worker")
    p.add_argument("--backend", required=True, choices=["nccl", "gloo"])
    p.add_argument("--result-dir", required=True)
    p.add_argument("--steps", type=int, default=PLAN.steps)
    p.add_argument("--allreduce-mib", type=int, default=0, help="0: no all-reduce bandwidth measurement")
    p.add_argument("--collective-timeout", type=float, default=120.0)
    return p.parse_args(argv)


def flat_grads(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.grad.detach().flatten() for p in model.parameters()])


def gradient_check(model: DistributedDataParallel, xb: torch.Tensor, yb: torch.Tensor) -> tuple[float, float]:
    """One batch, twice: under no_sync (this rank's own gradient, averaged by hand with all_reduce) and through DDP
    (which averages in its backward hooks). -> (DDP vs the hand mean, rel.; this rank's local vs the mean, rel.)."""
    with model.no_sync():
        nn.functional.cross_entropy(model(xb), yb).backward()
    local = flat_grads(model.module).clone()
    model.zero_grad(set_to_none=True)
    mean = local.clone()
    dist.all_reduce(mean)
    mean /= dist.get_world_size()
    nn.functional.cross_entropy(model(xb), yb).backward()
    ddp = flat_grads(model.module)
    model.zero_grad(set_to_none=True)
    scale = mean.abs().max().item() or 1.0
    return (ddp - mean).abs().max().item() / scale, ((local - mean).norm() / (mean.norm() + 1e-30)).item()


def checksum(model: nn.Module) -> tuple[float, float, str]:
    flat = torch.cat([p.detach().cpu().double().flatten() for p in model.parameters()])
    digest = hashlib.sha256()
    for p in model.parameters():
        digest.update(p.detach().cpu().contiguous().numpy().tobytes())
    return flat.sum().item(), flat.norm().item(), digest.hexdigest()


def run(args: argparse.Namespace) -> RankResult:
    rank, local_rank, world = (int(os.environ[k]) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE"))
    if args.backend == "nccl":
        device = torch.device(f"cuda:{local_rank}")
        torch.cuda.set_device(device)
        name = torch.cuda.get_device_name(device)
    else:
        device, name = torch.device("cpu"), "CPU"
        torch.set_num_threads(1)  # N ranks share the host's cores: more threads each would only contend
    dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=args.collective_timeout))
    fault = os.environ.get(FAULT_ENV, "")
    torch.manual_seed(0)
    model = Cnn().to(device)
    x_eval, y_eval = data.cnn_data(PLAN.eval_n, seed=7)  # the same held-out set on every rank
    xe, ye = images(x_eval), torch.from_numpy(y_eval)
    first_loss, _ = evaluate(model, xe, ye, device)
    if fault == "hang" and rank == 1:
        time.sleep(24 * 3600)
    ddp = DistributedDataParallel(model, device_ids=[local_rank] if device.type == "cuda" else None)
    x, y = data.cnn_data(args.steps * PLAN.batch, seed=100 + rank)  # each rank its own shard
    xt, yt = images(x).to(device), torch.from_numpy(y).to(device)
    grad_err, spread = gradient_check(ddp, xt[: PLAN.batch], yt[: PLAN.batch])
    opt = torch.optim.Adam(ddp.parameters(), lr=PLAN.lr)
    start = time.perf_counter()
    for step in range(args.steps):
        sl = slice(step * PLAN.batch, (step + 1) * PLAN.batch)
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(ddp(xt[sl]), yt[sl]).backward()
        opt.step()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    train_s = time.perf_counter() - start
    if fault == "diverge" and rank == 1:
        with torch.no_grad():
            next(model.parameters()).add_(1e-3)
    last_loss, accuracy = evaluate(model, xe, ye, device)
    p_sum, p_norm, p_sha = checksum(model)
    gathered = [torch.zeros(1, dtype=torch.float64, device=device) for _ in range(world)]
    dist.all_gather(gathered, torch.tensor([p_norm], dtype=torch.float64, device=device))
    figure = None
    if args.allreduce_mib > 0:
        from gpudoctor.workloads.allreduce import measure

        figure = measure(device, args.allreduce_mib * 1024 * 1024, iterations=20 if device.type == "cuda" else 5)
    dist.barrier()
    dist.destroy_process_group()
    return RankResult(
        rank=rank, world_size=world, backend=args.backend, device=str(device), device_name=name, steps=args.steps, batch_size=PLAN.batch,
        first_loss=first_loss, last_loss=last_loss, accuracy=accuracy, chance=1.0 / data.CNN_CLASSES,
        param_sum=p_sum, param_norm=p_norm, param_sha256=p_sha, gathered_norms=tuple(g.item() for g in gathered),
        grad_avg_rel_err=grad_err, local_grad_spread=spread, train_s=train_s,
        busbw_gbs=figure.busbw_gbs if figure else None, algbw_gbs=figure.algbw_gbs if figure else None,
        allreduce_bytes=figure.nbytes if figure else None, torch_version=torch.__version__,
    )  # fmt: skip


def write(result_dir: str, result: RankResult) -> None:
    path = os.path.join(result_dir, f"rank-{result.rank}.json")
    with open(path + ".partial", "w", encoding="utf-8") as f:
        json.dump({"schema": RANK_SCHEMA, "result": result.to_dict()}, f)
    os.replace(path + ".partial", path)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    write(args.result_dir, run(args))
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
