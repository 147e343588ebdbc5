"""Node health through NVML, per GPU: memory rows waiting for a reset or out of spares, retired pages waiting,
persistence mode off on a headless server, clocks held down while the GPU is idle, a power limit below the
default, NVLink links down, and an NVSwitch fabric that Fabric Manager never brought up. Unknown readings (None:
not supported on this GPU, not read) never fire."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import gpu_label

if TYPE_CHECKING:
    from ..model import Gpu, GpuHealth

NVML_DOCS = "https://docs.nvidia.com/deploy/nvml-api/"
REMAP_DOCS = "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html"
FABRIC_DOCS = "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html"
PERSISTENCE_DOCS = "https://docs.nvidia.com/deploy/driver-persistence/index.html"
# nvmlClocksEventReason bits that slow an idle GPU for a reason other than it being idle (nvml.h): the software
# power cap, hardware slowdown (heat, power brake from the supply, power draw), software/hardware thermal slowdown.
IDLE_SLOWDOWNS = ("SwPowerCap", "HwSlowdown", "SwThermalSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown")
IDLE_UTILIZATION = 5  # percent: at or below it, with no process on the GPU, the GPU is idle
POWER_TOLERANCE_MW = 1000  # a limit within 1 W of the default is the default (boards round differently)


def _with_health(facts: Facts) -> list[tuple[Gpu, GpuHealth]]:
    return [(g, g.health) for g in facts.gpus or () if g.health is not None and not g.health.lost]


def _reset_commands(gpus: list[Gpu]) -> tuple[str, ...]:
    resets = [f"sudo nvidia-smi -r -i {g.index}" for g in gpus if g.index is not None]
    return ("nvidia-smi   # stop the processes that use these GPUs first", *resets, "sudo reboot   # where a reset is refused")


def gpu_row_remap_failed(facts: Facts, matrix: object) -> Iterator[Finding]:
    failed = [(g, h) for g, h in _with_health(facts) if h.remap_failure]
    if not failed:
        return
    yield Finding(
        "gpu-row-remap-failed", Severity.ERROR, Section.GPU,
        "A GPU's memory could not remap a failing row: it has no spare rows left and needs service",
        tuple(f"{gpu_label(g)}: row remapping failure; remapped rows: {h.remapped_rows_corrected} correctable, "
              f"{h.remapped_rows_uncorrected} uncorrectable" for g, h in failed),
        Fix("Take the GPU out of service and contact the vendor (RMA); record its state for the case",
            ("nvidia-smi -q -d ROW_REMAPPER",), REMAP_DOCS),
    )


def gpu_memory_repair_pending(facts: Facts, matrix: object) -> Iterator[Finding]:
    pending = [(g, h) for g, h in _with_health(facts) if (h.remap_pending or h.retired_pages_pending) and not h.remap_failure]
    if not pending:
        return
    evidence = []
    for g, h in pending:
        if h.remap_pending:
            evidence.append(f"{gpu_label(g)}: a row remap is pending ({h.remapped_rows_uncorrected} uncorrectable, "
                            f"{h.remapped_rows_corrected} correctable rows remapped so far)")
        if h.retired_pages_pending:
            evidence.append(f"{gpu_label(g)}: a page retirement is pending ({h.retired_pages_dbe} double-bit, "
                            f"{h.retired_pages_sbe} single-bit pages retired so far)")
    yield Finding(
        "gpu-memory-repair-pending", Severity.WARNING, Section.GPU,
        "GPU memory has a repair (row remap or page retirement) waiting for a GPU reset",
        tuple(evidence),
        Fix("Reset the GPU when it is idle (or reboot): the faulty memory stays in use until then",
            _reset_commands([g for g, _ in pending]), REMAP_DOCS),
    )


def persistence_mode_off(facts: Facts, matrix: object) -> Iterator[Finding]:
    if not facts.host or facts.host.os != "linux":
        return  # persistence mode is a Linux setting
    readings = _with_health(facts)
    headless = readings and all(h.display_active is False for _, h in readings)
    off = [g for g, h in readings if h.persistence_mode is False]
    if not headless or not off:
        return
    yield Finding(
        "persistence-mode-off", Severity.INFO, Section.GPU,
        "Persistence mode is off on a headless server: every CUDA start re-initialises the GPU (seconds)",
        tuple(f"{gpu_label(g)}: persistence mode off, no display active" for g in off),
        Fix("Run the persistence daemon (survives reboots), or turn persistence mode on",
            ("sudo systemctl enable --now nvidia-persistenced", "sudo nvidia-smi -pm 1   # until the next reboot"),
            PERSISTENCE_DOCS),
    )


def gpu_clocks_throttled_at_idle(facts: Facts, matrix: object) -> Iterator[Finding]:
    slowed = []
    for g, h in _with_health(facts):
        idle = h.utilization_gpu_percent is not None and h.utilization_gpu_percent <= IDLE_UTILIZATION and not g.processes
        reasons = [r for r in h.clocks_event_reasons or () if r in IDLE_SLOWDOWNS]
        if idle and reasons:
            slowed.append((g, h, reasons))
    if not slowed:
        return
    yield Finding(
        "gpu-clocks-throttled-at-idle", Severity.WARNING, Section.GPU,
        "A GPU's clocks are held down while it is idle: heat, the power supply or a power cap will slow training",
        tuple(f"{gpu_label(g)}: {h.utilization_gpu_percent}% busy, clock event reasons: {', '.join(reasons)}"
              for g, h, reasons in slowed),
        Fix("Check temperatures and fans (HwThermalSlowdown, SwThermalSlowdown), the power supply and its cables "
            "(HwPowerBrakeSlowdown, HwSlowdown), and the power limit (SwPowerCap)",
            ("nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER",), NVML_DOCS),
    )


def gpu_power_limit_below_default(facts: Facts, matrix: object) -> Iterator[Finding]:
    low = [(g, h) for g, h in _with_health(facts)
           if h.power_limit_mw is not None and h.power_default_limit_mw is not None
           and h.power_limit_mw < h.power_default_limit_mw - POWER_TOLERANCE_MW]
    if not low:
        return
    yield Finding(
        "gpu-power-limit-below-default", Severity.WARNING, Section.GPU,
        "A GPU's power limit is set below its default: it will run slower under load",
        tuple(f"{gpu_label(g)}: power limit {h.power_limit_mw / 1000:g} W, default {h.power_default_limit_mw / 1000:g} W"
              for g, h in low),
        Fix("Restore the default limit (if nobody lowered it on purpose, e.g. for a weak power supply)",
            tuple(f"sudo nvidia-smi -i {g.index} -pl {h.power_default_limit_mw // 1000}" for g, h in low), NVML_DOCS),
    )


def nvlink_links_down(facts: Facts, matrix: object) -> Iterator[Finding]:
    # Only a GPU with at least one active link: a card without a bridge has every link inactive, by design.
    down = [(g, h) for g, h in _with_health(facts) if h.nvlink_active and h.nvlink_inactive]
    if not down:
        return
    yield Finding(
        "nvlink-links-down", Severity.WARNING, Section.GPU,
        "Some NVLink links of a GPU are down while others are up: GPU-to-GPU traffic is slower or goes over PCIe",
        tuple(f"{gpu_label(g)}: links {', '.join(map(str, h.nvlink_inactive or ()))} inactive, "
              f"{len(h.nvlink_active or ())} active" for g, h in down),
        Fix("Reset the GPUs (or reboot); if links stay down, reseat the NVLink bridges or have the baseboard serviced "
            "(fewer bridges installed than the card has links for is expected)",
            ("nvidia-smi nvlink -s", *_reset_commands([g for g, _ in down])[1:]), NVML_DOCS),
    )


def fabric_manager_not_running(facts: Facts, matrix: object) -> Iterator[Finding]:
    waiting = [(g, h) for g, h in _with_health(facts) if h.fabric_state in ("not-started", "in-progress")]
    if not waiting:
        return
    not_started = any(h.fabric_state == "not-started" for _, h in waiting)
    yield Finding(
        "fabric-manager-not-running", Severity.ERROR if not_started else Severity.WARNING, Section.GPU,
        "The NVSwitch fabric is not up: CUDA cannot use these GPUs until NVIDIA Fabric Manager has trained it"
        if not_started else "The NVSwitch fabric is still being trained by Fabric Manager: CUDA waits for it",
        tuple(f"{gpu_label(g)}: fabric state {h.fabric_state}" for g, h in waiting),
        Fix("Install Fabric Manager of exactly the driver's version, and start it",
            ("systemctl status nvidia-fabricmanager", "sudo systemctl enable --now nvidia-fabricmanager"), FABRIC_DOCS),
    )


CHECKS = (gpu_row_remap_failed, gpu_memory_repair_pending, persistence_mode_off, gpu_clocks_throttled_at_idle,
          gpu_power_limit_below_default, nvlink_links_down, fabric_manager_not_running)
