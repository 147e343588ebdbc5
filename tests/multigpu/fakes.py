"""Fakes for verify --multi-gpu: rank results as the real rank worker writes them (numbers from a real 2-rank gloo
run on this CPU), and a torchrun stand-in with the runner's ``spawn`` signature that writes rank files or hangs."""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Callable, Mapping, Sequence

from gpudoctor.verify.multigpu.model import RANK_SCHEMA, RankResult
from gpudoctor.runner import SpawnResult

SHA = "81776414463928685479fb58f78192a18c2b446079c90f67ee3de334dd8fd14d"
NORM = 11.634317104312961


def rank(r: int, world: int = 2, backend: str = "gloo", **changes: object) -> RankResult:
    base = RankResult(rank=r, world_size=world, backend=backend, device="cpu" if backend == "gloo" else f"cuda:{r}",
                      device_name="CPU", steps=40, batch_size=64, first_loss=2.304760694503784,
                      last_loss=0.0020069931633770466, accuracy=0.998046875, chance=0.1, param_sum=329.89231475783527,
                      param_norm=NORM, param_sha256=SHA, gathered_norms=(NORM,) * world, grad_avg_rel_err=0.0,
                      local_grad_spread=1.3083187341690063, train_s=4.3, busbw_gbs=0.397, algbw_gbs=0.397,
                      allreduce_bytes=4194304, torch_version="2.15.0+cu132")  # fmt: skip
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def nccl_lines() -> list[str]:
    path = os.path.join(os.path.dirname(__file__), "..", "data", "multigpu", "nccl-info-hf15618.txt")
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if not line.startswith("#")]


class FakeTorchrun:
    """Checks it was asked for torchrun --standalone, then plays ``behave(env) -> (ranks to write, timed_out, lines)``."""

    def __init__(self, behave: Callable[[Mapping[str, str]], tuple[list[RankResult], bool, list[str]]]):
        self.behave = behave
        self.calls: list[tuple[tuple[str, ...], dict[str, str]]] = []

    def spawn(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
              on_line: Callable[[str], None] | None = None) -> SpawnResult:  # fmt: skip
        argv = tuple(argv)
        assert argv[1:4] == ("-m", "torch.distributed.run", "--standalone"), argv
        assert "gpudoctor.verify.multigpu.rank_worker" in argv
        self.calls.append((argv, dict(env or {})))
        ranks, timed_out, lines = self.behave(env or {})
        directory = argv[argv.index("--result-dir") + 1]
        for r in ranks:
            with open(os.path.join(directory, f"rank-{r.rank}.json"), "w", encoding="utf-8") as f:
                json.dump({"schema": RANK_SCHEMA, "result": r.to_dict()}, f)
        for line in lines:
            if on_line is not None:
                on_line(line)
        return SpawnResult(argv, None if timed_out else 0, timed_out=timed_out, wall_s=timeout if timed_out else 9.0)
