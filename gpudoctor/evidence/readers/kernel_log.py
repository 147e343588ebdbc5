"""The NVIDIA driver's kernel-log lines in a paste (dmesg, journalctl -k, /var/log/kern.log, syslog): Xid events
and "GPU has fallen off the bus". The parser is the one the kernel-log probe uses (gpudoctor/xid_text.py), so a
maintainer pasting a user's dmesg gets the same findings as the user running gpudoctor on the machine.

A paste without Xid lines says nothing about Xids (the log may be cut): kernel_log stays unknown."""

from __future__ import annotations

from typing import Iterator

from ...xid_text import parse_kernel_log
from ..document import Document
from ..observation import Observation

NAME = "kernel-log"


def read(document: Document) -> Iterator[Observation]:
    if "NVRM" not in document.text:
        return  # no driver line at all: keep a large paste cheap
    # only the driver's lines are looked at, found by the document's search of the whole text
    lines, holding = (document.lines, document.lines_with) if document.numbered_as_splitlines else (None, None)
    xids, off_bus = parse_kernel_log(document.text, lines, holding)
    if not xids and not off_bus:
        return
    first = min([x.line for x in xids] + [o.line for o in off_bus])
    yield Observation("kernel_log.source", "pasted", first, "kernel log")
    for x in xids:
        yield Observation("kernel_log.xid_events[]", {"xid": x.xid, "pci_bus_id": x.pci_bus_id, "text": x.text}, x.line, "kernel log")
    for o in off_bus:
        yield Observation("kernel_log.fallen_off_bus[]", o.pci_bus_id, o.line, "kernel log")
