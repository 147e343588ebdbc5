"""Node-health readings of one GPU through NVML: lost on the bus, persistence mode, clock event (throttle) reasons,
power limit against its default, retired pages or remapped rows, NVLink link states, the NVSwitch fabric state.

Every call is optional: NotSupported (GeForce boards have no row remapper, no NVLink, no fabric), an older driver or
binding without the function, or no permission leave the field None (unknown), never a value. Observes only: which
of these matter, and when, is judged in gpudoctor/checks/health.py."""

from __future__ import annotations

from typing import Any

from ..model import GpuHealth
from .nvml_calls import _Unavailable, _call, _field, _int

# pynvml's values, used when a binding (or a fake) lacks the named constant.
_DEFAULTS = {
    "NVML_FEATURE_ENABLED": 1,
    "NVML_ERROR_GPU_IS_LOST": 15,
    "NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS": 0,
    "NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR": 1,
    "NVML_NVLINK_MAX_LINKS": 36,
}
# nvmlClocksEventReason* bits (nvml.h; pynvml keeps the older nvmlClocksThrottleReason* names with the same
# values). Read from the binding where it has them, so a new bit gets its real name.
_REASON_BITS = (
    ("GpuIdle", 0x1), ("ApplicationsClocksSetting", 0x2), ("SwPowerCap", 0x4), ("HwSlowdown", 0x8),
    ("SyncBoost", 0x10), ("SwThermalSlowdown", 0x20), ("HwThermalSlowdown", 0x40), ("HwPowerBrakeSlowdown", 0x80),
    ("DisplayClockSetting", 0x100),
)
_FABRIC_STATES = {1: "not-started", 2: "in-progress", 3: "completed"}  # 0 = NOT_SUPPORTED: no fabric, unknown


def _const(nvml: Any, name: str) -> Any:
    return getattr(nvml, name, _DEFAULTS[name])


def is_gpu_lost(nvml: Any, exc: BaseException) -> bool:
    return getattr(exc, "value", None) == _const(nvml, "NVML_ERROR_GPU_IS_LOST")


def probe_health(nvml: Any, handle: Any) -> GpuHealth | None:
    """The health readings of one GPU; None when NVML answered none of them (a GPU or driver without any)."""
    try:
        utilization = _int(getattr(_call(nvml, "nvmlDeviceGetUtilizationRates", handle), "gpu", None))
    except _Unavailable as exc:
        if exc.lost:  # the GPU stopped answering: nothing else it says can be read
            return GpuHealth(lost=True)
        utilization = None
    enabled = _const(nvml, "NVML_FEATURE_ENABLED")
    flag = lambda value: value == enabled if _int(value) is not None else None  # noqa: E731
    corrected, uncorrected, pending, failure = _remapped_rows(nvml, handle)
    active, inactive = _nvlinks(nvml, handle)
    limit = _field(nvml, _int, "nvmlDeviceGetPowerManagementLimit", handle)
    health = GpuHealth(
        persistence_mode=_field(nvml, flag, "nvmlDeviceGetPersistenceMode", handle),
        display_active=_field(nvml, flag, "nvmlDeviceGetDisplayActive", handle),
        clocks_event_reasons=_clock_reasons(nvml, handle),
        utilization_gpu_percent=utilization,
        power_limit_mw=limit,
        power_default_limit_mw=_field(nvml, _int, "nvmlDeviceGetPowerManagementDefaultLimit", handle) if limit is not None else None,
        retired_pages_sbe=_retired(nvml, handle, "NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS"),
        retired_pages_dbe=_retired(nvml, handle, "NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR"),
        retired_pages_pending=_field(nvml, flag, "nvmlDeviceGetRetiredPagesPendingStatus", handle),
        remapped_rows_corrected=corrected,
        remapped_rows_uncorrected=uncorrected,
        remap_pending=pending,
        remap_failure=failure,
        nvlink_active=active,
        nvlink_inactive=inactive,
        fabric_state=_fabric_state(nvml, handle),
    )
    return None if health == GpuHealth() else health


def _clock_reasons(nvml: Any, handle: Any) -> tuple[str, ...] | None:
    mask = _field(nvml, _int, "nvmlDeviceGetCurrentClocksEventReasons", handle)
    if mask is None:  # drivers before 535 have only the older name
        mask = _field(nvml, _int, "nvmlDeviceGetCurrentClocksThrottleReasons", handle)
    if mask is None:
        return None
    bits = [(name, getattr(nvml, f"nvmlClocksEventReason{name}", value)) for name, value in _REASON_BITS]
    named = tuple(name for name, bit in bits if mask & bit)
    rest = mask & ~sum(bit for _, bit in bits)
    return named + ((f"0x{rest:x}",) if rest else ())  # a bit this table does not name is kept, as hex


def _retired(nvml: Any, handle: Any, cause: str) -> int | None:
    pages = _field(nvml, lambda found: len(found) if isinstance(found, list) else None, "nvmlDeviceGetRetiredPages", handle, _const(nvml, cause))
    return pages


def _remapped_rows(nvml: Any, handle: Any) -> tuple[Any, Any, Any, Any]:
    try:
        corrected, uncorrected, pending, failure = _call(nvml, "nvmlDeviceGetRemappedRows", handle)
    except (_Unavailable, TypeError, ValueError):
        return None, None, None, None
    as_bool = lambda value: bool(value) if _int(value) is not None else None  # noqa: E731
    return _int(corrected), _int(uncorrected), as_bool(pending), as_bool(failure)


def _nvlinks(nvml: Any, handle: Any) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
    """Link numbers that are active and that exist but are not. A GPU without NVLink answers NotSupported (or
    InvalidArgument) for link 0: unknown, not "all down"."""
    active: list[int] = []
    inactive: list[int] = []
    for link in range(_const(nvml, "NVML_NVLINK_MAX_LINKS")):
        try:
            state = _call(nvml, "nvmlDeviceGetNvLinkState", handle, link)
        except _Unavailable:
            break  # links are numbered from 0 without gaps: the first that does not answer ends the list
        (active if state == _const(nvml, "NVML_FEATURE_ENABLED") else inactive).append(link)
    if not active and not inactive:
        return None, None
    return tuple(active), tuple(inactive)


def _fabric_state(nvml: Any, handle: Any) -> str | None:
    info_type = getattr(nvml, "c_nvmlGpuFabricInfo_t", None)
    if info_type is None:
        return None
    import ctypes

    info = info_type()
    try:
        _call(nvml, "nvmlDeviceGetGpuFabricInfo", handle, ctypes.byref(info))
    except _Unavailable:
        return None
    return _FABRIC_STATES.get(_int(getattr(info, "state", None)) or 0)
