"""Pretrained backbone weights, offline: where they are looked for, and the real loaders.

- PyTorch: torchvision's ``MobileNet_V3_Small_Weights.IMAGENET1K_V1`` through the torch hub cache
  (``torch.hub.get_dir()/checkpoints/<file name of the weights' url>``, i.e. ``$TORCH_HOME/hub/checkpoints``).
- TensorFlow: ``keras.applications.MobileNetV2(alpha=0.35, include_top=False)`` through the Keras cache
  (``$KERAS_HOME/models/<file>``, ``~/.keras/models`` by default).
- ``--weights PATH``: a state_dict file (.pt/.pth) for PyTorch, a Keras weights file (.h5/.weights.h5/.keras) for
  TensorFlow, loaded strictly: a file of the wrong shape is a failed test that says so.

The real loader runs only when the file is in the cache, so nothing here ever touches the network. With nothing
cached, the case says so and pretrains the backbone here on synthetic data (task A) before the transfer (task B),
and keeps what it pretrained in gpudoctor's own cache (``pretrained_here_path``): a later run reuses it instead of
pretraining again, and says so. The entry's name holds the framework's version and the pretraining recipe, so a new
framework or a changed recipe pretrains afresh. The path helpers import nothing heavy; the loaders are called by the
worker only.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpudoctor.matrix.tables.framework import Framework
from gpudoctor.workloads import CaseFailed

FALLBACK_NOTE = "no pretrained weights available offline: using a backbone pretrained here on synthetic data"

TORCH_SUFFIXES = (".pt", ".pth", ".bin")
KERAS_SUFFIXES = (".h5", ".hdf5", ".keras")
JAX_SUFFIXES = (".npz",)
JAX_BACKBONE = "a two-layer convolutional backbone (16, 32 channels)"
JAX_WEIGHTS_FILE = "jax-backbone-c16-c32.npz"  # arrays c1.w, c1.b, c2.w, c2.b (HWIO kernels)

TORCH_BACKBONE = "MobileNetV3-small"
TORCH_BACKBONE_FEATURES = 576  # channels out of mobilenet_v3_small().features
TORCH_WEIGHTS_URL_FILE = "mobilenet_v3_small-047dcff4.pth"  # file name of MobileNet_V3_Small_Weights.IMAGENET1K_V1.url

KERAS_ALPHA = 0.35
KERAS_SIZE = 96  # the smallest input keras.applications has MobileNetV2 weights for
# The input of a MobileNetV2 pretrained here (no weights file fixes it): 64 x 64 costs 2.25x less than 96 x 96 in
# every step, and with 60 pretraining steps its frozen features separate the colours better (accuracy 0.95 against
# 0.86 at 96 with 30 steps, measured; issue 23).
KERAS_PRETRAIN_HERE_SIZE = 64
KERAS_BACKBONE = f"MobileNetV2 (alpha {KERAS_ALPHA})"
KERAS_WEIGHTS_FILE = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{KERAS_ALPHA}_{KERAS_SIZE}_no_top.h5"


@dataclass(frozen=True)
class Source:
    """Where a transfer test's pretrained weights came from (hub cache, --weights file, or fallback), in words."""

    kind: str  # "cache" | "file" | "fallback"
    path: str | None
    description: str


def framework_of(path: str) -> Framework | None:
    """Which framework a --weights file is for, by its suffix (None: a file gpudoctor does not know)."""
    name = path.lower()
    if name.endswith(TORCH_SUFFIXES):
        return Framework.TORCH
    if name.endswith(KERAS_SUFFIXES):
        return Framework.TENSORFLOW
    if name.endswith(JAX_SUFFIXES):
        return Framework.JAX
    return None


def pick(paths: tuple[str, ...] | list[str], framework: Framework) -> str | None:
    return next((p for p in paths if framework_of(p) == framework), None)


def torch_cache_path() -> Path:
    """Where torchvision's loader looks (torch.hub.get_dir() resolves TORCH_HOME and XDG_CACHE_HOME like this)."""
    import torch.hub  # only ever reached in the worker

    return Path(torch.hub.get_dir()) / "checkpoints" / _torch_weights().url.rsplit("/", 1)[-1]


