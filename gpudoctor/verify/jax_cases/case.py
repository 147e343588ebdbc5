"""One JAX smoke test end to end: data and model, the GPU-vs-CPU agreement of one step (before training, from the
same weights), training on the chosen device, and the checks, in the report's order. Imported only by the worker."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from gpudoctor.verify import assess
from gpudoctor.workloads import data, weights
from gpudoctor.verify.jax_cases import device as dev
from gpudoctor.verify.jax_cases import models
from gpudoctor.verify.jax_cases.training import PLANS, TRANSFER_SIZE, PlacementLog, cross_entropy, evaluate, pretrained, train
from gpudoctor.verify.model import CaseRequest, SmokeCheck, SmokeStatus
from gpudoctor.verify.training_plan import Progress, training_summary


def _make(test: str, request: CaseRequest, device, notes: list[str], out: dict[str, Any], progress: Progress):
    """-> (apply, trainable params, fixed params or None, x, y, eval x, eval y, classes)."""
    plan = PLANS[test]
    n = plan.steps * plan.batch
    if test == "cnn":
        (x, y), (ex, ey) = data.cnn_data(n, seed=1), data.cnn_data(plan.eval_n, seed=2)
        return models.cnn_apply, models.cnn_init(0), None, x, y, ex, ey, data.CNN_CLASSES
    if test == "lstm":
        (x, y), (ex, ey) = data.lstm_data(n, seed=1), data.lstm_data(plan.eval_n, seed=2)
        return models.lstm_apply, models.lstm_init(0), None, x.astype(np.int32), y.astype(np.int32), ex.astype(np.int32), ey.astype(np.int32), data.LANGUAGE_WORDS
    backbone, source = weights.jax_backbone(request.weights, models.backbone_init(0))
    out["weights"] = source.description
    if source.kind == "fallback":
        notes.append(weights.FALLBACK_NOTE)
        backbone, reused = pretrained(request.lr_scale, device, progress)
        out["weights"] = reused or source.description
    x, y = data.transfer_data(n, seed=1, size=TRANSFER_SIZE)
    ex, ey = data.transfer_data(plan.eval_n, seed=2, size=TRANSFER_SIZE)
    head = {"head": models.head_init(data.TRANSFER_CLASSES, 2)}
    return models.transfer_apply, head, {"backbone": backbone}, x, y, ex, ey, data.TRANSFER_CLASSES


def _one_step(apply, trainable, fixed, xb, yb, device) -> tuple[float, list[float]]:
    """Loss and gradients of one step on ``device`` (inputs committed there, so jit runs there)."""

    def loss_of(p, f, a, b):
        return cross_entropy(apply(p if f is None else {**f, **p}, a), b)

    put = lambda tree: jax.device_put(tree, device)  # noqa: E731
    loss, grads = jax.jit(jax.value_and_grad(loss_of))(put(trainable), put(fixed) if fixed is not None else None, put(xb), put(yb))
    flat = np.concatenate([np.asarray(g, np.float64).ravel() for g in jax.tree.leaves(grads)])
    return float(loss), flat.tolist()


def agreement_check(apply, trainable, fixed, xb, yb, device) -> SmokeCheck:
    with jax.default_matmul_precision("highest"):  # fp32 on the GPU too (no TF32), as the CPU computes
        loss_cpu, grads_cpu = _one_step(apply, trainable, fixed, xb, yb, jax.devices("cpu")[0])
        loss_dev, grads_dev = _one_step(apply, trainable, fixed, xb, yb, device)
    return assess.agreement(str(device), loss_cpu, loss_dev, assess.relative_error(grads_cpu, grads_dev))


def placement_check(params: dict, log: PlacementLog, device) -> SmokeCheck:
    leaves = jax.tree.leaves(params)
    wrong = [f"parameter {i} on {', '.join(str(d) for d in a.devices())}" for i, a in enumerate(leaves) if not dev.on(a, device)]
    wrong += log.misplaced
    gpus = dev.gpus()
    measured = {"arrays": len(leaves), "batches": log.batches, "misplaced": len(wrong), "jax_gpus": len(gpus),
                "default_backend": jax.default_backend()}  # fmt: skip
    problems = [f"{len(wrong)} arrays not on {device}: " + ", ".join(wrong[:3])] if wrong else []
    if log.batches == 0:
        problems.append("no batch was seen")
    if problems:
        return SmokeCheck("placement", SmokeStatus.FAILED, "; ".join(problems), measured)
    saw = f", JAX sees {len(gpus)} GPU(s)" if dev.is_gpu(device) else ""
    return SmokeCheck("placement", SmokeStatus.PASSED, f"all {len(leaves)} parameter arrays and {log.batches} batches and outputs on {device} "
                 f"(array.devices()){saw}", measured)


def run(request: CaseRequest, progress: Progress) -> dict[str, Any]:
    """Run one case; -> the fields of a SmokeResult (the worker adds framework/test/wall time)."""
    device, device_name, note = dev.resolve_device(request.device)
    out: dict[str, Any] = {"device": "cuda:%d" % device.id if dev.is_gpu(device) else "cpu", "device_name": device_name,
                           "device_note": note, "framework_version": jax.__version__}  # fmt: skip
    notes: list[str] = []
    plan = PLANS[request.test]
    apply, trainable, fixed, x, y, ex, ey, classes = _make(request.test, request, device, notes, out, progress)
    if dev.is_gpu(device):
        agreement = agreement_check(apply, trainable, fixed, x[: plan.batch], y[: plan.batch], device)
    else:
        agreement = assess.skipped("agreement", "ran on the CPU: there is no GPU result to compare with the CPU's")
    whole = trainable if fixed is None else {**fixed, **trainable}
    first_loss, _ = evaluate(apply, whole, ex, ey, device)
    log = PlacementLog(device)
    trained, train_s = train(apply, trainable, fixed, x, y, plan, plan.lr * request.lr_scale, device, progress, "training", log)
    after = trained if fixed is None else {**jax.device_put(fixed, device), **trained}
    last_loss, accuracy = evaluate(apply, after, ex, ey, device)
    checks: list[SmokeCheck] = [
        assess.learned(first_loss, last_loss, accuracy, 1.0 / classes, plan.target),
        placement_check(after, log, device),
        agreement,
    ]
    if fixed is not None:
        before, now = jax.tree.leaves(fixed), jax.tree.leaves(after["backbone"])
        changed = [f"backbone array {i}" for i, (a, b) in enumerate(zip(before, now)) if not np.array_equal(np.asarray(a), np.asarray(b))]
        head_before, head_now = jax.tree.leaves(trainable), jax.tree.leaves(trained)
        head_changed = sum(1 for a, b in zip(head_before, head_now) if not np.array_equal(np.asarray(a), np.asarray(b)))
        checks.append(assess.frozen(changed, len(before), head_changed, len(head_before)))
    checks.append(assess.skipped("amp", "mixed precision is not exercised by the JAX smoke tests"))
    out.update(training_summary(plan, first_loss, last_loss, accuracy, 1.0 / classes, train_s, _peak_mib(device), checks, notes))
    return out


def _peak_mib(device) -> float | None:
    stats = device.memory_stats() if dev.is_gpu(device) else None
    return stats["peak_bytes_in_use"] / 2**20 if stats and "peak_bytes_in_use" in stats else None

