"""Node-health rules: each fires on the reading it is about, says the remedy, and stays silent on a healthy or
unknown reading (no false alarms). Kernel-log facts come from real logs (tests/data/kernel_log/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.checks import health, xid
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Gpu, GpuHealth, GpuProcess, Host, KernelLog, Severity, XidEvent
from gpudoctor.probes.kernel_log import kernel_log_from

DATA = Path(__file__).resolve().parent.parent / "data" / "kernel_log"
H100 = dict(name="NVIDIA H100 80GB HBM3", compute_capability="9.0", pci_bus_id="00000000:2B:00.0")
HEALTHY = GpuHealth(persistence_mode=True, display_active=False, clocks_event_reasons=("GpuIdle",), utilization_gpu_percent=0,
                    power_limit_mw=700000, power_default_limit_mw=700000, remapped_rows_corrected=0,
                    remapped_rows_uncorrected=0, remap_pending=False, remap_failure=False,
                    nvlink_active=tuple(range(18)), nvlink_inactive=(), fabric_state="completed")
ALL_RULES = health.CHECKS + xid.CHECKS


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def facts(health_reading: GpuHealth | None = HEALTHY, log: KernelLog | None = KernelLog("dmesg", (), ()), processes=()) -> Facts:
    return Facts(host=Host(os="linux"), gpus=(Gpu(index=0, processes=processes, health=health_reading, **H100),), kernel_log=log)


def ids(f: Facts, matrix) -> list[str]:
    return [finding.id for rule in ALL_RULES for finding in rule(f, matrix)]


def test_a_healthy_node_raises_nothing(matrix):
    assert ids(facts(), matrix) == []


def test_unknown_everything_raises_nothing(matrix):
    assert ids(facts(GpuHealth(), None), matrix) == []
    assert ids(facts(None, None), matrix) == []
    assert ids(Facts(), matrix) == []


def test_xid79_from_a_real_journal_is_fallen_off_the_bus_and_a_reboot(matrix):
    log = kernel_log_from((DATA / "xid79-rtx5080-journal.txt").read_text(), "dmesg")
    report = run_checks(facts(log=log), matrix)
    found = {f.id: f for f in report.findings}
    assert found["gpu-fallen-off-bus"].severity == Severity.ERROR
    assert found["gpu-fallen-off-bus"].evidence == ("kernel log: GPU 0000:2b:00.0 has fallen off the bus",)  # one GPU, once
    xid_finding = found["gpu-xid-errors"]
    assert xid_finding.severity == Severity.ERROR and "reboot" in xid_finding.title
    assert xid_finding.evidence[0].startswith("Xid 79 on GPU 0 (0000:2b:00), once: GPU has fallen off the bus")
    assert xid_finding.fix.commands == ("sudo reboot",)


def test_application_xids_are_a_warning_with_counts(matrix):
    log = kernel_log_from((DATA / "xid69-31-journal.txt").read_text(), "journalctl -k")
    (finding,) = xid.gpu_xid_errors(facts(log=log), matrix)
    assert finding.severity == Severity.WARNING
    assert finding.title.startswith("The NVIDIA driver logged Xid 69, 31 since boot (journalctl -k): restart the application")
    assert "GPU 0" not in finding.evidence[0]  # bus 08 is not the GPU on bus 2b
    assert finding.evidence[0].startswith("Xid 69 on 0000:08:00, 4 times: Graphics engine class error")
    assert "remedy (likely): restart the application" in finding.evidence[0]


def test_a_row_remap_xid_asks_for_a_reset_of_that_gpu(matrix):
    log = KernelLog("dmesg", (XidEvent(63, "0000:2b:00", "Row Remapper: New row marked for remapping, reset gpu to activate."),), ())
    (finding,) = xid.gpu_xid_errors(facts(log=log), matrix)
    assert finding.severity == Severity.ERROR
    assert "sudo nvidia-smi -r -i 0" in finding.fix.commands
    assert "remedy: reset the GPU" in finding.evidence[0]  # confirmed row: no "likely"


def test_an_xid_the_table_does_not_know_is_a_warning_pointing_at_the_catalog(matrix):
    (finding,) = xid.gpu_xid_errors(facts(log=KernelLog("dmesg", (XidEvent(3, "0000:01:00", "C 00000005"),), ())), matrix)
    assert finding.severity == Severity.WARNING and "not in gpudoctor's Xid table" in finding.evidence[0]
    assert finding.fix.url == "https://docs.nvidia.com/deploy/xid-errors/index.html"


def test_nvml_lost_gpu_is_fallen_off_the_bus(matrix):
    lost = Facts(gpus=(Gpu(index=1, health=GpuHealth(lost=True)),))
    (finding,) = xid.gpu_fallen_off_bus(lost, matrix)
    assert finding.evidence == ("GPU 1: NVML says the GPU is lost (NVML_ERROR_GPU_IS_LOST)",)
    assert ids(lost, matrix) == ["gpu-fallen-off-bus"]  # a lost GPU's other readings are not judged


@pytest.mark.parametrize("change, expected, severity", [
    (dict(remap_pending=True, remapped_rows_uncorrected=1), "gpu-memory-repair-pending", Severity.WARNING),
    (dict(retired_pages_pending=True, retired_pages_dbe=2), "gpu-memory-repair-pending", Severity.WARNING),
    (dict(remap_failure=True, remap_pending=True), "gpu-row-remap-failed", Severity.ERROR),
    (dict(persistence_mode=False), "persistence-mode-off", Severity.INFO),
    (dict(clocks_event_reasons=("GpuIdle", "HwSlowdown")), "gpu-clocks-throttled-at-idle", Severity.WARNING),
    (dict(clocks_event_reasons=("GpuIdle", "SwPowerCap")), "gpu-clocks-throttled-at-idle", Severity.WARNING),
    (dict(power_limit_mw=400000), "gpu-power-limit-below-default", Severity.WARNING),
    (dict(nvlink_active=tuple(range(16)), nvlink_inactive=(16, 17)), "nvlink-links-down", Severity.WARNING),
    (dict(fabric_state="not-started"), "fabric-manager-not-running", Severity.ERROR),
    (dict(fabric_state="in-progress"), "fabric-manager-not-running", Severity.WARNING),
])
def test_each_rule_fires_on_its_reading(matrix, change, expected, severity):
    import dataclasses

    findings = [f for rule in ALL_RULES for f in rule(facts(dataclasses.replace(HEALTHY, **change)), matrix)]
    assert [(f.id, f.severity) for f in findings] == [(expected, severity)]
    assert findings[0].fix and findings[0].fix.url


@pytest.mark.parametrize("change", [
    dict(persistence_mode=False, display_active=True),  # a workstation with a display: not a headless server
    dict(persistence_mode=False, display_active=None),  # unknown display: not judged
    dict(clocks_event_reasons=("GpuIdle", "HwSlowdown"), utilization_gpu_percent=97),  # busy: slowdown is not "at idle"
    dict(clocks_event_reasons=("GpuIdle", "HwSlowdown"), utilization_gpu_percent=None),
    dict(clocks_event_reasons=("GpuIdle", "ApplicationsClocksSetting", "DisplayClockSetting", "SyncBoost")),
    dict(power_limit_mw=699500),  # within a watt of the default
    dict(power_default_limit_mw=None, power_limit_mw=300000),
    dict(nvlink_active=(), nvlink_inactive=tuple(range(12))),  # a PCIe card without a bridge: every link inactive
    dict(fabric_state=None),
])
def test_no_false_alarm(matrix, change):
    import dataclasses

    assert ids(facts(dataclasses.replace(HEALTHY, **change)), matrix) == []


def test_a_busy_gpu_with_a_process_is_not_idle(matrix):
    throttled = GpuHealth(clocks_event_reasons=("HwSlowdown",), utilization_gpu_percent=0)
    assert ids(facts(throttled, processes=(GpuProcess(pid=1, name="python", used_mib=100),)), matrix) == []


def test_persistence_mode_is_not_judged_off_linux(matrix):
    f = Facts(host=Host(os="windows"), gpus=(Gpu(index=0, health=GpuHealth(persistence_mode=False, display_active=False)),))
    assert ids(f, matrix) == []


def test_a_pasted_old_driver_syslog_gives_the_same_findings_as_the_probe(matrix):
    text = (DATA / "off-bus-old-driver-syslog.txt").read_text()
    pasted = read_evidence(text, "paste")
    assert pasted.kernel_log.xid_events == (XidEvent(3, "0000:01:00", "C 00000005 SC 00000007 M 00001ffc Data ffffffff"),)
    assert pasted.provenance["kernel_log.xid_events[0]"] == "kernel log, line 3"
    probed = Facts(kernel_log=kernel_log_from(text, "dmesg"))
    assert [f.id for f in run_checks(pasted, matrix).findings if f.id.startswith("gpu-")] == \
        [f.id for f in run_checks(probed, matrix).findings if f.id.startswith("gpu-")] == ["gpu-fallen-off-bus", "gpu-xid-errors"]
