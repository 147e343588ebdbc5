"""Node-health rules, finding by finding (issue 11: mutation score of checks/health.py): the whole finding a user
sees for each reading, each limit one below / at / above it, and the readings that must stay silent (unknown, a lost
GPU, a workstation with a display, a GPU at work)."""

from __future__ import annotations

import pytest

from gpudoctor.checks import health
from gpudoctor.model import Facts, Finding, Fix, Gpu, GpuHealth, GpuProcess, Host, Section, Severity

H100 = "NVIDIA H100 80GB HBM3"
REMAP_DOCS = "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html"
NVML_DOCS = "https://docs.nvidia.com/deploy/nvml-api/"
FABRIC_DOCS = "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html"
RESET_FIRST = "nvidia-smi   # stop the processes that use these GPUs first"
REBOOT = "sudo reboot   # where a reset is refused"


def gpu(index: int | None, processes=None, **reading) -> Gpu:
    return Gpu(index=index, name=H100, compute_capability="9.0", processes=processes, health=GpuHealth(**reading))


def linux(*gpus: Gpu, os: str | None = "linux") -> Facts:
    return Facts(host=Host(os=os), gpus=gpus)


def run(rule, facts: Facts) -> list[Finding]:
    return list(rule(facts, None))


# -- memory: row remapping and page retirement ----------------------------------------------------------------------


def test_row_remap_failure_pinned():
    facts = linux(gpu(0, remap_failure=True, remap_pending=True, remapped_rows_corrected=3, remapped_rows_uncorrected=7),
                  gpu(1, remap_failure=False, remapped_rows_corrected=0, remapped_rows_uncorrected=0))
    assert run(health.gpu_row_remap_failed, facts) == [Finding(
        "gpu-row-remap-failed", Severity.ERROR, Section.GPU,
        "A GPU's memory could not remap a failing row: it has no spare rows left and needs service",
        ("GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0: row remapping failure; remapped rows: 3 correctable, 7 uncorrectable",),
        Fix("Take the GPU out of service and contact the vendor (RMA); record its state for the case",
            ("nvidia-smi -q -d ROW_REMAPPER",), REMAP_DOCS),
    )]
    # the failed GPU is not also told to wait for a reset: no reset repairs it
    assert run(health.gpu_memory_repair_pending, facts) == []


@pytest.mark.parametrize("reading", [dict(remap_failure=None), dict(remap_failure=False), dict(remap_failure=True, lost=True)])
def test_row_remap_failure_silent(reading):
    assert run(health.gpu_row_remap_failed, linux(gpu(0, **reading))) == []


def test_memory_repair_pending_pinned_per_gpu_and_per_kind():
    facts = linux(gpu(0, remap_pending=True, remapped_rows_uncorrected=1, remapped_rows_corrected=4),
                  gpu(2, retired_pages_pending=True, retired_pages_dbe=2, retired_pages_sbe=5),
                  gpu(None, remap_pending=True, retired_pages_pending=True, remapped_rows_uncorrected=0,
                      remapped_rows_corrected=0, retired_pages_dbe=0, retired_pages_sbe=1),
                  gpu(3, remap_pending=False, retired_pages_pending=False))
    assert run(health.gpu_memory_repair_pending, facts) == [Finding(
        "gpu-memory-repair-pending", Severity.WARNING, Section.GPU,
        "GPU memory has a repair (row remap or page retirement) waiting for a GPU reset",
        ("GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0: a row remap is pending (1 uncorrectable, 4 correctable rows remapped so far)",
         "GPU 2: NVIDIA H100 80GB HBM3, compute capability 9.0: a page retirement is pending (2 double-bit, 5 single-bit pages retired so far)",
         "GPU ?: NVIDIA H100 80GB HBM3, compute capability 9.0: a row remap is pending (0 uncorrectable, 0 correctable rows remapped so far)",
         "GPU ?: NVIDIA H100 80GB HBM3, compute capability 9.0: a page retirement is pending (0 double-bit, 1 single-bit pages retired so far)"),
        Fix("Reset the GPU when it is idle (or reboot): the faulty memory stays in use until then",
            (RESET_FIRST, "sudo nvidia-smi -r -i 0", "sudo nvidia-smi -r -i 2", REBOOT), REMAP_DOCS),
    )]


@pytest.mark.parametrize("reading", [
    dict(), dict(remap_pending=False, retired_pages_pending=False), dict(remap_pending=True, lost=True),
    dict(retired_pages_pending=True, remap_failure=True),
])
def test_memory_repair_pending_silent(reading):
    assert run(health.gpu_memory_repair_pending, linux(gpu(0, **reading))) == []


# -- persistence mode -----------------------------------------------------------------------------------------------


