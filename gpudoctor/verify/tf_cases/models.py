"""The Keras models (the Keras examples of shared/seeds, with logits out) and the loss they train with."""

from __future__ import annotations

import keras

from gpudoctor.workloads import data, weights

LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


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
    inputs = keras.Input(backbone.input_shape[1:])  # 96 x 96 for keras' weights, 64 x 64 for a backbone pretrained here
    x = keras.layers.Rescaling(2.0, offset=-1.0)(inputs)  # [0, 1] -> [-1, 1], MobileNetV2's preprocessing
    x = backbone(x, training=False)  # frozen or not, inference-mode BatchNorm is what transfer learning wants
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(classes, dtype="float32", name="head")(x)
    return keras.Model(inputs, outputs, name=name)


def frozen_transfer_model(classes: int, size: int = weights.KERAS_SIZE) -> keras.Model:
    """A fresh transfer model of the same shape (a copy's skeleton: for the agreement and mixed-precision steps)."""
    clone = keras.applications.MobileNetV2(
        input_shape=(size, size, 3), alpha=weights.KERAS_ALPHA, include_top=False,
        weights=None,
    )  # fmt: skip
    clone.trainable = False
    return transfer_model(clone, classes)