def keras_home() -> Path:
    """Where Keras keeps its cache, by Keras' own rule (keras/src/backend/config.py): $KERAS_HOME when set, else
    ~/.keras when the home directory is writable, else /tmp/.keras. A HOME that is unset, missing or a file must not
    break verify: the cache is then simply not there."""
    if "KERAS_HOME" in os.environ:
        return Path(os.environ["KERAS_HOME"])
    base = os.path.expanduser("~")
    if not os.access(base, os.W_OK):
        base = "/tmp"
    return Path(base) / ".keras"


def keras_cache_path() -> Path:
    return keras_home() / "models" / KERAS_WEIGHTS_FILE


def _torch_weights() -> Any:
    from torchvision.models import MobileNet_V3_Small_Weights

    return MobileNet_V3_Small_Weights.IMAGENET1K_V1


def torch_backbone(paths: tuple[str, ...]) -> tuple[Any, Source]:
    """-> (mobilenet_v3_small().features, where its weights came from)."""
    import torch
    from torchvision.models import mobilenet_v3_small

    given = pick(paths, Framework.TORCH)
    if given is not None:
        model = mobilenet_v3_small(weights=None)
        try:
            state = torch.load(given, map_location="cpu", weights_only=True)
            if isinstance(state, dict) and "state_dict" in state and isinstance(state["state_dict"], dict):
                state = state["state_dict"]
            model.load_state_dict(state, strict=True)
        except Exception as exc:  # noqa: BLE001 - any failure to load is the test's answer
            raise CaseFailed(f"weights: {given} does not fit {TORCH_BACKBONE}: {_first_lines(exc)}") from exc
        return model.features, Source("file", given, f"{TORCH_BACKBONE} weights loaded from {given} (--weights)")
    cached = torch_cache_path()
    if cached.is_file():
        weights = _torch_weights()
        try:
            model = mobilenet_v3_small(weights=weights, progress=False)  # the real loader; finds the cached file
        except Exception as exc:  # noqa: BLE001
            raise CaseFailed(f"weights: cached {cached} does not load: {_first_lines(exc)}") from exc
        return model.features, Source("cache", str(cached), f"{TORCH_BACKBONE} {weights} loaded from the torch hub cache {cached}")
    return mobilenet_v3_small(weights=None).features, Source(
        "fallback", None, f"{TORCH_BACKBONE} pretrained here on synthetic data (nothing at {cached})"
    )


def keras_backbone(paths: tuple[str, ...]) -> tuple[Any, Source]:
    """-> (keras.applications.MobileNetV2 without top, where its weights came from). Build under the device scope."""
    import keras

    shape = (KERAS_SIZE, KERAS_SIZE, 3)
    given = pick(paths, Framework.TENSORFLOW)
    if given is not None:
        try:
            model = keras.applications.MobileNetV2(input_shape=shape, alpha=KERAS_ALPHA, include_top=False, weights=given)
        except Exception as exc:  # noqa: BLE001
            raise CaseFailed(f"weights: {given} does not fit {KERAS_BACKBONE}: {_first_lines(exc)}") from exc
        return model, Source("file", given, f"{KERAS_BACKBONE} weights loaded from {given} (--weights)")
    cached = keras_cache_path()
    if cached.is_file():
        try:
            model = keras.applications.MobileNetV2(
                input_shape=shape, alpha=KERAS_ALPHA, include_top=False, weights="imagenet"
            )  # the real loader: keras' get_file finds the cached file and does not download
        except Exception as exc:  # noqa: BLE001
            raise CaseFailed(f"weights: cached {cached} does not load: {_first_lines(exc)}") from exc
        return model, Source("cache", str(cached), f"{KERAS_BACKBONE} imagenet weights loaded from the Keras cache {cached}")
    here = (KERAS_PRETRAIN_HERE_SIZE, KERAS_PRETRAIN_HERE_SIZE, 3)
    model = keras.applications.MobileNetV2(input_shape=here, alpha=KERAS_ALPHA, include_top=False, weights=None)
    return model, Source("fallback", None, f"{KERAS_BACKBONE} pretrained here on synthetic data (nothing at {cached})")