def test_persistence_mode_off_pinned_names_only_the_gpus_that_have_it_off():
    facts = linux(gpu(0, persistence_mode=False, display_active=False), gpu(1, persistence_mode=True, display_active=False),
                  gpu(2, persistence_mode=None, display_active=False), gpu(3, persistence_mode=False, display_active=False))
    assert run(health.persistence_mode_off, facts) == [Finding(
        "persistence-mode-off", Severity.INFO, Section.GPU,
        "Persistence mode is off on a headless server: every CUDA start re-initialises the GPU (seconds)",
        ("GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0: persistence mode off, no display active",
         "GPU 3: NVIDIA H100 80GB HBM3, compute capability 9.0: persistence mode off, no display active"),
        Fix("Run the persistence daemon (survives reboots), or turn persistence mode on",
            ("sudo systemctl enable --now nvidia-persistenced", "sudo nvidia-smi -pm 1   # until the next reboot"),
            "https://docs.nvidia.com/deploy/driver-persistence/index.html"),
    )]


@pytest.mark.parametrize("facts", [
    linux(gpu(0, persistence_mode=False, display_active=False), gpu(1, persistence_mode=True, display_active=True)),  # a display
    linux(gpu(0, persistence_mode=False, display_active=False), os=None),  # the OS is unknown
    linux(gpu(0, persistence_mode=False, display_active=False), os="darwin"),
    Facts(gpus=(gpu(0, persistence_mode=False, display_active=False),)),  # no host facts
    linux(),  # no GPU readings: nothing is headless
    linux(gpu(0, persistence_mode=False, display_active=False, lost=True)),
])
def test_persistence_mode_silent(facts):
    assert run(health.persistence_mode_off, facts) == []


# -- clocks held down at idle ---------------------------------------------------------------------------------------

SLOWDOWN_FIX = Fix("Check temperatures and fans (HwThermalSlowdown, SwThermalSlowdown), the power supply and its cables "
                   "(HwPowerBrakeSlowdown, HwSlowdown), and the power limit (SwPowerCap)",
                   ("nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER",), NVML_DOCS)


def test_clocks_throttled_at_idle_pinned_lists_only_the_slowdown_reasons():
    facts = linux(gpu(0, utilization_gpu_percent=5, clocks_event_reasons=("GpuIdle", "HwSlowdown", "SyncBoost", "SwPowerCap"),
                      processes=()),
                  gpu(1, utilization_gpu_percent=0, clocks_event_reasons=("HwThermalSlowdown",)))
    assert run(health.gpu_clocks_throttled_at_idle, facts) == [Finding(
        "gpu-clocks-throttled-at-idle", Severity.WARNING, Section.GPU,
        "A GPU's clocks are held down while it is idle: heat, the power supply or a power cap will slow training",
        ("GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0: 5% busy, clock event reasons: HwSlowdown, SwPowerCap",
         "GPU 1: NVIDIA H100 80GB HBM3, compute capability 9.0: 0% busy, clock event reasons: HwThermalSlowdown"),
        SLOWDOWN_FIX,
    )]


@pytest.mark.parametrize("reason", ["SwPowerCap", "HwSlowdown", "SwThermalSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown"])
def test_each_slowdown_reason_counts_at_idle(reason):
    (finding,) = run(health.gpu_clocks_throttled_at_idle, linux(gpu(0, utilization_gpu_percent=0, clocks_event_reasons=(reason,))))
    assert finding.evidence == (f"GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0: 0% busy, clock event reasons: {reason}",)


@pytest.mark.parametrize("reading, processes", [
    (dict(utilization_gpu_percent=6, clocks_event_reasons=("HwSlowdown",)), None),  # one above the idle line: at work
    (dict(utilization_gpu_percent=None, clocks_event_reasons=("HwSlowdown",)), None),  # unknown load
    (dict(utilization_gpu_percent=0, clocks_event_reasons=("HwSlowdown",)), (GpuProcess(pid=7, name="python"),)),
    (dict(utilization_gpu_percent=0, clocks_event_reasons=None), None),
    (dict(utilization_gpu_percent=0, clocks_event_reasons=("GpuIdle", "SwThermalSlowdownX", "ApplicationsClocksSetting")), None),
    (dict(utilization_gpu_percent=0, clocks_event_reasons=("HwSlowdown",), lost=True), None),
])
def test_clocks_throttled_at_idle_silent(reading, processes):
    assert run(health.gpu_clocks_throttled_at_idle, linux(gpu(0, processes=processes, **reading))) == []


# -- power limit ----------------------------------------------------------------------------------------------------


def test_power_limit_below_default_pinned():
    facts = linux(gpu(0, power_limit_mw=299500, power_default_limit_mw=700500), gpu(1, power_limit_mw=700000, power_default_limit_mw=700000),
                  gpu(3, power_limit_mw=400000, power_default_limit_mw=450000))
    assert run(health.gpu_power_limit_below_default, facts) == [Finding(
        "gpu-power-limit-below-default", Severity.WARNING, Section.GPU,
        "A GPU's power limit is set below its default: it will run slower under load",
        ("GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0: power limit 299.5 W, default 700.5 W",
         "GPU 3: NVIDIA H100 80GB HBM3, compute capability 9.0: power limit 400 W, default 450 W"),
        Fix("Restore the default limit (if nobody lowered it on purpose, e.g. for a weak power supply)",
            ("sudo nvidia-smi -i 0 -pl 700", "sudo nvidia-smi -i 3 -pl 450"), NVML_DOCS),
    )]


