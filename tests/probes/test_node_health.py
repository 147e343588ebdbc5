"""Node health: the NVML health probe against the fake NVML (real pynvml names, constants and exception classes),
and the kernel-log probe against recorded dmesg / journalctl answers."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pynvml
import pytest

from gpudoctor.errors import ProbeFailed
from gpudoctor.model import GpuHealth, KernelLog, XidEvent
from gpudoctor.probes import nvml_health
from gpudoctor.probes.kernel_log import probe_kernel_log
from gpudoctor.probes.nvml import probe_nvml
from gpudoctor.runner import CommandResult
from tests.fakes import FakeRunner
from tests.probes.fake_pynvml import FakeGpu, FakeNvml, healthy_rtx_4090

DATA = Path(__file__).resolve().parent.parent / "data" / "kernel_log"
HEALTH_CALLS = sorted(set(re.findall(r'"(nvml[A-Z]\w+)"', Path(nvml_health.__file__).read_text())))


@pytest.mark.parametrize("name", HEALTH_CALLS)
def test_every_health_call_exists_in_nvidia_ml_py_and_the_fake_has_its_signature(name):
    real = getattr(pynvml, name)
    fake = getattr(FakeNvml, name)
    assert len(inspect.signature(real).parameters) == len(inspect.signature(fake).parameters) - 1


def test_the_fallback_constants_are_pynvmls_values():
    for name, value in nvml_health._DEFAULTS.items():
        assert getattr(pynvml, name) == value
    for name, bit in nvml_health._REASON_BITS:
        assert getattr(pynvml, f"nvmlClocksEventReason{name}") == bit


def test_a_geforce_without_any_health_reading_has_unknown_health():
    # healthy_rtx_4090 answers NotSupported to every health call: unknown, never "all fine" and never "all off"
    _, (gpu,) = probe_nvml(healthy_rtx_4090())
    assert gpu.health is None


def _hgx_h100(**changes) -> FakeGpu:
    values = dict(name="NVIDIA H100 80GB HBM3", compute_capability=(9, 0), utilization=0, persistence=1, display_active=0,
                  clock_reasons=0x1, power_limit_mw=700000, power_default_mw=700000, remapped_rows=(0, 0, 0, 0),
                  nvlink_states=[1] * 18, fabric_state=pynvml.NVML_GPU_FABRIC_STATE_COMPLETED)
    values.update(changes)
    return FakeGpu(**values)


def test_a_healthy_hgx_h100_reads_every_field():
    _, (gpu,) = probe_nvml(FakeNvml([_hgx_h100()]))
    assert gpu.health == GpuHealth(
        lost=None, persistence_mode=True, display_active=False, clocks_event_reasons=("GpuIdle",),
        utilization_gpu_percent=0, power_limit_mw=700000, power_default_limit_mw=700000,
        remapped_rows_corrected=0, remapped_rows_uncorrected=0, remap_pending=False, remap_failure=False,
        nvlink_active=tuple(range(18)), nvlink_inactive=(), fabric_state="completed",
    )


def test_a_sick_h100_reads_as_it_is():
    sick = _hgx_h100(clock_reasons=0x1 | 0x8 | 0x80 | 0x800, remapped_rows=(2, 1, 1, 0), power_limit_mw=400000,
                     nvlink_states=[1] * 16 + [0, 0], fabric_state=pynvml.NVML_GPU_FABRIC_STATE_NOT_STARTED)
    _, (gpu,) = probe_nvml(FakeNvml([sick]))
    h = gpu.health
    assert h.clocks_event_reasons == ("GpuIdle", "HwSlowdown", "HwPowerBrakeSlowdown", "0x800")  # unnamed bit kept
    assert (h.remapped_rows_corrected, h.remapped_rows_uncorrected, h.remap_pending, h.remap_failure) == (2, 1, True, False)
    assert (h.nvlink_active, h.nvlink_inactive) == (tuple(range(16)), (16, 17))
    assert h.fabric_state == "not-started" and h.power_limit_mw == 400000


def test_a_v100_reports_retired_pages_and_the_older_throttle_call():
    v100 = FakeGpu(name="Tesla V100-SXM2-16GB", utilization=3, clock_reasons=0x4, retired_pending=1,
                   retired_pages={pynvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR: [0x1f000, 0x2a000]})
    nvml = FakeNvml([v100], missing=("nvmlDeviceGetCurrentClocksEventReasons",))  # a binding before the rename
    _, (gpu,) = probe_nvml(nvml)
    assert gpu.health.clocks_event_reasons == ("SwPowerCap",)
    assert (gpu.health.retired_pages_dbe, gpu.health.retired_pages_sbe, gpu.health.retired_pages_pending) == (2, 0, True)


def test_a_gpu_that_fell_off_the_bus_after_its_handle_is_lost_not_unknown():
    gone = FakeGpu(fail={name: pynvml.NVMLError_GpuIsLost() for name in ("nvmlDeviceGetUtilizationRates", "nvmlDeviceGetName")})
    _, (gpu,) = probe_nvml(FakeNvml([gone]))
    assert gpu.health == GpuHealth(lost=True) and gpu.name is None


def test_no_permission_is_unknown_not_absent():
    denied = _hgx_h100(fail={"nvmlDeviceGetRemappedRows": pynvml.NVMLError_NoPermission(),
                             "nvmlDeviceGetNvLinkState": pynvml.NVMLError_NoPermission()})
    _, (gpu,) = probe_nvml(FakeNvml([denied]))
    assert gpu.health.remap_pending is None and gpu.health.nvlink_inactive is None
    assert gpu.health.persistence_mode is True  # the rest is still read


# -- the kernel log ----------------------------------------------------------------------------------------------


def test_dmesg_is_read_and_parsed():
    text = (DATA / "xid79-rtx5080-journal.txt").read_text()
    log = probe_kernel_log(FakeRunner({("dmesg",): text}))
    assert log == KernelLog("dmesg", (XidEvent(79, "0000:2b:00", "GPU has fallen off the bus."),), ("0000:2b:00.0",))


def test_a_clean_dmesg_is_probed_and_absent():
    log = probe_kernel_log(FakeRunner({("dmesg",): "[    0.000000] Linux version 6.8.0-45-generic\n"}))
    assert log.xid_events == () and log.fallen_off_bus == ()


def test_dmesg_refused_falls_back_to_the_journal():
    refused = CommandResult(("dmesg",), 1, "", "dmesg: read kernel buffer failed: Operation not permitted\n")
    runner = FakeRunner({("dmesg",): refused, "journalctl": (DATA / "xid63-row-remap.txt").read_text()})
    log = probe_kernel_log(runner)
    assert log.source == "journalctl -k" and [e.xid for e in log.xid_events] == [63]
    assert runner.calls == [("dmesg",), ("journalctl", "-k", "-b", "--no-pager")]


def test_both_refused_is_unknown_with_the_reason():
    refused = CommandResult(("dmesg",), 1, "", "dmesg: read kernel buffer failed: Operation not permitted\n")
    # journalctl for a user outside adm / systemd-journal: exit 0, the user's own journal, and this hint
    hint = CommandResult(("journalctl",), 0, "-- No entries --\n", "Hint: You are currently not seeing messages from other users "
                         "and the system.\n      Users in groups 'adm', 'systemd-journal' can see all messages.\n")
    with pytest.raises(ProbeFailed, match="Operation not permitted"):
        probe_kernel_log(FakeRunner({("dmesg",): refused, "journalctl": hint}))
