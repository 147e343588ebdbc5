"""The JAX models as pure functions over parameter pytrees (after shared/seeds: the Keras examples): a CNN, an LSTM
and a transfer model (a small convolutional backbone, frozen, with a new dense head). NHWC images throughout."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from gpudoctor.workloads import data

BACKBONE_CHANNELS = (16, 32)  # the transfer backbone: two 3x3 conv layers, each followed by 2x2 max pooling
BACKBONE_FEATURES = BACKBONE_CHANNELS[-1]


def _dense(rng: np.random.Generator, n_in: int, n_out: int) -> dict:
    return {"w": rng.normal(0, np.sqrt(2.0 / n_in), (n_in, n_out)).astype(np.float32), "b": np.zeros(n_out, np.float32)}


def _conv(rng: np.random.Generator, c_in: int, c_out: int) -> dict:
    return {"w": rng.normal(0, np.sqrt(2.0 / (9 * c_in)), (3, 3, c_in, c_out)).astype(np.float32), "b": np.zeros(c_out, np.float32)}


def conv(p: dict, x: jnp.ndarray) -> jnp.ndarray:
    y = lax.conv_general_dilated(x, p["w"], (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.nn.relu(y + p["b"])


def pool(x: jnp.ndarray) -> jnp.ndarray:
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def dense(p: dict, x: jnp.ndarray) -> jnp.ndarray:
    return x @ p["w"] + p["b"]


# -- CNN: conv-pool-conv-pool-conv, flatten, dense, dense on 28x28x1 -------------------------------------------------

def cnn_init(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"c1": _conv(rng, 1, 32), "c2": _conv(rng, 32, 64), "c3": _conv(rng, 64, 64),
            "d1": _dense(rng, 64 * 3 * 3, 64), "d2": _dense(rng, 64, data.CNN_CLASSES)}  # fmt: skip


def cnn_apply(p: dict, x: jnp.ndarray) -> jnp.ndarray:
    x = conv(p["c3"], pool(conv(p["c2"], pool(conv(p["c1"], x)))))
    return dense(p["d2"], jax.nn.relu(dense(p["d1"], x.reshape(x.shape[0], -1))))


# -- LSTM: embedding 1000 x 128, LSTM 128 (lax.scan), dense over the vocabulary ---------------------------------------

HIDDEN = 128


def lstm_init(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    gates = _dense(rng, 2 * HIDDEN, 4 * HIDDEN)
    gates["w"] *= np.float32(0.5)
    return {"embed": rng.normal(0, 0.1, (data.VOCAB, HIDDEN)).astype(np.float32), "gates": gates,
            "out": _dense(rng, HIDDEN, data.VOCAB)}  # fmt: skip


def lstm_apply(p: dict, tokens: jnp.ndarray) -> jnp.ndarray:
    x = p["embed"][tokens]  # (batch, seq, hidden)
    batch = tokens.shape[0]

    def step(carry, x_t):
        h, c = carry
        i, f, g, o = jnp.split(dense(p["gates"], jnp.concatenate([x_t, h], axis=-1)), 4, axis=-1)
        c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), None

    zeros = jnp.zeros((batch, HIDDEN), x.dtype)
    (h, _), _ = lax.scan(step, (zeros, zeros), jnp.swapaxes(x, 0, 1))
    return dense(p["out"], h)


# -- transfer: a frozen backbone (conv-pool-conv-pool, global average) and a new head ---------------------------------

def backbone_init(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    c1, c2 = BACKBONE_CHANNELS
    return {"c1": _conv(rng, 3, c1), "c2": _conv(rng, c1, c2)}


def backbone_apply(p: dict, x: jnp.ndarray) -> jnp.ndarray:
    return pool(conv(p["c2"], pool(conv(p["c1"], x - 0.5)))).mean(axis=(1, 2))


def head_init(classes: int, seed: int = 0) -> dict:
    return _dense(np.random.default_rng(seed), BACKBONE_FEATURES, classes)


def transfer_apply(params: dict, x: jnp.ndarray) -> jnp.ndarray:
    """``params`` = {"backbone": ..., "head": ...}; only the head is trained (the gradient is taken for it alone)."""
    return dense(params["head"], backbone_apply(params["backbone"], x))
