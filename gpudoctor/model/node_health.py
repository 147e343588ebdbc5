"""Node-health facts: NVML's health readings of a GPU and the NVIDIA lines of the kernel log (split out of facts.py,
which re-exports them; the same snapshot keys, docs/facts-format.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GpuHealth:
    """Node-health readings of one GPU through NVML (added in 0.4). None = unknown (NotSupported on this GPU, an
    older driver, no permission); False / 0 / () = probed and absent."""

    lost: bool | None = None  # NVML answered NVML_ERROR_GPU_IS_LOST for this GPU (it fell off the bus)
    persistence_mode: bool | None = None  # Linux only
    display_active: bool | None = None  # a display is initialised on the GPU (False on a headless server)
    clocks_event_reasons: tuple[str, ...] | None = None  # NVML reason names now active: "GpuIdle", "HwSlowdown", ...
    utilization_gpu_percent: int | None = None  # at the moment of the probe
    power_limit_mw: int | None = None  # nvmlDeviceGetPowerManagementLimit
    power_default_limit_mw: int | None = None  # nvmlDeviceGetPowerManagementDefaultLimit
    retired_pages_sbe: int | None = None  # pages retired for multiple single-bit ECC errors (pre-Ampere)
    retired_pages_dbe: int | None = None  # pages retired for a double-bit ECC error (pre-Ampere)
    retired_pages_pending: bool | None = None  # a retirement waits for the next reset / reboot
    remapped_rows_corrected: int | None = None  # rows remapped for correctable errors (Ampere and newer)
    remapped_rows_uncorrected: int | None = None
    remap_pending: bool | None = None  # a remap waits for a GPU reset
    remap_failure: bool | None = None  # a remap failed: the GPU ran out of spare rows
    nvlink_active: tuple[int, ...] | None = None  # link numbers whose state is active; () = the GPU has links, none up
    nvlink_inactive: tuple[int, ...] | None = None  # link numbers that exist and are not active
    fabric_state: str | None = None  # NVSwitch fabric (Hopper+): "not-started" | "in-progress" | "completed"


@dataclass(frozen=True)
class XidEvent:
    """One NVIDIA Xid line of the kernel log: "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus."."""

    xid: int
    pci_bus_id: str | None = None  # as the driver printed it: "0000:3b:00"
    text: str | None = None  # the message after the Xid number, cut to 300 characters


@dataclass(frozen=True)
class KernelLog:
    """What the kernel log says about the NVIDIA GPUs since boot. ``None`` at Facts level: not read (no NVIDIA GPU,
    or dmesg and journalctl were both refused); () here: read, nothing of the kind."""

    source: str | None = None  # "dmesg" | "journalctl -k" | "pasted"
    xid_events: tuple[XidEvent, ...] | None = None
    fallen_off_bus: tuple[str, ...] | None = None  # bus ids from "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."
