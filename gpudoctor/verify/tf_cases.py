"""The TensorFlow (Keras 3) smoke tests: CNN, LSTM and transfer learning with a custom ``tf.function`` training step,
a fixed number of steps on the requested device, then judged (gpudoctor/verify/assess.py). Imported only by the
worker (a child process).

Placement is proven three ways: the variables' devices, the devices of every batch and output, and TensorFlow's own
placement log of the first (traced) training step, captured from the placer's stdout."""

from __future__ import annotations

import ctypes
import math
import os
import re
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import tensorflow as tf
import keras

from gpudoctor.verify import assess, data, weights
from gpudoctor.verify.plan import Plan, Progress, training_summary
from gpudoctor.verify.model import CaseRequest, Check, NoDevice, Status

PLANS = {
    "cnn": Plan(steps=40, batch=64, lr=2e-3, eval_n=512, target=assess.LearnTarget(min_drop=0.5, min_accuracy=0.6)),
    "lstm": Plan(steps=60, batch=64, lr=1e-2, eval_n=512, target=assess.LearnTarget(min_drop=0.3, min_accuracy=0.3)),
    "transfer": Plan(steps=80, batch=32, lr=1e-2, eval_n=256, target=assess.LearnTarget(min_drop=0.3, min_accuracy=0.5)),
}
PRETRAIN = Plan(steps=30, batch=32, lr=5e-3, eval_n=0, target=assess.LearnTarget(0.0, 0.0))

# The heavy ops of a training step: each one the placer logs must be on the requested device.
COMPUTE_OPS = frozenset(
    {
        "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative",
        "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter", "MatMul", "BatchMatMulV2",
        "BiasAdd", "BiasAddGrad", "Relu", "ReluGrad", "Relu6", "Relu6Grad", "MaxPool", "MaxPoolGrad",
        "FusedBatchNormV3", "FusedBatchNormGradV3", "SparseSoftmaxCrossEntropyWithLogits", "CudnnRNNV3",
        "CudnnRNNBackpropV3", "ResourceGather", "Tanh", "TanhGrad", "Sigmoid", "SigmoidGrad",
    }
)  # fmt: skip
_PLACEMENT_LINE = re.compile(r"^(\S+): \((\w+)\): (/job:\S+)$")


# ---------------------------------------------------------------------------------------------------------------
# Device


@dataclass(frozen=True)
class Device:
    tf_name: str  # "/GPU:0", "/CPU:0"
    name: str  # "cuda:0", "cpu"
    label: str  # the GPU's name, "CPU"
    compute_capability: tuple[int, int] | None = None

    @property
    def is_gpu(self) -> bool:
        return self.tf_name.startswith("/GPU")

    def owns(self, device_string: str) -> bool:
        """Whether a TF device string ("/job:localhost/replica:0/task:0/device:GPU:0") is this device."""
        kind, index = self.tf_name.strip("/").split(":")
        return device_string.upper().endswith(f"DEVICE:{kind}:{index}".upper())


def _gpus() -> list[Any]:
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        try:
            tf.config.experimental.set_memory_growth(gpu, True)
        except RuntimeError:
            pass  # already initialised
    return gpus


def _why_no_gpu() -> str:
    if tf.test.is_built_with_cuda():
        return f" (tensorflow {tf.__version__} is a CUDA build; no driver or GPU is visible)"
    return f" (tensorflow {tf.__version__} is a CPU-only build)"


def resolve_device(request: str) -> tuple[Device, str | None]:
    gpus = _gpus()
    cpu = Device("/CPU:0", "cpu", "CPU")
    if request == "cpu":
        return cpu, "--device cpu"
    if request == "auto":
        if not gpus:
            return cpu, "no CUDA device is visible to TensorFlow" + _why_no_gpu()
        index = 0
    else:
        index = int(request.split(":", 1)[1]) if ":" in request else 0
        if not gpus:
            raise NoDevice(f"no CUDA device: tf.config.list_physical_devices('GPU') is empty{_why_no_gpu()}")
        if index >= len(gpus):
            raise NoDevice(f"no CUDA device cuda:{index}: TensorFlow sees {len(gpus)} (cuda:0..cuda:{len(gpus) - 1})")
    details = tf.config.experimental.get_device_details(gpus[index])
    return (
        Device(f"/GPU:{index}", f"cuda:{index}", details.get("device_name", f"GPU {index}"), details.get("compute_capability")),
        None,
    )


