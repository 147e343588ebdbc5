"""``verify --multi-gpu --framework tf``: TensorFlow's MirroredStrategy over N devices, in one child process:

    python -m gpudoctor.verify.multigpu.tf_worker --replicas N --where gpu|cpu --result FILE [--steps S]

On GPUs the strategy mirrors the model on the first N visible GPUs (NCCL all-reduce); on the CPU the one physical
CPU is first split into N logical devices (tf.config.set_logical_device_configuration), which MirroredStrategy
treats as N replicas. Every replica trains the verify CNN on its own shard; after training each replica's own copy
of the variables is read back (their SHA-256 must match), and the first step's gradient check compares the
strategy's all-reduce with the sum of the replicas' local gradients computed here. The result, one RankResult per
replica (the shape verify --multi-gpu's torch ranks report), is written atomically to FILE; judging is the parent's
(multigpu/assess.py). This module imports TensorFlow; the parent never imports it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before the import: TF's C++ start-up chatter is not a result

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from gpudoctor.verify.multigpu.model import RANK_SCHEMA, RankResult  # noqa: E402
from gpudoctor.workloads import data  # noqa: E402
from gpudoctor.verify.tf_cases.models import LOSS, cnn_model  # noqa: E402
from gpudoctor.verify.tf_cases.training import PLANS  # noqa: E402

PLAN = PLANS["cnn"]


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="gpudoctor.verify.multigpu.tf_worker")
    p.add_argument("--replicas", type=int, required=True)
    p.add_argument("--where", choices=["gpu", "cpu"], required=True)
    p.add_argument("--result", required=True)
    p.add_argument("--steps", type=int, default=PLAN.steps)
    return p.parse_args(argv)


def devices(where: str, replicas: int) -> tuple[list[str], list[str]]:
    """(device names for the strategy, a display name per device). Must run before TF initialises its devices."""
    if where == "cpu":
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * replicas)
        tf.config.set_visible_devices([], "GPU")  # the CPU path is asked for: no GPU replica may join it
        names = [d.name for d in tf.config.list_logical_devices("CPU")][:replicas]
        return names, ["CPU (logical device)"] * len(names)
    gpus = tf.config.list_physical_devices("GPU")[:replicas]
    shown = [tf.config.experimental.get_device_details(g).get("device_name", "GPU") for g in gpus]
    return [d.name for d in tf.config.list_logical_devices("GPU")][: len(gpus)], shown


def short_device(name: str) -> str:
    """TF's "/job:localhost/replica:0/task:0/device:GPU:1" -> "cuda:1"; a logical CPU device -> "cpu:N"."""
    kind, _, index = name.rpartition("device:")[2].partition(":")
    return f"{'cuda' if kind.upper() == 'GPU' else kind.lower()}:{index}"


def per_replica(strategy: tf.distribute.Strategy, arrays: list[np.ndarray]):  # -> a PerReplica value
    return strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(arrays[ctx.replica_id_in_sync_group]))


def run(args: argparse.Namespace) -> list[RankResult]:
    names, shown = devices(args.where, args.replicas)
    strategy = tf.distribute.MirroredStrategy(devices=names)
    n = strategy.num_replicas_in_sync
    with strategy.scope():
        model = cnn_model()
        opt = tf.keras.optimizers.Adam(PLAN.lr)
        opt.build(model.trainable_variables)  # built lazily inside the tf.function, Adam's slots fail to mirror
    x_eval, y_eval = data.cnn_data(PLAN.eval_n, seed=7)  # the same held-out set on every replica
    shards = [data.cnn_data(args.steps * PLAN.batch, seed=100 + r) for r in range(n)]  # each replica its own shard

    @tf.function
    def evaluate():
        def fn():  # each replica evaluates its own copy of the variables
            logits = model(tf.constant(x_eval), training=False)
            acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.constant(y_eval)), tf.float32))
            flat = tf.concat([tf.reshape(tf.cast(v, tf.float64), [-1]) for v in model.trainable_variables], 0)
            return LOSS(tf.constant(y_eval), logits), acc, flat
        return strategy.run(fn)

    @tf.function
    def step(xb, yb, check: bool):
        def fn(xb, yb):
            with tf.GradientTape() as tape:
                loss = LOSS(yb, model(xb, training=True)) / n  # summed over replicas = the global mean
            grads = tape.gradient(loss, model.trainable_variables)
            local = tf.concat([tf.reshape(g, [-1]) for g in grads], 0)
            reduced = tf.distribute.get_replica_context().all_reduce("sum", local) if check else local
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss * n, local, reduced
        return strategy.run(fn, args=(xb, yb))

    local = strategy.experimental_local_results
    before = [float(v) for v in local(evaluate()[0])]
    start = time.perf_counter()
    grad_err, spreads = [None] * n, [None] * n
    for s in range(args.steps):
        sl = slice(s * PLAN.batch, (s + 1) * PLAN.batch)
        xb = per_replica(strategy, [shard[0][sl] for shard in shards])
        yb = per_replica(strategy, [shard[1][sl] for shard in shards])
        _, grads, reduced = step(xb, yb, s == 0)
        if s == 0:
            mine = [g.numpy().astype(np.float64) for g in local(grads)]
            total = np.sum(mine, axis=0)
            scale = float(np.abs(total).max()) or 1.0
            grad_err = [float(np.abs(r.numpy() - total).max()) / scale for r in local(reduced)]
            spreads = [float(np.linalg.norm(m * n - total) / (np.linalg.norm(total) + 1e-30)) for m in mine]
    train_s = time.perf_counter() - start
    losses, accs, flats = (local(v) for v in evaluate())
    flats_np = [f.numpy() for f in flats]
    norms = tuple(float(np.linalg.norm(f)) for f in flats_np)
    return [
        RankResult(
            rank=r, world_size=n, backend="mirrored", device=short_device(strategy.extended.worker_devices[r]), device_name=shown[r], steps=args.steps,
            batch_size=PLAN.batch, first_loss=before[r], last_loss=float(losses[r]), accuracy=float(accs[r]),
            chance=1.0 / data.CNN_CLASSES, param_sum=float(flats_np[r].sum()), param_norm=norms[r],
            param_sha256=hashlib.sha256(flats_np[r].tobytes()).hexdigest(), gathered_norms=norms,
            grad_avg_rel_err=grad_err[r], local_grad_spread=spreads[r], train_s=train_s, torch_version=tf.__version__,
        )
        for r in range(n)
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    results = run(args)
    with open(args.result + ".partial", "w", encoding="utf-8") as f:
        json.dump({"schema": RANK_SCHEMA, "replicas": [r.to_dict() for r in results]}, f)
    os.replace(args.result + ".partial", args.result)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