@pytest.mark.parametrize("limit, fires", [(698999, True), (699000, False), (699001, False), (700000, False), (750000, False)])
def test_power_limit_tolerance_is_one_watt(limit, fires):
    found = run(health.gpu_power_limit_below_default, linux(gpu(0, power_limit_mw=limit, power_default_limit_mw=700000)))
    assert [f.id for f in found] == (["gpu-power-limit-below-default"] if fires else [])


@pytest.mark.parametrize("reading", [dict(power_limit_mw=None, power_default_limit_mw=700000),
                                     dict(power_limit_mw=300000, power_default_limit_mw=None),
                                     dict(power_limit_mw=300000, power_default_limit_mw=700000, lost=True)])
def test_power_limit_unknown_is_silent(reading):
    assert run(health.gpu_power_limit_below_default, linux(gpu(0, **reading))) == []


# -- NVLink and the NVSwitch fabric ---------------------------------------------------------------------------------


def test_nvlink_links_down_pinned():
    facts = linux(gpu(0, nvlink_active=tuple(range(16)), nvlink_inactive=(16, 17)), gpu(1, nvlink_active=(0, 1), nvlink_inactive=()),
                  gpu(None, nvlink_active=(0,), nvlink_inactive=(3,)))
    assert run(health.nvlink_links_down, facts) == [Finding(
        "nvlink-links-down", Severity.WARNING, Section.GPU,
        "Some NVLink links of a GPU are down while others are up: GPU-to-GPU traffic is slower or goes over PCIe",
        ("GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0: links 16, 17 inactive, 16 active",
         "GPU ?: NVIDIA H100 80GB HBM3, compute capability 9.0: links 3 inactive, 1 active"),
        Fix("Reset the GPUs (or reboot); if links stay down, reseat the NVLink bridges or have the baseboard serviced "
            "(fewer bridges installed than the card has links for is expected)",
            ("nvidia-smi nvlink -s", "sudo nvidia-smi -r -i 0", REBOOT), NVML_DOCS),
    )]


@pytest.mark.parametrize("reading", [dict(nvlink_active=None, nvlink_inactive=(0, 1)), dict(nvlink_active=(), nvlink_inactive=(0, 1)),
                                     dict(nvlink_active=(0, 1), nvlink_inactive=None), dict(nvlink_active=(0,), nvlink_inactive=(1,), lost=True)])
def test_nvlink_silent(reading):
    assert run(health.nvlink_links_down, linux(gpu(0, **reading))) == []


FABRIC_FIX = Fix("Install Fabric Manager of exactly the driver's version, and start it",
                 ("systemctl status nvidia-fabricmanager", "sudo systemctl enable --now nvidia-fabricmanager"), FABRIC_DOCS)


def test_fabric_not_started_on_one_gpu_is_an_error_for_all_waiting():
    facts = linux(gpu(0, fabric_state="in-progress"), gpu(1, fabric_state="not-started"), gpu(2, fabric_state="completed"))
    assert run(health.fabric_manager_not_running, facts) == [Finding(
        "fabric-manager-not-running", Severity.ERROR, Section.GPU,
        "The NVSwitch fabric is not up: CUDA cannot use these GPUs until NVIDIA Fabric Manager has trained it",
        ("GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0: fabric state in-progress",
         "GPU 1: NVIDIA H100 80GB HBM3, compute capability 9.0: fabric state not-started"),
        FABRIC_FIX,
    )]


def test_fabric_in_progress_is_a_warning():
    assert run(health.fabric_manager_not_running, linux(gpu(4, fabric_state="in-progress"), gpu(5, fabric_state="in-progress"))) == [Finding(
        "fabric-manager-not-running", Severity.WARNING, Section.GPU,
        "The NVSwitch fabric is still being trained by Fabric Manager: CUDA waits for it",
        ("GPU 4: NVIDIA H100 80GB HBM3, compute capability 9.0: fabric state in-progress",
         "GPU 5: NVIDIA H100 80GB HBM3, compute capability 9.0: fabric state in-progress"),
        FABRIC_FIX,
    )]


@pytest.mark.parametrize("state", [None, "completed", "NOT-STARTED", "not-started-x"])
def test_fabric_silent(state):
    assert run(health.fabric_manager_not_running, linux(gpu(0, fabric_state=state))) == []
    assert run(health.fabric_manager_not_running, linux(gpu(0, fabric_state="not-started", lost=True))) == []
