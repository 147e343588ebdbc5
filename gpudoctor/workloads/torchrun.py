"""torchrun's standalone command line and the environment of its ranks: verify --multi-gpu's DDP ranks
(gpudoctor.verify.multigpu.rank_worker) and bench's all-reduce across GPUs (gpudoctor.workloads.allreduce_worker)
both start their ranks this way."""

from __future__ import annotations

import sys

from gpudoctor import child_start
from gpudoctor.workloads.children import child_env


def command(nproc: int, module: str, backend: str, result_dir: str, allreduce_mib: int, timeout_s: float) -> list[str]:
    """``python -m torch.distributed.run --standalone`` starting ``nproc`` ranks of ``module`` (no restarts). Each rank
    runs child_start.py (a script, as torchrun runs it: python -u SCRIPT ARGS), which imports this gpudoctor without
    putting it before the user's PYTHONPATH."""
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(nproc),
            "--max-restarts", "0", *child_start.argv(module)[1:], "--backend", backend, "--result-dir", result_dir,
            "--allreduce-mib", str(allreduce_mib), "--collective-timeout", f"{max(timeout_s, 1.0):g}"]  # fmt: skip


def launch_env(backend: str, p2p_disabled: bool) -> dict[str, str]:
    env = child_env()
    if backend == "nccl":
        env.setdefault("NCCL_DEBUG", "INFO")  # the tail of a hang says where NCCL stopped
        if p2p_disabled:
            env["NCCL_P2P_DISABLE"] = "1"
    env.setdefault("OMP_NUM_THREADS", "1")  # torchrun would set it and warn; the ranks share the cores
    return env
