"""The JAX training loop (Adam written out: eight lines, no optax), evaluation, the placement log, the offline
pretraining of the transfer backbone, and the fixed plans of each smoke test."""

from __future__ import annotations

import math
import time
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from gpudoctor.verify import assess
from gpudoctor.workloads import data, weights
from gpudoctor.verify.jax_cases import models
from gpudoctor.verify.jax_cases.device import on
from gpudoctor.verify.training_plan import Progress, TrainingPlan

# The CNN trains 20 steps, not 40 (issue 23): a step of XLA's CPU convolutions costs ~0.15 CPU-s on 2 cores, four
# times torch's; accuracy 0.99-1.00 against the 0.60 bar and loss drop 0.97-0.98 against 0.50 over three seeds.
PLANS = {
    "cnn": TrainingPlan(steps=20, batch=64, lr=2e-3, eval_n=512, target=assess.LearnTarget(min_drop=0.5, min_accuracy=0.6)),
    "lstm": TrainingPlan(steps=60, batch=64, lr=1e-2, eval_n=512, target=assess.LearnTarget(min_drop=0.3, min_accuracy=0.3)),
    "transfer": TrainingPlan(steps=80, batch=32, lr=2e-2, eval_n=256, target=assess.LearnTarget(min_drop=0.3, min_accuracy=0.5), cosine=True),
}
PRETRAIN = TrainingPlan(steps=60, batch=32, lr=3e-3, eval_n=0, target=assess.LearnTarget(0.0, 0.0))
TRANSFER_SIZE = 32
# How the backbone is pretrained here: the name of gpudoctor's cache entry holds it, so a change pretrains afresh
# (a change to data.pretrain_data must change it too).
RECIPE = f"c16-c32-s{TRANSFER_SIZE}-{PRETRAIN.steps}x{PRETRAIN.batch}-lr{PRETRAIN.lr:g}-seed3"

Apply = Callable[[dict, jnp.ndarray], jnp.ndarray]


def cross_entropy(logits: jnp.ndarray, labels: jnp.ndarray) -> jnp.ndarray:
    return -jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1).mean()


def evaluate(apply: Apply, params: dict, x: np.ndarray, y: np.ndarray, device) -> tuple[float, float]:
    logits = jax.jit(apply)(jax.device_put(params, device), jax.device_put(x, device))
    loss = float(cross_entropy(logits, jax.device_put(y, device)))
    return loss, float((np.asarray(logits).argmax(1) == y).mean())


class PlacementLog:
    """Where every batch and every output of the training loop lived (``array.devices()``)."""

    def __init__(self, device) -> None:
        self.device = device
        self.batches = 0
        self.misplaced: list[str] = []

    def __call__(self, xb, yb, logits) -> None:
        self.batches += 1
        for what, array in (("input batch", xb), ("label batch", yb), ("output", logits)):
            if not on(array, self.device):
                self.misplaced.append(f"{what} {self.batches} on {', '.join(str(d) for d in array.devices())}")


def train(apply: Apply, trainable: dict, fixed: dict | None, x: np.ndarray, y: np.ndarray, plan: TrainingPlan, lr: float,
          device, progress: Progress, phase: str, log: PlacementLog | None = None) -> tuple[dict, float]:
    """``plan.steps`` Adam steps over consecutive batches of ``trainable`` (``fixed``: parameters that take no
    gradient, the frozen backbone); -> (trained parameters, seconds of the loop, device synchronised)."""

    def loss_of(p, f, xb, yb):
        params = p if f is None else {**f, **p}
        logits = apply(params, xb)
        return cross_entropy(logits, yb), logits

    @jax.jit
    def step(p, f, m, v, t, xb, yb, rate):
        (loss, logits), g = jax.value_and_grad(loss_of, has_aux=True)(p, f, xb, yb)
        m = jax.tree.map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
        v = jax.tree.map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
        scale = rate * jnp.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        p = jax.tree.map(lambda w, a, b: w - scale * a / (jnp.sqrt(b) + 1e-8), p, m, v)
        return p, m, v, logits

    p = jax.device_put(trainable, device)
    f = jax.device_put(fixed, device) if fixed is not None else None
    m = jax.tree.map(jnp.zeros_like, p)
    v = jax.tree.map(jnp.zeros_like, p)
    jax.block_until_ready(p)
    start = time.perf_counter()
    for i in range(plan.steps):
        sl = slice(i * plan.batch, (i + 1) * plan.batch)
        xb, yb = jax.device_put(x[sl], device), jax.device_put(y[sl], device)
        rate = lr * (0.5 * (1 + math.cos(math.pi * i / plan.steps)) if plan.cosine else 1.0)
        p, m, v, logits = step(p, f, m, v, float(i + 1), xb, yb, rate)
        if log is not None:
            log(xb, yb, logits)
        progress(i + 1, plan.steps, phase)
    jax.block_until_ready(p)
    return p, time.perf_counter() - start


def pretrain(lr_scale: float, device, progress: Progress) -> dict:
    """Offline stand-in for ImageNet: train backbone and a task-A head on synthetic stripes; -> the backbone (numpy)."""
    x, y = data.pretrain_data(PRETRAIN.steps * PRETRAIN.batch, seed=3, size=TRANSFER_SIZE)
    params = {"backbone": models.backbone_init(0), "head": models.head_init(data.PRETRAIN_CLASSES, 1)}
    trained, _ = train(models.transfer_apply, params, None, x, y, PRETRAIN, PRETRAIN.lr * lr_scale, device, progress,
                       "pretraining backbone")  # fmt: skip
    return jax.tree.map(np.asarray, trained["backbone"])


def pretrained(lr_scale: float, device, progress: Progress) -> tuple[dict, str | None]:
    """The backbone pretrained here (task A): taken from gpudoctor's cache when an earlier run kept one of the same
    recipe and JAX, else pretrained now and kept. -> (its arrays, the description of a reused backbone or None). A
    run with a scaled learning rate (gpudoctor's own fault injection) neither reuses nor keeps one."""
    path = weights.pretrained_here_path("jax", jax.__version__, "backbone", RECIPE)
    fresh = models.backbone_init(0)
    if lr_scale == 1.0:
        arrays = weights.load_pretrained_here(path, {f"{layer}.{k}": a.shape for layer, p in fresh.items() for k, a in p.items()})
        if arrays is not None and path is not None:
            backbone = {layer: {k: np.asarray(arrays[f"{layer}.{k}"], np.float32) for k in p} for layer, p in fresh.items()}
            return backbone, weights.pretrained_here_source(weights.JAX_BACKBONE, path, weights.jax_cache_path()).description
    backbone = pretrain(lr_scale, device, progress)
    if lr_scale == 1.0:
        weights.save_pretrained_here(path, {f"{layer}.{k}": np.asarray(a) for layer, p in backbone.items() for k, a in p.items()})
    return backbone, None
