"""How long each smoke test trains and what it must reach: fixed step counts, so timings compare across machines.
Shared by the PyTorch and TensorFlow cases; the numbers per framework live next to their models."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from gpudoctor.verify.assess import LearnTarget

Progress = Callable[[int, int, str], None]  # (step, steps, phase)


@dataclass(frozen=True)
class TrainingPlan:
    """How a smoke test trains: steps, batch, learning rate, held-out size, and the target it must reach."""

    steps: int
    batch: int
    lr: float
    eval_n: int
    target: LearnTarget
    # Anneal the learning rate to 0 over the steps (cosine): a linear head over features that separate two classes
    # only narrowly (TF transfer: red vs yellow) oscillates at a constant rate, and where it stops is luck.
    cosine: bool = False


def training_summary(plan: TrainingPlan, first_loss: float, last_loss: float, accuracy: float, chance: float,
                     train_s: float, peak_mem_mib: float | None, checks: list, notes: list) -> dict:
    """The result fields every case reports, in one shape for both frameworks."""
    return dict(
        steps=plan.steps,
        batch_size=plan.batch,
        first_loss=first_loss,
        last_loss=last_loss,
        accuracy=accuracy,
        chance=chance,
        samples_per_s=plan.steps * plan.batch / train_s if train_s > 0 else None,
        train_s=train_s,
        peak_mem_mib=peak_mem_mib,
        checks=checks,
        notes=notes,
    )
