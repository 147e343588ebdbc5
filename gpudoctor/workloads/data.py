"""Synthetic but learnable data, generated in the child with a fixed seed (numpy only; no downloads).

Each generator follows a rule a small model can learn in a few dozen steps, so "the loss fell and the accuracy beats
chance" is evidence of real training, and a model that cannot learn (learning rate 0, garbage arithmetic) shows up.
"""

from __future__ import annotations

import numpy as np

CNN_CLASSES = 10
CNN_SIZE = 28

VOCAB = 1000
SEQ_LEN = 20
LANGUAGE_WORDS = 100  # the words the synthetic language uses (out of VOCAB)
LSTM_NOISE = 0.1  # share of words replaced by a random word

TRANSFER_CLASSES = 4  # task B: the colour of a square (red, green, blue, yellow)
PRETRAIN_CLASSES = 6  # task A (offline fallback): dominant channel (3) x stripe orientation (2)

_SQUARE = 6
_ROWS = (3, 17)
_COLS = (1, 6, 11, 16, 21)


def cnn_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """28x28x1 images (NHWC, float32): class k is a bright 6x6 square at the k-th of 10 places, +-1 px, in noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CNN_CLASSES, n)
    images = rng.normal(0.0, 0.3, (n, CNN_SIZE, CNN_SIZE, 1)).astype(np.float32)
    jitter = rng.integers(-1, 2, (n, 2))
    for i, k in enumerate(labels):
        r = _ROWS[k // 5] + jitter[i, 0]
        c = _COLS[k % 5] + jitter[i, 1]
        r, c = max(r, 0), max(c, 0)
        images[i, r : r + _SQUARE, c : c + _SQUARE, 0] += 1.0
    return images, labels.astype(np.int64)


def _language() -> np.ndarray:
    """The fixed rule: every word of the language has one successor (a cycle through LANGUAGE_WORDS words)."""
    return np.random.default_rng(1234).choice(VOCAB, LANGUAGE_WORDS, replace=False)


def lstm_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Token sequences (n, 20) of int64 and the next word (n,). Sentences walk the cycle; 10% of the words are
    replaced by a random one (the last word too), so the model has to use the context, not just the last word."""
    rng = np.random.default_rng(seed)
    cycle = _language()
    start = rng.integers(0, LANGUAGE_WORDS, n)
    positions = (start[:, None] + np.arange(SEQ_LEN + 1)[None, :]) % LANGUAGE_WORDS
    words = cycle[positions]
    inputs = words[:, :SEQ_LEN].copy()
    noisy = rng.random(inputs.shape) < LSTM_NOISE
    inputs[noisy] = rng.integers(0, VOCAB, int(noisy.sum()))
    return inputs.astype(np.int64), words[:, SEQ_LEN].astype(np.int64)


_COLOURS = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]], dtype=np.float32)


_NOISE_BLOCK = 128  # images of noise drawn at once


def transfer_data(n: int, seed: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Task B: size x size x 3 images in [0, 1] (NHWC): a square of one of 4 colours, three quarters of the side, at a
    random place on grey noise (large enough that a briefly pretrained, frozen backbone separates the colours)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, TRANSFER_CLASSES, n)
    # The noise is drawn in float64 a block of images at a time: the same numbers as one draw of the whole array
    # (the generator's stream does not depend on the block size), without its gigabyte (5,120 images of 96 x 96:
    # 4.2 -> 2.7 CPU-s on the 2-core machine, issue 23).
    images = np.empty((n, size, size, 3), dtype=np.float32)
    for start in range(0, n, _NOISE_BLOCK):
        noise = rng.normal(0.5, 0.1, (min(n - start, _NOISE_BLOCK), size, size, 3))
        images[start : start + len(noise)] = np.clip(noise, 0.0, 1.0, out=noise)
    side = (size * 3) // 4
    corners = rng.integers(0, size - side, (n, 2))
    for i, k in enumerate(labels):
        r, c = corners[i]
        images[i, r : r + side, c : c + side, :] = _COLOURS[k]
    return images, labels.astype(np.int64)


def pretrain_data(n: int, seed: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Task A (the offline stand-in for ImageNet): stripes, horizontal or vertical, whose colour is dominated by one
    channel; class = channel * 2 + orientation. Colour features learnt here carry over to task B."""
    rng = np.random.default_rng(seed)
    channel = rng.integers(0, 3, n)
    vertical = rng.integers(0, 2, n)
    period = max(size // 8, 2)
    ramp = (np.arange(size) // (period // 2 or 1)) % 2
    images = np.empty((n, size, size, 3), dtype=np.float32)
    for i in range(n):
        colour = rng.uniform(0.0, 0.4, 3).astype(np.float32)
        colour[channel[i]] = rng.uniform(0.7, 1.0)
        stripes = np.tile(ramp[None, :] if vertical[i] else ramp[:, None], (size, 1) if vertical[i] else (1, size))
        images[i] = stripes[:, :, None] * colour[None, None, :]
    images += rng.normal(0.0, 0.05, images.shape).astype(np.float32)
    return np.clip(images, 0.0, 1.0), (channel * 2 + vertical).astype(np.int64)
