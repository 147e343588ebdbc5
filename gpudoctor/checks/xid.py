"""The kernel log's word on the GPUs: Xid errors since boot (what each means and its remedy, from matrices/xid.toml)
and GPUs that fell off the bus. Judges Facts.kernel_log, which a probe (dmesg / journalctl) or a pasted log fills;
an unread log (None) is unknown and says nothing."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity

if TYPE_CHECKING:
    from ..model import XidEvent

XID_DOCS = "https://docs.nvidia.com/deploy/xid-errors/index.html"
_ACTION_ORDER = ("none", "restart-app", "reset-gpu", "reboot", "service")
_SEVERITY = {"none": Severity.INFO, "restart-app": Severity.WARNING, "reset-gpu": Severity.ERROR,
             "reboot": Severity.ERROR, "service": Severity.ERROR}
_CAUSED_BY = re.compile(r"caused by previous Xid (\d{1,4})\b")  # \b: "Xid 12345" names no Xid, not Xid 1234
_UNKNOWN_XID_ACTION = "restart-app"  # an Xid the table does not know: a warning that points at NVIDIA's catalog


def gpu_xid_errors(facts: Facts, matrix: object) -> Iterator[Finding]:
    events = facts.kernel_log.xid_events if facts.kernel_log else None
    if not events:
        return
    table = getattr(matrix, "xid", None)
    groups: dict[tuple[int, str | None], list[XidEvent]] = {}
    for event in (*events, *_named_causes(events)):
        groups.setdefault((event.xid, event.pci_bus_id), []).append(event)
    evidence: list[str] = []
    actions: list[tuple[str, int | None]] = []
    for (xid, bus), seen in groups.items():
        row = table.row(xid) if table else None
        action = row.action if row else _UNKNOWN_XID_ACTION
        index = _gpu_index(facts, bus)
        actions.append((action, index))
        times = f"{len(seen)} times" if len(seen) > 1 else "once"
        where = f"GPU {index} ({bus})" if index is not None else (bus or "an unknown GPU")
        meaning = row.meaning if row else "not in gpudoctor's Xid table: see NVIDIA's Xid catalog"
        likely = "" if row is None or row.action_confirmed else " (likely)"
        remedy = f"; remedy{likely}: {_describe(action)}" if row else ""
        evidence.append(f"Xid {xid} on {where}, {times}: {meaning}{remedy}")
        if seen[-1].text:
            evidence.append(f"  log: {seen[-1].text}")
        if row and row.note:
            evidence.append(f"  {row.note}")
    worst = max((a for a, _ in actions), key=_ACTION_ORDER.index)
    source = facts.kernel_log.source if facts.kernel_log and facts.kernel_log.source else "the kernel log"
    numbers = ", ".join(str(x) for x in dict.fromkeys(x for x, _ in groups))
    yield Finding(
        "gpu-xid-errors", _SEVERITY[worst], Section.GPU,
        f"The NVIDIA driver logged Xid {numbers} since boot ({source}): {_describe(worst)}",
        tuple(evidence),
        Fix(f"Remedy: {_describe(worst)}", _commands(worst, [i for a, i in actions if a == worst]),
            getattr(table, "catalog_url", None) or XID_DOCS),
    )


def gpu_fallen_off_bus(facts: Facts, matrix: object) -> Iterator[Finding]:
    lost = [g for g in facts.gpus or () if g.health and g.health.lost]
    log = facts.kernel_log
    logged = list(log.fallen_off_bus or ()) if log else []
    logged += [e.pci_bus_id or "an unknown GPU" for e in (log.xid_events or () if log else ()) if e.xid == 79]
    logged = [bus for n, bus in enumerate(logged) if not any(_same_gpu(bus, earlier) for earlier in logged[:n])]
    if not lost and not logged:
        return
    evidence = [f"GPU {g.index}: NVML says the GPU is lost (NVML_ERROR_GPU_IS_LOST)" for g in lost]
    evidence += [f"kernel log: GPU {bus} has fallen off the bus" for bus in logged]
    yield Finding(
        "gpu-fallen-off-bus", Severity.ERROR, Section.GPU,
        "A GPU fell off the bus: it stopped answering on PCIe, and only a reboot brings it back",
        tuple(evidence),
        Fix(
            "Reboot (a GPU reset cannot reach it). If it happens again, check the power supply and its cables, "
            "the slot or riser, and temperatures under load; then have the GPU serviced",
            ("sudo reboot", "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER   # after the reboot, under load"),
            XID_DOCS,
        ),
    )


def _named_causes(events: tuple[XidEvent, ...]) -> list[XidEvent]:
    """Xid 45 ("preemptive cleanup") names the Xid that caused it: "Ch 00000001 caused by previous Xid 149". NVIDIA's
    catalog says to follow that earlier Xid, so where a cut log lacks it, it is judged as if it had been logged."""
    logged = {(e.xid, e.pci_bus_id) for e in events}
    from ..model import XidEvent  # created where the log has Xid events

    out: list[XidEvent] = []
    for event in events:
        m = _CAUSED_BY.search(event.text or "") if event.xid == 45 else None
        if m and (int(m.group(1)), event.pci_bus_id) not in logged:
            logged.add((int(m.group(1)), event.pci_bus_id))
            out.append(XidEvent(int(m.group(1)), event.pci_bus_id, f"named by Xid 45: {event.text}"))
    return out


def _gpu_index(facts: Facts, bus: str | None) -> int | None:
    return next((g.index for g in facts.gpus or () if _same_gpu(bus, g.pci_bus_id)), None)


def _describe(action: str) -> str:
    return {
        "none": "nothing to do (informational)",
        "restart-app": "restart the application (the GPU itself is fine)",
        "reset-gpu": "reset the GPU (or reboot)",
        "reboot": "reboot the machine",
        "service": "service the hardware",
    }[action]


def _commands(action: str, indexes: list[int | None]) -> tuple[str, ...]:
    if action == "reset-gpu":
        known = sorted({i for i in indexes if i is not None})
        resets = [f"sudo nvidia-smi -r -i {i}" for i in known] or ["sudo nvidia-smi -r -i N   # N: the GPU's index"]
        return ("nvidia-smi   # stop the processes that use the GPU first", *resets, "sudo reboot   # where a reset is refused")
    if action == "reboot":
        return ("sudo reboot",)
    if action == "service":
        return ("nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT,ECC   # the memory's record, for the support case",)
    return ()


CHECKS = (gpu_fallen_off_bus, gpu_xid_errors)


def _same_gpu(bus: str | None, other: str | None) -> bool:
    from ..xid_text import same_gpu  # its parsers and their classes load only where the kernel log names a GPU

    return same_gpu(bus, other)
