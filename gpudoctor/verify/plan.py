"""How long each smoke test trains and what it must reach: fixed step counts, so timings compare across machines.
Shared by the PyTorch and TensorFlow cases; the numbers per framework live next to their models."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from gpudoctor.verify.assess import LearnTarget

Progress = Callable[[int, int, str], None]  # (step, steps, phase)


@dataclass(frozen=True)
class Plan:
    steps: int
    batch: int
    lr: float
    eval_n: int
    target: LearnTarget
