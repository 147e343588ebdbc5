"""The domain, shared by every layer: the facts a probe saw (facts.py; GPU health and kernel log in node_health.py)
and the findings a check made of them (report.py). Importers use ``gpudoctor.model``; the split keeps each module
to one job."""

from .facts import (
    SNAPSHOT_SCHEMA,
    AmdGpu,
    Apple,
    Contradiction,
    CudaToolkit,
    Driver,
    Facts,
    Frameworks,
    Gpu,
    Host,
    Jetson,
    Notebook,
    GpuProcess,
    JaxBuild,
    Libraries,
    Library,
    Pcie,
    PciDevice,
    ProbeError,
    Rocm,
    Symptom,
    TensorflowBuild,
    TorchBuild,
)
from .node_health import GpuHealth, KernelLog, XidEvent
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
    "exit_code", "gpu_implied_by_driver", "Apple", "Jetson", "Notebook",
]
