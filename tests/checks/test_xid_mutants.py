"""Xid errors and GPUs off the bus, finding by finding (issue 11: mutation score of checks/xid.py).

test_node_health.py runs the rules on real kernel logs; this file pins the whole finding a user reads: the Xid
numbers in the title, one evidence line per Xid and GPU with its count, last log line and note, the strongest remedy
with the reset commands of the GPUs that need it, the Xid that an Xid 45 names, and silence on an unread log."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import xid as x
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.xid import XidRow, XidTable
from gpudoctor.model import Facts, Finding, Fix, Gpu, GpuHealth, KernelLog, Section, Severity, XidEvent

MATRIX = load_matrix()
DOCS = "https://docs.nvidia.com/deploy/xid-errors/index.html"
GPU0, GPU1 = Gpu(index=0, pci_bus_id="00000000:2B:00.0"), Gpu(index=1, pci_bus_id="00000000:3B:00.0")
RESTART = "restart the application (the GPU itself is fine)"
RESET = "reset the GPU (or reboot)"
XID13 = ("Graphics engine exception: a kernel faulted (out-of-range address, illegal instruction); usually the application, "
         "rarely the driver or hardware")
XID43 = ("GPU stopped processing: an application hit a GPU exception and its channel was reset; other applications are not "
         "affected; remedy: nothing to do (informational)")
XID43_NOTE = "  the application that hit the exception was already stopped; look at the Xid logged before it (NVIDIA's catalog: IGNORE)"
XID48 = "Double-bit (uncorrectable) ECC error in GPU memory: applications using the GPU were stopped"
XID48_NOTE = ("  NVIDIA's catalog: WORKFLOW_XID_48, reset the GPU (solo), drain and reset when Xid 63/64 come with it; recurring "
              "errors mean the memory needs service")
RESET_FIRST, RESET_REFUSED = "nvidia-smi   # stop the processes that use the GPU first", "sudo reboot   # where a reset is refused"


def logged(*events: XidEvent, source: str | None = "dmesg", gpus=(GPU0, GPU1)) -> Facts:
    return Facts(gpus=gpus, kernel_log=KernelLog(source, events, ()))


def xid_finding(facts: Facts, matrix=MATRIX) -> Finding:
    (finding,) = x.gpu_xid_errors(facts, matrix)
    return finding


def test_several_xids_on_several_gpus_pinned():
    facts = logged(XidEvent(13, "0000:2b:00", "Graphics SM Warp Exception"), XidEvent(13, "0000:2b:00", "the last one"),
                   XidEvent(48, "0000:3b:00", "DBE"), XidEvent(43, None, None))
    assert xid_finding(facts) == Finding(
        "gpu-xid-errors", Severity.ERROR, Section.GPU, f"The NVIDIA driver logged Xid 13, 48, 43 since boot (dmesg): {RESET}",
        (f"Xid 13 on GPU 0 (0000:2b:00), 2 times: {XID13}; remedy: {RESTART}", "  log: the last one",
         f"Xid 48 on GPU 1 (0000:3b:00), once: {XID48}; remedy: {RESET}", "  log: DBE", XID48_NOTE,
         f"Xid 43 on an unknown GPU, once: {XID43}", XID43_NOTE),  # no log text: no log line
        Fix(f"Remedy: {RESET}", (RESET_FIRST, "sudo nvidia-smi -r -i 1", RESET_REFUSED), DOCS))


def test_an_informational_xid_alone_is_a_note():
    assert xid_finding(logged(XidEvent(43, "0000:4b:00", "Ch 00000010"), source=None)) == Finding(
        "gpu-xid-errors", Severity.INFO, Section.GPU,
        "The NVIDIA driver logged Xid 43 since boot (the kernel log): nothing to do (informational)",
        (f"Xid 43 on 0000:4b:00, once: {XID43}", "  log: Ch 00000010", XID43_NOTE),
        Fix("Remedy: nothing to do (informational)", (), DOCS))
    assert xid_finding(logged(XidEvent(43), source="")).title.endswith("since boot (the kernel log): nothing to do (informational)")


@pytest.mark.parametrize("events, severity, remedy", [
    ((XidEvent(43), XidEvent(13)), Severity.WARNING, RESTART),
    ((XidEvent(13), XidEvent(43)), Severity.WARNING, RESTART),
    ((XidEvent(48), XidEvent(13)), Severity.ERROR, RESET),
    ((XidEvent(79), XidEvent(48)), Severity.ERROR, "reboot the machine"),
    ((XidEvent(48), XidEvent(79), XidEvent(43)), Severity.ERROR, "reboot the machine"),
])  # fmt: skip
def test_the_strongest_remedy_wins(events, severity, remedy):
    finding = xid_finding(logged(*events))
    assert (finding.severity, finding.fix.summary) == (severity, f"Remedy: {remedy}")
    assert finding.title.endswith(f": {remedy}")


def test_a_reset_names_each_gpu_that_needs_it_once_in_order():
    facts = logged(XidEvent(48, "0000:3b:00"), XidEvent(63, "0000:2b:00"), XidEvent(64, "0000:3b:00"), XidEvent(62, "0000:5b:00"),
                   XidEvent(13, "0000:2b:00"))
    assert xid_finding(facts).fix.commands == (RESET_FIRST, "sudo nvidia-smi -r -i 0", "sudo nvidia-smi -r -i 1", RESET_REFUSED)


def test_a_reset_of_a_gpu_not_in_the_gpu_list():
    assert xid_finding(logged(XidEvent(48, "0000:5b:00"), gpus=None)).fix.commands == (
        RESET_FIRST, "sudo nvidia-smi -r -i N   # N: the GPU's index", RESET_REFUSED)


def test_an_xid_the_table_does_not_know():
    expected = Finding("gpu-xid-errors", Severity.WARNING, Section.GPU,
                       f"The NVIDIA driver logged Xid 3 since boot (dmesg): {RESTART}",
                       ("Xid 3 on GPU 0 (0000:2b:00), once: not in gpudoctor's Xid table: see NVIDIA's Xid catalog", "  log: C 00000005"),
                       Fix(f"Remedy: {RESTART}", (), DOCS))
    assert xid_finding(logged(XidEvent(3, "0000:2b:00", "C 00000005"))) == expected
    assert xid_finding(logged(XidEvent(3, "0000:2b:00", "C 00000005")), dataclasses.replace(MATRIX, xid=None)) == expected
    assert xid_finding(logged(XidEvent(3, "0000:2b:00", "C 00000005")), None) == expected
    # without a table even a well-known Xid is only a warning pointing at the catalog
    assert xid_finding(logged(XidEvent(79, "0000:2b:00")), None).severity is Severity.WARNING


def test_an_unconfirmed_remedy_is_said_as_likely():
    assert xid_finding(logged(XidEvent(61, "0000:2b:00"))).evidence == (
        f"Xid 61 on GPU 0 (0000:2b:00), once: Internal micro-controller (PMU) breakpoint or warning; remedy (likely): {RESET}",)


SERVICE = XidTable((XidRow(200, "TEST_HARDWARE", "A hardware fault", "service", True, None, "2026-11-24"),),
                   "https://example.invalid/xid-catalog", (), "2026-11-24")


def test_a_hardware_remedy_with_the_tables_catalog():
    assert xid_finding(logged(XidEvent(200, "0000:2b:00", "fault")), dataclasses.replace(MATRIX, xid=SERVICE)) == Finding(
        "gpu-xid-errors", Severity.ERROR, Section.GPU, "The NVIDIA driver logged Xid 200 since boot (dmesg): service the hardware",
        ("Xid 200 on GPU 0 (0000:2b:00), once: A hardware fault; remedy: service the hardware", "  log: fault"),
        Fix("Remedy: service the hardware", ("nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT,ECC   # the memory's record, for the support case",),
            "https://example.invalid/xid-catalog"))
    no_catalog = dataclasses.replace(SERVICE, catalog_url="")
    assert xid_finding(logged(XidEvent(200)), dataclasses.replace(MATRIX, xid=no_catalog)).fix.url == DOCS


def test_one_xid_on_two_gpus_is_named_once_in_the_title():
    finding = xid_finding(logged(XidEvent(13, "0000:2b:00"), XidEvent(13, "0000:3b:00")))
    assert finding.title == f"The NVIDIA driver logged Xid 13 since boot (dmesg): {RESTART}"
    assert [e.split(",")[0] for e in finding.evidence] == ["Xid 13 on GPU 0 (0000:2b:00)", "Xid 13 on GPU 1 (0000:3b:00)"]


NAMES_149 = "Ch 00000001 caused by previous Xid 149"


def test_the_xid_an_xid_45_names_is_judged_as_if_logged():
    finding = xid_finding(logged(XidEvent(45, "0000:2b:00", NAMES_149), XidEvent(45, "0000:2b:00", "Ch 00000002 caused by previous Xid 149")))
    assert finding.title == f"The NVIDIA driver logged Xid 45, 149 since boot (dmesg): {RESTART}"
    assert finding.evidence[2:] == ("Xid 149 on GPU 0 (0000:2b:00), once: not in gpudoctor's Xid table: see NVIDIA's Xid catalog",
                                    f"  log: named by Xid 45: {NAMES_149}")
    assert finding.evidence[0].endswith("; remedy (likely): nothing to do (informational)")  # 45's row is unconfirmed


def test_a_named_xid_already_logged_on_that_gpu_is_not_counted_twice():
    finding = xid_finding(logged(XidEvent(48, "0000:2b:00", "DBE"), XidEvent(45, "0000:2b:00", "Ch 00000001 caused by previous Xid 48")))
    assert [e for e in finding.evidence if e.startswith("Xid")] == [
        f"Xid 48 on GPU 0 (0000:2b:00), once: {XID48}; remedy: {RESET}",
        "Xid 45 on GPU 0 (0000:2b:00), once: Preemptive cleanup after earlier errors: the driver ended channels, typically following "
        "another Xid (look at the ones before it); remedy (likely): nothing to do (informational)"]
    other_gpu = xid_finding(logged(XidEvent(48, "0000:3b:00"), XidEvent(45, "0000:2b:00", "Ch 00000001 caused by previous Xid 48")))
    assert other_gpu.title == f"The NVIDIA driver logged Xid 48, 45 since boot (dmesg): {RESET}"
    assert other_gpu.fix.commands == (RESET_FIRST, "sudo nvidia-smi -r -i 0", "sudo nvidia-smi -r -i 1", RESET_REFUSED)


@pytest.mark.parametrize("event", [
    XidEvent(45, "0000:2b:00", "Ch 00000001"), XidEvent(45, "0000:2b:00", None),
    XidEvent(43, "0000:2b:00", NAMES_149),  # only Xid 45 names a cause
    XidEvent(45, "0000:2b:00", "Ch 00000001 caused by previous Xid 12345"),  # no Xid has five digits: not Xid 1234
])  # fmt: skip
def test_nothing_named(event):
    finding = xid_finding(logged(event))
    assert finding.title.startswith(f"The NVIDIA driver logged Xid {event.xid} since boot (dmesg): ")
    assert [e.split(",")[0] for e in finding.evidence if e.startswith("Xid")] == [f"Xid {event.xid} on GPU 0 (0000:2b:00)"]


@pytest.mark.parametrize("facts", [Facts(), Facts(gpus=(GPU0,)), Facts(kernel_log=KernelLog("dmesg")), logged()])
def test_no_xid_no_finding(facts):
    assert list(x.gpu_xid_errors(facts, MATRIX)) == []


OFF_BUS_FIX = Fix("Reboot (a GPU reset cannot reach it). If it happens again, check the power supply and its cables, the slot or "
                  "riser, and temperatures under load; then have the GPU serviced",
                  ("sudo reboot", "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER   # after the reboot, under load"), DOCS)


def test_fallen_off_the_bus_pinned():
    facts = Facts(gpus=(dataclasses.replace(GPU0, health=GpuHealth(lost=True)), dataclasses.replace(GPU1, health=GpuHealth(lost=False))),
                  kernel_log=KernelLog("dmesg", (XidEvent(79, "0000:4b:00"), XidEvent(79, None), XidEvent(13, "0000:5b:00")),
                                       ("0000:4b:00.0", "0000:2b:00.0")))
    assert list(x.gpu_fallen_off_bus(facts, MATRIX)) == [Finding(
        "gpu-fallen-off-bus", Severity.ERROR, Section.GPU,
        "A GPU fell off the bus: it stopped answering on PCIe, and only a reboot brings it back",
        ("GPU 0: NVML says the GPU is lost (NVML_ERROR_GPU_IS_LOST)", "kernel log: GPU 0000:4b:00.0 has fallen off the bus",
         "kernel log: GPU 0000:2b:00.0 has fallen off the bus", "kernel log: GPU an unknown GPU has fallen off the bus"),
        OFF_BUS_FIX)]


def test_each_gpu_off_the_bus_is_said_once():
    log = KernelLog("dmesg", (XidEvent(79, "0000:3b:00"), XidEvent(79, "0000:3B:00")), ("0000:3b:00.0", "0000:4b:00.0", "0000:4b:00.0"))
    (finding,) = x.gpu_fallen_off_bus(Facts(kernel_log=log), MATRIX)
    assert finding.evidence == ("kernel log: GPU 0000:3b:00.0 has fallen off the bus", "kernel log: GPU 0000:4b:00.0 has fallen off the bus")
    (finding,) = x.gpu_fallen_off_bus(Facts(kernel_log=KernelLog("dmesg", (XidEvent(79, "0000:3b:00"),), None)), MATRIX)
    assert finding.evidence == ("kernel log: GPU 0000:3b:00 has fallen off the bus",)


@pytest.mark.parametrize("facts", [
    Facts(), Facts(gpus=(GPU0,), kernel_log=KernelLog("dmesg", (), ())),
    Facts(gpus=(dataclasses.replace(GPU0, health=GpuHealth(lost=False)), dataclasses.replace(GPU1, health=GpuHealth()))),
    Facts(kernel_log=KernelLog("dmesg", (XidEvent(13, "0000:3b:00"), XidEvent(48)), None)),
])  # fmt: skip
def test_no_gpu_off_the_bus(facts):
    assert list(x.gpu_fallen_off_bus(facts, MATRIX)) == []


def test_both_rules_are_registered():
    assert x.CHECKS == (x.gpu_fallen_off_bus, x.gpu_xid_errors)
