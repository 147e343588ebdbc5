"""The GPUs and PCI devices a probe or a paste found: NVIDIA GPUs (NVML, nvidia-smi), their PCIe link and processes,
NVIDIA display devices on the PCI bus, AMD GPUs. Split out of facts.py (gpudoctor.model exports them; the same
snapshot keys, docs/facts-format.md) so that a run on a machine without them never creates their classes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .node_health import GpuHealth


@dataclass(frozen=True)
class Pcie:
    """A GPU's PCIe link: generation and width, now and at most."""
    gen_current: int | None = None
    gen_max: int | None = None
    width_current: int | None = None
    width_max: int | None = None


@dataclass(frozen=True)
class GpuProcess:
    """A process using a GPU and the memory it holds."""
    pid: int | None = None
    name: str | None = None
    used_mib: int | None = None


@dataclass(frozen=True)
class Gpu:
    """An NVIDIA GPU as NVML or nvidia-smi reports it."""
    index: int | None = None
    name: str | None = None
    uuid: str | None = None
    pci_bus_id: str | None = None
    compute_capability: str | None = None
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    pcie: Pcie | None = None
    mig_enabled: bool | None = None
    # the MIG devices of this GPU, by UUID ("MIG-..."; added in 0.5): () when MIG is off, None when unknown
    mig_instances: tuple[str, ...] | None = None
    ecc_uncorrected_errors: int | None = None
    processes: tuple[GpuProcess, ...] | None = None
    health: GpuHealth | None = None  # added in 0.4


@dataclass(frozen=True)
class PciDevice:
    """An NVIDIA display-class PCI device (from sysfs) and the kernel driver bound to it."""
    bus_id: str | None = None
    vendor_id: str | None = None
    device_id: str | None = None
    driver: str | None = None  # the kernel driver bound to it; None when none is bound
    device_class: str | None = None  # e.g. "0x030000" (VGA), "0x030200" (3D controller)


@dataclass(frozen=True)
class AmdGpu:
    """An AMD GPU as amdsmi, rocminfo, rocm-smi or the kernel's KFD topology (sysfs) reports it."""

    index: int | None = None
    name: str | None = None  # marketing name ("AMD Radeon RX 7900 XTX"); None when only the target is known
    gfx_target: str | None = None  # LLVM target without features: "gfx1100", "gfx90a"
    pci_bus_id: str | None = None
    memory_total_mib: int | None = None
