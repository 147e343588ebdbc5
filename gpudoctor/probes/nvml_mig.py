"""A GPU's MIG devices through NVML, by UUID (what CUDA_VISIBLE_DEVICES names): so "several MIG instances visible to
one process" is judged on the machine itself, not only from a paste. ``call(function, *args)`` is nvml.py's guarded
NVML call; it raises ``unavailable`` (with ``not_found`` for an empty MIG slot) when NVML cannot answer."""

from __future__ import annotations

from typing import Any, Callable


def mig_instances(call: Callable[..., Any], unavailable: type[Exception], handle: Any, enabled: bool | None) -> tuple[str, ...] | None:
    """() when MIG is off, None when unknown, else the UUIDs of the instances created on this GPU."""
    if enabled is not True:
        return () if enabled is False else None
    found = []
    try:
        for slot in range(int(call("nvmlDeviceGetMaxMigDeviceCount", handle))):
            try:
                mig = call("nvmlDeviceGetMigDeviceHandleByIndex", handle, slot)
            except unavailable as exc:
                if getattr(exc, "not_found", False):
                    continue  # an empty slot: no instance created there
                raise
            uuid = call("nvmlDeviceGetUUID", mig)
            found.append(uuid.decode() if isinstance(uuid, bytes) else str(uuid))
    except (unavailable, TypeError, ValueError):
        return None
    return tuple(found)
