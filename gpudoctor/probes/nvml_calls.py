"""One NVML call at a time, for the probes that read NVML (nvml, nvml_health, nvml_state): a call that fails on this
GPU or driver raises _Unavailable (and ``_field`` turns it into None, unknown), and the conversions of what the
binding returns. Nothing here imports pynvml: the caller passes the module (or a fake with its API)."""

from __future__ import annotations

from typing import Any, Callable

_LIB_RM_VERSION_MISMATCH = 18  # NVML_ERROR_LIB_RM_VERSION_MISMATCH
_MIB = 1024 * 1024

# pynvml's values, used when a binding (or a fake) lacks the named constant.
_DEFAULTS = {
    "NVML_MEMORY_ERROR_TYPE_UNCORRECTED": 1,
    "NVML_VOLATILE_ECC": 0,
    "NVML_DEVICE_MIG_ENABLE": 1,
    "NVML_ERROR_NOT_SUPPORTED": 3,
    "NVML_ERROR_GPU_IS_LOST": 15,
    "NVML_ERROR_NOT_FOUND": 6,
}


# -- calls that may fail per field -------------------------------------------------------------------------------


class _Unavailable(Exception):
    """One NVML call could not answer; ``not_supported`` when NVML said the feature does not exist here."""

    def __init__(self, not_supported: bool, lost: bool = False, not_found: bool = False):
        super().__init__()
        self.not_supported = not_supported
        self.lost = lost  # NVML_ERROR_GPU_IS_LOST: the GPU stopped answering (fell off the bus)
        self.not_found = not_found  # NVML_ERROR_NOT_FOUND: e.g. an empty MIG slot


def _call(nvml: Any, function: str, *args: Any) -> Any:
    fn = getattr(nvml, function, None)
    if fn is None:
        raise _Unavailable(not_supported=False)  # an older binding without this function
    try:
        return fn(*args)
    except nvml.NVMLError as exc:
        value = getattr(exc, "value", None)
        raise _Unavailable(value == _const(nvml, "NVML_ERROR_NOT_SUPPORTED"), value == _const(nvml, "NVML_ERROR_GPU_IS_LOST"),
                           value == _const(nvml, "NVML_ERROR_NOT_FOUND")) from None
    except _library_mismatch(nvml):
        # pynvml turns FunctionNotFound from some unversioned calls into this non-NVMLError class.
        raise _Unavailable(not_supported=False) from None


def _library_mismatch(nvml: Any) -> type[BaseException] | tuple[()]:
    return getattr(nvml, "NVMLLibraryMismatchError", ())


def _field(nvml: Any, convert: Callable[[Any], Any], function: str, *args: Any) -> Any:
    try:
        return convert(_call(nvml, function, *args))
    except _Unavailable:
        return None


def _const(nvml: Any, name: str) -> Any:
    return getattr(nvml, name, _DEFAULTS[name])


# -- conversions -------------------------------------------------------------------------------------------------


def _str(value: Any) -> str | None:
    # nvidia-ml-py < 11.515.48 returns bytes from its string getters and struct char arrays (PciInfo.busId).
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        return None
    return value.strip("\x00 \n") or None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mib(value: Any) -> int | None:
    number = _int(value)
    return number // _MIB if number is not None else None
