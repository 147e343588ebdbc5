"""Writes MobileNetV2 (no top, 96x96) weights in the legacy Keras .h5 format that keras.applications loads.

    python tests/verify/make_keras_weights.py OUT.h5 ALPHA [--pretrain]

--pretrain first trains the backbone on gpudoctor's synthetic task A (as the offline fallback does), so a frozen
copy of it gives features a head can learn from. Run in a subprocess: it imports TensorFlow."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import h5py  # noqa: E402
import keras  # noqa: E402
from keras.src.legacy.saving import legacy_h5_format  # noqa: E402

from gpudoctor.workloads import weights  # noqa: E402
from gpudoctor.verify.tf_cases import device, training  # noqa: E402


def main() -> None:
    out, alpha = sys.argv[1], float(sys.argv[2])
    keras.utils.set_random_seed(0)
    size = weights.KERAS_SIZE
    model = keras.applications.MobileNetV2(input_shape=(size, size, 3), alpha=alpha, include_top=False, weights=None)
    if "--pretrain" in sys.argv:
        dev, _ = device.resolve_device("cpu")
        training.pretrain(model, dev, 1.0, lambda *a: None)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with h5py.File(out, "w") as f:
        legacy_h5_format.save_weights_to_hdf5_group(f, model)


if __name__ == "__main__":
    main()