# ---------------------------------------------------------------------------------------------------------------
# Models (the Keras examples of shared/seeds, with logits out)


def cnn_model() -> keras.Model:
    L = keras.layers
    return keras.Sequential(
        [
            keras.Input((data.CNN_SIZE, data.CNN_SIZE, 1)),
            L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(2),
            L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(2),
            L.Conv2D(64, 3, activation="relu"),
            L.Flatten(), L.Dense(64, activation="relu"), L.Dense(data.CNN_CLASSES, dtype="float32"),
        ],
        name="cnn",
    )  # fmt: skip


def lstm_model() -> keras.Model:
    L = keras.layers
    return keras.Sequential(
        [
            keras.Input((data.SEQ_LEN,), dtype="int32"),
            L.Embedding(data.VOCAB, 128),
            L.LSTM(128),
            L.Dense(data.VOCAB, dtype="float32"),
        ],
        name="lstm",
    )


def transfer_model(backbone: keras.Model, classes: int, name: str = "transfer") -> keras.Model:
    inputs = keras.Input((weights.KERAS_SIZE, weights.KERAS_SIZE, 3))
    x = keras.layers.Rescaling(2.0, offset=-1.0)(inputs)  # [0, 1] -> [-1, 1], MobileNetV2's preprocessing
    x = backbone(x, training=False)  # frozen or not, inference-mode BatchNorm is what transfer learning wants
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(classes, dtype="float32", name="head")(x)
    return keras.Model(inputs, outputs, name=name)


_LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


# ---------------------------------------------------------------------------------------------------------------
# Training


def _batch(dev: Device, array: np.ndarray) -> tf.Tensor:
    with tf.device(dev.tf_name):
        return tf.identity(tf.convert_to_tensor(array))


def _evaluate(model: keras.Model, x: np.ndarray, y: np.ndarray, dev: Device) -> tuple[float, float]:
    with tf.device(dev.tf_name):
        logits = model(_batch(dev, x), training=False)
        loss = float(_LOSS(_batch(dev, y), logits))
    acc = float(np.mean(np.argmax(logits.numpy(), axis=1) == y))
    return loss, acc


class _CaptureFds:
    """Sends fd 1 and fd 2 to a file for a while: TensorFlow's placer prints its placement log there."""

    def __enter__(self) -> "_CaptureFds":
        self.file = tempfile.TemporaryFile(mode="w+b")
        self.saved = (os.dup(1), os.dup(2))
        _flush_c()
        os.dup2(self.file.fileno(), 1)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc: object) -> None:
        _flush_c()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        os.close(self.saved[0])
        os.close(self.saved[1])
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", "replace")
        self.file.close()


def _flush_c() -> None:
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


def parse_placement_log(text: str) -> list[tuple[str, str, str]]:
    """-> [(node name, op type, device)] from the placer's "name: (Op): /job:.../device:GPU:0" lines."""
    found = []
    for line in text.splitlines():
        m = _PLACEMENT_LINE.match(line.strip())
        if m:
            found.append((m.group(1), m.group(2), m.group(3)))
    return found


