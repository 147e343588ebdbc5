"""The driver and every GPU, read in-process through NVML (nvidia-ml-py, imported as ``pynvml``).

NVML is the driver's own management library, so what it reports is what the driver sees. It is imported lazily:
``gpudoctor check`` must stay fast, and a machine without the binding is a fact to record, not a crash.

A failed initialisation is the whole answer (ProbeFailed with the text a user would search for). After that, any
single call may fail on a given GPU or driver (GeForce boards have no ECC, old drivers lack newer functions, a
container may deny permissions); such a field becomes None (unknown) and the GPU is still reported.
"""

from __future__ import annotations

import sys
import warnings
from typing import TYPE_CHECKING, Any, Iterable

from gpudoctor.errors import ProbeFailed
from gpudoctor.model import Driver
from gpudoctor.probes.nvml_mig import mig_instances
from gpudoctor.probes.nvml_calls import _LIB_RM_VERSION_MISMATCH, _Unavailable, _call, _const, _field, _int, _mib, _str

if TYPE_CHECKING:
    from gpudoctor.model import Gpu, GpuHealth, GpuProcess, Pcie

NOT_INSTALLED = "nvidia-ml-py (pynvml) is not installed"
LIBRARY_NOT_FOUND = "NVML Shared Library Not Found"  # pynvml's text for NVML_ERROR_LIBRARY_NOT_FOUND
# pynvml's own text for code 18 is "RM has detected an NVML/RM version mismatch."; nvidia-smi (and every forum
# thread and issue about the problem) says this instead.
VERSION_MISMATCH = "Driver/library version mismatch"


def probe_nvml(nvml: Any | None = None) -> tuple[Driver, tuple[Gpu, ...]]:
    """The driver (version, cuda_version) and every GPU. ``nvml`` is anything with pynvml's API (tests pass a fake);
    None imports the real pynvml. Raises ProbeFailed with NVML's error text when NVML cannot be initialised."""
    if nvml is None:
        nvml = _import_pynvml()
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as exc:
        raise ProbeFailed(nvml_error_text(exc)) from None
    try:
        return _driver(nvml), _gpus(nvml)
    finally:
        try:
            nvml.nvmlShutdown()
        except nvml.NVMLError:
            pass  # the facts are already read; a failed shutdown changes none of them


def _import_pynvml() -> Any:
    _require_loadable_library()
    try:
        with warnings.catch_warnings():
            # The deprecated `pynvml` shim distribution warns on import; the user did not ask for that message.
            warnings.simplefilter("ignore")
            import pynvml
    except ImportError:
        raise ProbeFailed(NOT_INSTALLED) from None
    return pynvml


