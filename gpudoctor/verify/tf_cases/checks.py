"""What a TensorFlow smoke test proves besides learning: placement (variables, every batch and output, and the
placer's own log of the first step), GPU-vs-CPU agreement of one step without TF32, and a mixed-precision step
(policy in assess.amp)."""

from __future__ import annotations

from typing import Any, Callable

import keras
import numpy as np
import tensorflow as tf

from gpudoctor.verify import assess
from gpudoctor.verify.model import SmokeCheck, SmokeStatus
from gpudoctor.verify.tf_cases.device import CPU, Device, amp_dtypes
from gpudoctor.verify.tf_cases.models import LOSS
from gpudoctor.verify.tf_cases.training import batch

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
POLICIES = {"fp16": "mixed_float16", "bf16": "mixed_bfloat16"}


def placement_check(model: keras.Model, placement: dict[str, Any], dev: Device) -> SmokeCheck:
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
        return SmokeCheck("placement", SmokeStatus.FAILED, "; ".join(problems), measured)
    saw = f", tf.test.gpu_device_name() = {measured['gpu_device_name']!r}" if dev.is_gpu else ""
    return SmokeCheck(
        "placement",
        SmokeStatus.PASSED,
        f"all {len(variables)} variables, {measured['batches']} batches and outputs on {dev.tf_name}; placement log: "
        f"{len(log)} compute ops, all on {dev.tf_name}{saw}",
        measured,
    )


def _one_step(model: keras.Model, x: np.ndarray, y: np.ndarray, dev: Device) -> tuple[float, list[float]]:
    with tf.device(dev.tf_name):
        xb, yb = batch(dev, x), batch(dev, y)
        with tf.GradientTape() as tape:
            loss = LOSS(yb, model(xb, training=False))
        grads = tape.gradient(loss, model.trainable_weights)
    flat = np.concatenate([np.asarray(g, dtype=np.float64).ravel() for g in grads if g is not None])
    return float(loss), flat.tolist()


def agreement_check(build: Callable[[], keras.Model], model: keras.Model, x: np.ndarray, y: np.ndarray, dev: Device) -> SmokeCheck:
    """One forward + backward from the same weights on the CPU and on the GPU, with TF32 off (fp32 on both sides).
    cuDNN's autotuner cannot be switched off at run time in TensorFlow; assess.AGREEMENT_TOLERANCE allows for it."""
    with tf.device("/CPU:0"):
        cpu_model = build()
    cpu_model.set_weights(model.get_weights())
    tf32 = tf.config.experimental.tensor_float_32_execution_enabled()
    tf.config.experimental.enable_tensor_float_32_execution(False)
    try:
        loss_c, grads_c = _one_step(cpu_model, x, y, CPU)
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
            xb, yb = batch(dev, x), batch(dev, y)
            with tf.GradientTape() as tape:
                loss = LOSS(yb, tf.cast(amp_model(xb, training=True), tf.float32))
                scaled = opt.scale_loss(loss)
            grads = tape.gradient(scaled, params)
            opt.apply(grads, params)
            return float(loss)
    finally:
        keras.mixed_precision.set_dtype_policy("float32")


def amp_check(build: Callable[[], keras.Model], model: keras.Model, x: np.ndarray, y: np.ndarray, dev: Device,
              amp: bool | None) -> SmokeCheck:  # fmt: skip
    return assess.amp(dev.is_gpu, dev.compute_capability, amp, amp_dtypes(dev),
                      lambda dtype: amp_step(build, model, x, y, dev, POLICIES[dtype]))  # fmt: skip