def jax_cache_path() -> Path | None:
    """gpudoctor's own cache (GPUDOCTOR_CACHE_DIR, else $XDG_CACHE_HOME/gpudoctor): JAX has no model zoo of its own
    to cache from, so a backbone file put there (or given with --weights) is what "pretrained" means for JAX."""
    from gpudoctor.matrix.tables.cache import cache_dir

    base = cache_dir()
    return base / "verify" / JAX_WEIGHTS_FILE if base is not None else None


def jax_backbone(paths: tuple[str, ...], shapes: dict) -> tuple[Any, Source]:
    """-> (the backbone's arrays as {"c1": {"w", "b"}, "c2": ...}, where they came from). ``shapes``: a freshly
    initialised backbone, whose shapes the file must match exactly. Nothing found: the caller pretrains one."""
    import numpy as np

    given = pick(paths, Framework.JAX)
    cached = jax_cache_path()
    path, kind = (given, "file") if given is not None else (str(cached), "cache") if cached is not None and cached.is_file() else (None, "fallback")
    if path is None:
        return shapes, Source("fallback", None, f"{JAX_BACKBONE} pretrained here on synthetic data (nothing at {cached})")
    try:
        with np.load(path, allow_pickle=False) as npz:
            loaded = {layer: {k: np.asarray(npz[f"{layer}.{k}"], np.float32) for k in arrays} for layer, arrays in shapes.items()}
            extra = set(npz.files) - {f"{layer}.{k}" for layer, arrays in shapes.items() for k in arrays}
        wrong = [f"{layer}.{k} {loaded[layer][k].shape} != {arrays[k].shape}" for layer, arrays in shapes.items()
                 for k in arrays if loaded[layer][k].shape != arrays[k].shape]  # fmt: skip
        if wrong or extra:
            raise ValueError("; ".join(wrong) or f"unexpected arrays {sorted(extra)}")
    except Exception as exc:  # noqa: BLE001 - any failure to load is the test's answer
        raise CaseFailed(f"weights: {path} does not fit {JAX_BACKBONE}: {_first_lines(exc)}") from exc
    where = "(--weights)" if kind == "file" else "(gpudoctor's cache)"
    return loaded, Source(kind, path, f"{JAX_BACKBONE} weights loaded from {path} {where}")


def pretrained_here_path(framework: str, version: str, backbone: str, recipe: str) -> Path | None:
    """gpudoctor's cache entry for a backbone an earlier run pretrained here on synthetic data (None: caching is off).
    ``recipe`` names how it was pretrained (input size, steps, batch, learning rate)."""
    from gpudoctor.cachefiles import cache_dir

    base = cache_dir()
    name = "-".join(re.sub(r"[^\w.]+", "_", part) for part in (framework, version, backbone, recipe))
    return base / "verify" / f"pretrained-here-{name}.npz" if base is not None else None


def load_pretrained_here(path: Path | None, shapes: dict[str, tuple[int, ...]]) -> dict[str, Any] | None:
    """The arrays of a backbone pretrained here by an earlier run, or None when there is no such entry, or it is not
    ours to trust (gpudoctor.cachefiles), or it does not have exactly these arrays and shapes: then the caller
    pretrains again (a cache is an optimisation only, never a failed test)."""
    import io

    import numpy as np

    from gpudoctor.cachefiles import read_private

    data = read_private(path) if path is not None else None
    if data is None:
        return None
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            if set(npz.files) != set(shapes):
                return None
            arrays = {name: npz[name] for name in shapes}
    except Exception:  # noqa: BLE001 - a damaged entry is rebuilt
        return None
    return arrays if all(arrays[name].shape == tuple(shape) for name, shape in shapes.items()) else None


def save_pretrained_here(path: Path | None, arrays: dict[str, Any]) -> None:
    """Keep a backbone pretrained here for the next run (atomically; a failure to write is silent)."""
    import io

    import numpy as np

    from gpudoctor.cachefiles import write_atomic

    if path is None:
        return
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_atomic(path.parent, path.name, buffer.getvalue())


def pretrained_here_source(backbone: str, path: Path, looked: Path | str | None) -> Source:
    where = f" (nothing at {looked})" if looked is not None else ""
    return Source("fallback", str(path), f"{backbone} pretrained here on synthetic data{where}; reused from gpudoctor's "
                                         f"cache {path}, where an earlier run kept it")


def _first_lines(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