def _require_loadable_library() -> None:
    """On Linux, fail the way pynvml's nvmlInit would when libnvidia-ml cannot be loaded, before importing pynvml.

    Importing the binding costs 10-20 ms (a third of `check`'s budget) and buys nothing on the many machines that
    have no NVIDIA driver: dlopen answers that in a fraction of a millisecond. pynvml loads the same soname, so the
    answer is the one nvmlInit would give. Other systems search several places; they go through pynvml itself."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL("libnvidia-ml.so.1")  # stays loaded; pynvml's own dlopen then finds it already mapped
    except OSError:
        raise ProbeFailed(LIBRARY_NOT_FOUND) from None


def nvml_error_text(exc: BaseException) -> str:
    """The one line a user would recognise: NVML's own text, except nvidia-smi's wording for a version mismatch."""
    value = getattr(exc, "value", None)
    if value == _LIB_RM_VERSION_MISMATCH:
        return VERSION_MISMATCH
    try:
        text = str(exc).strip()
    except Exception:  # noqa: BLE001 - pynvml's __str__ calls into the library, which may itself be broken
        text = ""
    if text:
        return text
    return f"NVML error {value}" if value is not None else type(exc).__name__


def _cuda_version(value: Any) -> str | None:
    # Encoded as 1000 * major + 10 * minor (12080 -> "12.8"), the same as cuDriverGetVersion.
    number = _int(value)
    if number is None or number <= 0:
        return None
    return f"{number // 1000}.{number % 1000 // 10}"


def _compute_capability(value: Any) -> str | None:
    try:
        major, minor = value
    except (TypeError, ValueError):
        return None
    return f"{major}.{minor}" if _int(major) is not None and _int(minor) is not None else None


# -- the facts ---------------------------------------------------------------------------------------------------


def _driver(nvml: Any) -> Driver:
    return Driver(
        version=_field(nvml, _str, "nvmlSystemGetDriverVersion"),
        cuda_version=_field(nvml, _cuda_version, "nvmlSystemGetCudaDriverVersion_v2")
        or _field(nvml, _cuda_version, "nvmlSystemGetCudaDriverVersion"),
    )


def _gpus(nvml: Any) -> tuple[Gpu, ...]:
    try:
        count = _call(nvml, "nvmlDeviceGetCount")
    except _Unavailable:
        raise ProbeFailed("NVML initialised but could not count the GPUs") from None
    return tuple(_gpu(nvml, index) for index in range(_int(count) or 0))


def _gpu(nvml: Any, index: int) -> Gpu:
    from gpudoctor.model import Gpu, GpuHealth  # the GPU classes, created where NVML counts a GPU

    try:
        handle = _call(nvml, "nvmlDeviceGetHandleByIndex", index)
    except _Unavailable as exc:
        # e.g. GPU is lost, or no permission for it: it exists, nothing more is known
        return Gpu(index=index, health=GpuHealth(lost=True) if exc.lost else None)
    memory = _field(nvml, lambda info: info, "nvmlDeviceGetMemoryInfo", handle)
    mig_enabled = _mig_enabled(nvml, handle)
    return Gpu(
        index=index,
        name=_field(nvml, _str, "nvmlDeviceGetName", handle),
        uuid=_field(nvml, _str, "nvmlDeviceGetUUID", handle),
        pci_bus_id=_field(nvml, lambda info: _str(getattr(info, "busId", None)), "nvmlDeviceGetPciInfo", handle),
        compute_capability=_field(nvml, _compute_capability, "nvmlDeviceGetCudaComputeCapability", handle),
        memory_total_mib=_mib(getattr(memory, "total", None)),
        memory_used_mib=_mib(getattr(memory, "used", None)),
        pcie=_pcie(nvml, handle),
        mig_enabled=mig_enabled,
        mig_instances=mig_instances(lambda fn, *args: _call(nvml, fn, *args), _Unavailable, handle, mig_enabled),
        ecc_uncorrected_errors=_field(
            nvml,
            _int,
            "nvmlDeviceGetTotalEccErrors",
            handle,
            _const(nvml, "NVML_MEMORY_ERROR_TYPE_UNCORRECTED"),
            _const(nvml, "NVML_VOLATILE_ECC"),
        ),
        processes=_processes(nvml, handle),
        health=probe_health(nvml, handle),
    )


def probe_health(nvml: Any, handle: Any) -> GpuHealth | None:
    from .nvml_health import probe_health as read_health  # its own module: nvml.py reads what every GPU has

    return read_health(nvml, handle)


def _pcie(nvml: Any, handle: Any) -> Pcie | None:
    from gpudoctor.model import Pcie

    pcie = Pcie(
        gen_current=_field(nvml, _int, "nvmlDeviceGetCurrPcieLinkGeneration", handle),
        gen_max=_field(nvml, _int, "nvmlDeviceGetMaxPcieLinkGeneration", handle),
        width_current=_field(nvml, _int, "nvmlDeviceGetCurrPcieLinkWidth", handle),
        width_max=_field(nvml, _int, "nvmlDeviceGetMaxPcieLinkWidth", handle),
    )
    return None if pcie == Pcie() else pcie  # no link facts at all (e.g. a virtual GPU): unknown


def _mig_enabled(nvml: Any, handle: Any) -> bool | None:
    try:
        current, _pending = _call(nvml, "nvmlDeviceGetMigMode", handle)
    except _Unavailable as exc:
        # A GPU without MIG says NotSupported: probed, and not enabled. Any other failure is unknown.
        return False if exc.not_supported else None
    except (TypeError, ValueError):
        return None
    return current == _const(nvml, "NVML_DEVICE_MIG_ENABLE")


def _processes(nvml: Any, handle: Any) -> tuple[GpuProcess, ...] | None:
    lists = [
        _field(nvml, list, "nvmlDeviceGetComputeRunningProcesses", handle),
        _field(nvml, list, "nvmlDeviceGetGraphicsRunningProcesses", handle),
    ]
    if all(found is None for found in lists):
        return None
    from gpudoctor.model import GpuProcess

    by_pid: dict[int, GpuProcess] = {}
    for info in (info for found in lists if found for info in found):
        pid = _int(getattr(info, "pid", None))
        if pid is None or pid in by_pid:
            continue  # a compute+graphics process is listed in both, with the same memory
        by_pid[pid] = GpuProcess(pid=pid, name=None, used_mib=_mib(getattr(info, "usedGpuMemory", None)))
    names = _process_names(by_pid)
    return tuple(GpuProcess(p.pid, names.get(pid), p.used_mib) for pid, p in by_pid.items())


def _process_names(pids: Iterable[int]) -> dict[int, str]:
    pids = list(pids)
    if not pids:
        return {}
    try:
        import psutil
    except ImportError:
        return {}
    names: dict[int, str] = {}
    for pid in pids:
        try:
            names[pid] = psutil.Process(pid).name()
        except (psutil.Error, OSError, ValueError):
            continue  # another PID namespace (a container) or another user's process: the name stays unknown
    return names
