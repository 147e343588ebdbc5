"""The domain, shared by every layer: the facts a probe saw (facts.py; GPUs and PCI devices in gpu_facts.py, GPU
health and kernel log in node_health.py, a Mac, a notebook and a Jetson in platform_facts.py, what only a paste
gives in paste_facts.py) and the findings a check made of them (report.py). Importers use ``gpudoctor.model``; the
split keeps each module to one job."""

from .facts import (
    SNAPSHOT_SCHEMA,
    CudaToolkit,
    Driver,
    Facts,
    Frameworks,
    Host,
    JaxBuild,
    Libraries,
    Library,
    ProbeError,
    Rocm,
    TensorflowBuild,
    TorchBuild,
)
from .inferred import gpu_implied_by_driver
from .report import (
    REPORT_SCHEMA,
    CheckCrash,
    ExitCode,
    Finding,
    Fix,
    Report,
    Section,
    SectionResult,
    Severity,
    Status,
    exit_code,
)

__all__ = [
    "REPORT_SCHEMA", "SNAPSHOT_SCHEMA", "AmdGpu", "CheckCrash", "Contradiction", "CudaToolkit", "Driver", "ExitCode", "Facts",
    "Finding", "Fix", "Frameworks", "Gpu", "GpuHealth", "GpuProcess", "KernelLog", "XidEvent", "Host", "JaxBuild", "Libraries", "Library", "Pcie", "PciDevice", "ProbeError", "Rocm",
    "Report", "Section", "SectionResult", "Severity", "Status", "Symptom", "TensorflowBuild", "TorchBuild",
    "exit_code", "gpu_implied_by_driver", "type_hints", "Apple", "Jetson", "Notebook",
]

# Facts a machine may not have, in modules of their own: imported (their classes created) on first use, so that a
# check of a machine without GPUs, a Mac, a Jetson or a paste never pays for them.
_LAZY = {
    "AmdGpu": "gpu_facts", "Gpu": "gpu_facts", "GpuProcess": "gpu_facts", "Pcie": "gpu_facts", "PciDevice": "gpu_facts",
    "Apple": "platform_facts", "Jetson": "platform_facts", "Notebook": "platform_facts",
    "Contradiction": "paste_facts", "Symptom": "paste_facts",
    "GpuHealth": "node_health", "KernelLog": "node_health", "XidEvent": "node_health",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def type_hints(cls: type) -> dict:
    """``typing.get_type_hints(cls)`` for any class, where its annotations may name the classes above (Facts.gpus:
    ``tuple[Gpu, ...] | None``), which facts.py does not import."""
    import typing

    return typing.get_type_hints(cls, localns={name: __getattr__(name) for name in _LAZY})
