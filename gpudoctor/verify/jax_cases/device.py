"""Which JAX device a case runs on, and the proof of where arrays live (``array.devices()``)."""

from __future__ import annotations

import jax

from gpudoctor.workloads import NoDevice


def gpus() -> list:
    try:
        return list(jax.devices("gpu"))
    except RuntimeError:  # "Unknown backend: 'gpu' requested": no CUDA plugin, or it failed to initialise
        return []


def resolve_device(request: str):
    """-> (jax device, its name, why it was chosen). "auto": the first GPU JAX sees, else the CPU."""
    seen = gpus()
    if request in ("cuda", "auto") and seen:
        return seen[0], seen[0].device_kind, None
    if request.startswith("cuda:"):
        index = int(request.split(":", 1)[1])
        if index < len(seen):
            return seen[index], seen[index].device_kind, None
        raise NoDevice(f"no CUDA device {index}: JAX sees {len(seen)} GPU(s)")
    if request == "cuda":
        raise NoDevice("no CUDA device is visible to JAX (jax.devices('gpu') is empty: is jax[cuda12] or jax[cuda13] installed?)")
    cpu = jax.devices("cpu")[0]
    if request == "cpu":
        return cpu, "CPU", "--device cpu"
    return cpu, "CPU", f"no CUDA device is visible to JAX (default backend: {jax.default_backend()})"


def on(array, device) -> bool:
    return set(array.devices()) == {device}


def is_gpu(device) -> bool:
    return device.platform == "gpu"