def _train(
    model: keras.Model,
    params: list[Any],
    x: np.ndarray,
    y: np.ndarray,
    plan: Plan,
    lr: float,
    dev: Device,
    progress: Progress,
    phase: str,
    placement: dict[str, Any] | None = None,
) -> float:
    with tf.device(dev.tf_name):
        opt = keras.optimizers.Adam(learning_rate=lr)
        opt.build(params)

        @tf.function(jit_compile=False)
        def step(xb: tf.Tensor, yb: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
            with tf.GradientTape() as tape:
                logits = model(xb, training=True)
                loss = _LOSS(yb, logits)
            grads = tape.gradient(loss, params)
            opt.apply_gradients(zip(grads, params))
            return loss, logits

        start = None
        for i in range(plan.steps):
            sl = slice(i * plan.batch, (i + 1) * plan.batch)
            xb, yb = _batch(dev, x[sl]), _batch(dev, y[sl])
            if i == 0 and placement is not None:
                with _CaptureFds() as cap:
                    loss, logits = step(xb, yb)
                placement["log"] = parse_placement_log(cap.text)
            else:
                loss, logits = step(xb, yb)
            if placement is not None:
                placement["batches"] = placement.get("batches", 0) + 1
                for what, t in (("input batch", xb), ("label batch", yb), ("loss", loss), ("output", logits)):
                    if not dev.owns(t.device):
                        placement.setdefault("misplaced", []).append(f"{what} {i + 1} on {t.device}")
            if i == 0:
                float(loss)  # the first step traces the function: not part of the timed loop
                start = time.perf_counter()
            progress(i + 1, plan.steps, phase)
        float(loss)  # wait for the device
    elapsed = time.perf_counter() - start if start is not None else 0.0
    return elapsed * plan.steps / max(plan.steps - 1, 1)


def placement_check(model: keras.Model, placement: dict[str, Any], dev: Device) -> Check:
    variables = model.weights
    wrong = [f"{v.path} on {v.value.device}" for v in variables if not dev.owns(v.value.device)]
    wrong += placement.get("misplaced", [])
    log = [entry for entry in placement.get("log", []) if entry[1] in COMPUTE_OPS]
    log_wrong = [f"{op} {name} on {device}" for name, op, device in log if not dev.owns(device)]
    gpus = tf.config.list_physical_devices("GPU")
    measured: dict[str, Any] = {
        "variables": len(variables),
        "batches": placement.get("batches", 0),
        "misplaced": len(wrong),
        "placement_log_compute_ops": len(log),
        "placement_log_misplaced": len(log_wrong),
        "gpus_visible": len(gpus),
        "gpu_device_name": tf.test.gpu_device_name(),
    }
    problems = []
    if wrong:
        problems.append(f"{len(wrong)} variables/tensors not on {dev.tf_name}: " + ", ".join(wrong[:3]))
    if log_wrong:
        problems.append(f"placement log: {len(log_wrong)} of {len(log)} compute ops not on {dev.tf_name}: " + ", ".join(log_wrong[:3]))
    if not log:
        problems.append("placement log: no compute op was logged for the first training step")
    if dev.is_gpu and not gpus:
        problems.append("tf.config.list_physical_devices('GPU') is empty")
    if problems:
        return Check("placement", Status.FAILED, "; ".join(problems), measured)
    saw = f", tf.test.gpu_device_name() = {measured['gpu_device_name']!r}" if dev.is_gpu else ""
    return Check(
        "placement",
        Status.PASSED,
        f"all {len(variables)} variables, {measured['batches']} batches and outputs on {dev.tf_name}; placement log: "
        f"{len(log)} compute ops, all on {dev.tf_name}{saw}",
        measured,
    )


def _one_step(model: keras.Model, x: np.ndarray, y: np.ndarray, dev: Device) -> tuple[float, list[float]]:
    with tf.device(dev.tf_name):
        xb, yb = _batch(dev, x), _batch(dev, y)
        with tf.GradientTape() as tape:
            loss = _LOSS(yb, model(xb, training=False))
        grads = tape.gradient(loss, model.trainable_weights)
    flat = np.concatenate([np.asarray(g, dtype=np.float64).ravel() for g in grads if g is not None])
    return float(loss), flat.tolist()


def agreement_check(build: Callable[[], keras.Model], model: keras.Model, x: np.ndarray, y: np.ndarray, dev: Device) -> Check:
    """One forward + backward from the same weights on the CPU and on the GPU (fp32, TF32 off)."""
    with tf.device("/CPU:0"):
        cpu_model = build()
    cpu_model.set_weights(model.get_weights())
    tf32 = tf.config.experimental.tensor_float_32_execution_enabled()
    tf.config.experimental.enable_tensor_float_32_execution(False)
    try:
        loss_c, grads_c = _one_step(cpu_model, x, y, Device("/CPU:0", "cpu", "CPU"))
        loss_d, grads_d = _one_step(model, x, y, dev)
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(tf32)
    return assess.agreement(dev.name, loss_c, loss_d, assess.relative_error(grads_c, grads_d))


def amp_step(build: Callable[[], keras.Model], model: keras.Model, x: np.ndarray, y: np.ndarray, dev: Device, policy: str) -> float:
    """One training step of a copy of the model under a mixed-precision policy (fp16 with a loss-scale optimizer):
    -> its loss. The global policy is set back to float32 afterwards."""
    keras.mixed_precision.set_dtype_policy(policy)
    try:
        with tf.device(dev.tf_name):
            amp_model = build()
            amp_model.set_weights(model.get_weights())
            opt = keras.optimizers.Adam(1e-3)
            if policy == "mixed_float16":
                opt = keras.optimizers.LossScaleOptimizer(opt)
            params = amp_model.trainable_weights
            opt.build(params)
            xb, yb = _batch(dev, x), _batch(dev, y)
            with tf.GradientTape() as tape:
                loss = _LOSS(yb, tf.cast(amp_model(xb, training=True), tf.float32))
                scaled = opt.scale_loss(loss)
            grads = tape.gradient(scaled, params)
            opt.apply(grads, params)
            return float(loss)
    finally:
        keras.mixed_precision.set_dtype_policy("float32")


def amp_check(build: Callable[[], keras.Model], model: keras.Model, x: np.ndarray, y: np.ndarray, dev: Device, amp: bool | None) -> Check:
    if not dev.is_gpu:
        return assess.skipped("amp", "mixed precision needs a CUDA device; this ran on the CPU")
    major, minor = dev.compute_capability or (0, 0)
    cc = f"{major}.{minor}"
    if amp is False:
        return assess.skipped("amp", "turned off by --no-amp")
    if amp is None and major < 7:
        return assess.skipped("amp", f"compute capability {cc} < 7.0 (no tensor cores): off by default, --amp forces it")
    measured: dict[str, Any] = {"compute_capability": cc}
    policies = [("fp16", "mixed_float16")] + ([("bf16", "mixed_bfloat16")] if major >= 8 else [])
    problems = []
    for short, policy in policies:
        measured[f"{short}_loss"] = amp_step(build, model, x, y, dev, policy)
        if not math.isfinite(measured[f"{short}_loss"]):
            problems.append(f"{short} loss is {measured[f'{short}_loss']}")
    if problems:
        return Check("amp", Status.FAILED, "mixed precision step: " + "; ".join(problems), measured)
    bf16 = f", bf16 loss {measured['bf16_loss']:.4f}" if "bf16_loss" in measured else ", bf16 needs compute capability 8.0"
    return Check("amp", Status.PASSED, f"fp16 step with loss scaling: loss {measured['fp16_loss']:.4f}{bf16}", measured)


# ---------------------------------------------------------------------------------------------------------------
# The cases


def _recalibrate_batchnorm(model: keras.Model, x: np.ndarray, dev: Device, batch: int, batches: int = 8) -> None:
    """Keras' MobileNetV2 BatchNorm (momentum 0.999) barely moves in a short pretraining: recompute its statistics
    over the task-A data as a cumulative average (momentum 1 - 1/k at the k-th batch), in eager mode."""
    norms = [layer for layer in _all_layers(model) if isinstance(layer, keras.layers.BatchNormalization)]
    saved = [layer.momentum for layer in norms]
    with tf.device(dev.tf_name):
        for k in range(1, batches + 1):
            for layer in norms:
                layer.momentum = 1.0 - 1.0 / k
            model(_batch(dev, x[(k - 1) * batch : k * batch]), training=True)
    for layer, momentum in zip(norms, saved):
        layer.momentum = momentum


def _all_layers(model: keras.Model) -> list[Any]:
    out = []
    for layer in model.layers:
        out.append(layer)
        if isinstance(layer, keras.Model):
            out.extend(_all_layers(layer))
    return out


def _pretrain(backbone: keras.Model, dev: Device, lr_scale: float, progress: Progress) -> None:
    x, y = data.pretrain_data(PRETRAIN.steps * PRETRAIN.batch, seed=3, size=weights.KERAS_SIZE)
    with tf.device(dev.tf_name):
        inputs = keras.Input((weights.KERAS_SIZE, weights.KERAS_SIZE, 3))
        feats = backbone(keras.layers.Rescaling(2.0, offset=-1.0)(inputs), training=True)
        outputs = keras.layers.Dense(data.PRETRAIN_CLASSES, dtype="float32")(keras.layers.GlobalAveragePooling2D()(feats))
        model = keras.Model(inputs, outputs, name="pretrain")
    _train(model, model.trainable_weights, x, y, PRETRAIN, PRETRAIN.lr * lr_scale, dev, progress, "pretraining backbone")
    _recalibrate_batchnorm(model, x, dev, PRETRAIN.batch)


def run(request: CaseRequest, progress: Progress) -> dict[str, Any]:
    # The placer logs where it puts each op of a function only when this is on before TensorFlow's context starts;
    # the log goes to stdout (the worker has sent that to stderr) and is captured for the first training step.
    tf.debugging.set_log_device_placement(True)
    keras.utils.set_random_seed(0)
    keras.mixed_precision.set_dtype_policy("float32")
    dev, note = resolve_device(request.device)
    out: dict[str, Any] = {
        "device": dev.name,
        "device_name": dev.label,
        "device_note": note,
        "framework_version": f"{tf.__version__} (keras {keras.__version__})",
    }
    notes: list[str] = []
    plan = PLANS[request.test]
    n = plan.steps * plan.batch
    backbone = None
    with tf.device(dev.tf_name):
        if request.test == "cnn":
            x, y = data.cnn_data(n, seed=1)
            ex, ey = data.cnn_data(plan.eval_n, seed=2)
            build, classes = cnn_model, data.CNN_CLASSES
            model = build()
        elif request.test == "lstm":
            x, y = data.lstm_data(n, seed=1)
            ex, ey = data.lstm_data(plan.eval_n, seed=2)
            x, ex = x.astype(np.int32), ex.astype(np.int32)
            build, classes = lstm_model, data.LANGUAGE_WORDS
            model = build()
        else:
            backbone, source = weights.keras_backbone(request.weights)
            out["weights"] = source.description
            if source.kind == "fallback":
                notes.append(weights.FALLBACK_NOTE)
                _pretrain(backbone, dev, request.lr_scale, progress)
            backbone.trainable = False
            keras.utils.set_random_seed(0)
            x, y = data.transfer_data(n, seed=1, size=weights.KERAS_SIZE)
            ex, ey = data.transfer_data(plan.eval_n, seed=2, size=weights.KERAS_SIZE)
            classes = data.TRANSFER_CLASSES
            model = transfer_model(backbone, classes)

            def build() -> keras.Model:
                clone = keras.applications.MobileNetV2(
                    input_shape=(weights.KERAS_SIZE, weights.KERAS_SIZE, 3), alpha=weights.KERAS_ALPHA,
                    include_top=False, weights=None,
                )  # fmt: skip
                clone.trainable = False
                return transfer_model(clone, classes)

    checks: list[Check] = []
    probe_x, probe_y = x[: plan.batch], y[: plan.batch]
    if dev.is_gpu:
        checks.append(agreement_check(build, model, probe_x, probe_y, dev))
    else:
        checks.append(assess.skipped("agreement", "ran on the CPU: there is no GPU result to compare with the CPU's"))
    amp = amp_check(build, model, probe_x, probe_y, dev, request.amp)

    if dev.is_gpu:
        tf.config.experimental.reset_memory_stats(dev.tf_name.strip("/"))
    first_loss, _ = _evaluate(model, ex, ey, dev)
    frozen_before = [np.array(w.numpy(), copy=True) for w in backbone.weights] if backbone is not None else None
    params = model.trainable_weights
    head_before = [np.array(w.numpy(), copy=True) for w in params]
    placement: dict[str, Any] = {}
    train_s = _train(model, params, x, y, plan, plan.lr * request.lr_scale, dev, progress, "training", placement)
    last_loss, accuracy = _evaluate(model, ex, ey, dev)

    chance = 1.0 / classes
    checks.insert(0, assess.learned(first_loss, last_loss, accuracy, chance, plan.target))
    checks.insert(1, placement_check(model, placement, dev))
    if backbone is not None and frozen_before is not None:
        changed = [w.path for w, b in zip(backbone.weights, frozen_before) if not np.array_equal(w.numpy(), b)]
        head_changed = sum(1 for w, b in zip(params, head_before) if not np.array_equal(w.numpy(), b))
        checks.append(assess.frozen(changed, len(frozen_before), head_changed, len(params)))
    checks.append(amp)

    peak = None
    if dev.is_gpu:
        peak = tf.config.experimental.get_memory_info(dev.tf_name.strip("/"))["peak"] / 2**20
    out.update(training_summary(plan, first_loss, last_loss, accuracy, chance, train_s, peak, checks, notes))
    return out
