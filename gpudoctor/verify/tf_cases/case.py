"""One TensorFlow smoke test end to end: build the data and model, measure (agreement and mixed precision first, on
copies; then training with the placer's log of the first step), and hand the numbers to assess, in the report's
order. Imported only by the worker."""

from __future__ import annotations

from typing import Any, Callable

import keras
import numpy as np
import tensorflow as tf

from gpudoctor.verify import assess
from gpudoctor.workloads import data, weights
from gpudoctor.verify.model import CaseRequest, SmokeCheck
from gpudoctor.verify.training_plan import Progress, training_summary
from gpudoctor.verify.tf_cases import device as devices
from gpudoctor.verify.tf_cases.checks import agreement_check, amp_check, placement_check
from gpudoctor.verify.tf_cases.models import cnn_model, frozen_transfer_model, lstm_model, transfer_model
from gpudoctor.verify.tf_cases.training import PLANS, evaluate, pretrained, train


def _make(request: CaseRequest, dev: devices.Device, notes: list[str], out: dict[str, Any], progress: Progress):
    """-> (build a fresh copy, model, train x, train y, eval x, eval y, frozen backbone or None, classes)."""
    plan = PLANS[request.test]
    n = plan.steps * plan.batch
    with tf.device(dev.tf_name):
        if request.test == "cnn":
            (x, y), (ex, ey) = data.cnn_data(n, seed=1), data.cnn_data(plan.eval_n, seed=2)
            return cnn_model, cnn_model(), x, y, ex, ey, None, data.CNN_CLASSES
        if request.test == "lstm":
            (x, y), (ex, ey) = data.lstm_data(n, seed=1), data.lstm_data(plan.eval_n, seed=2)
            return lstm_model, lstm_model(), x.astype(np.int32), y, ex.astype(np.int32), ey, None, data.LANGUAGE_WORDS
        backbone, source = weights.keras_backbone(request.weights)
        out["weights"] = source.description
        if source.kind == "fallback":
            notes.append(weights.FALLBACK_NOTE)
            out["weights"] = pretrained(backbone, dev, request.lr_scale, progress) or source.description
        backbone.trainable = False
        keras.utils.set_random_seed(0)
        size = backbone.input_shape[1]
        x, y = data.transfer_data(n, seed=1, size=size)
        ex, ey = data.transfer_data(plan.eval_n, seed=2, size=size)
        classes = data.TRANSFER_CLASSES
        build: Callable[[], keras.Model] = lambda: frozen_transfer_model(classes, size)  # noqa: E731
        return build, transfer_model(backbone, classes), x, y, ex, ey, backbone, classes


def run(request: CaseRequest, progress: Progress) -> dict[str, Any]:
    # The placer logs where it puts each op of a function only when this is on before TensorFlow's context starts;
    # the log is captured from fds 1 and 2 for the first training step (training.CaptureFds).
    tf.debugging.set_log_device_placement(True)
    keras.utils.set_random_seed(0)
    keras.mixed_precision.set_dtype_policy("float32")
    dev, note = devices.resolve_device(request.device, tf)
    out: dict[str, Any] = {"device": dev.name, "device_name": dev.label, "device_note": note,
                           "framework_version": f"{tf.__version__} (keras {keras.__version__})"}  # fmt: skip
    notes: list[str] = []
    plan = PLANS[request.test]
    build, model, x, y, ex, ey, backbone, classes = _make(request, dev, notes, out, progress)

    probe_x, probe_y = x[: plan.batch], y[: plan.batch]
    if dev.is_gpu:
        agreement = agreement_check(build, model, probe_x, probe_y, dev)
    else:
        agreement = assess.skipped("agreement", "ran on the CPU: there is no GPU result to compare with the CPU's")
    amp = amp_check(build, model, probe_x, probe_y, dev, request.amp)

    devices.reset_peak_memory(dev, tf)
    first_loss, _ = evaluate(model, ex, ey, dev)
    frozen_before = [np.array(w.numpy(), copy=True) for w in backbone.weights] if backbone is not None else None
    params = model.trainable_weights
    head_before = [np.array(w.numpy(), copy=True) for w in params]
    placement: dict[str, Any] = {}
    train_s = train(model, params, x, y, plan, plan.lr * request.lr_scale, dev, progress, "training", placement)
    last_loss, accuracy = evaluate(model, ex, ey, dev)

    chance = 1.0 / classes
    checks: list[SmokeCheck] = [
        assess.learned(first_loss, last_loss, accuracy, chance, plan.target),
        placement_check(model, placement, dev),
        agreement,
    ]
    if backbone is not None and frozen_before is not None:
        changed = [w.path for w, b in zip(backbone.weights, frozen_before) if not np.array_equal(w.numpy(), b)]
        head_changed = sum(1 for w, b in zip(params, head_before) if not np.array_equal(w.numpy(), b))
        checks.append(assess.frozen(changed, len(frozen_before), head_changed, len(params)))
    checks.append(amp)
    peak = devices.peak_memory_mib(dev, tf)
    out.update(training_summary(plan, first_loss, last_loss, accuracy, chance, train_s, peak, checks, notes))
    return out
