"""Pure parsers of the NVIDIA driver's kernel-log lines (dmesg, journalctl -k, /var/log/kern.log), shared by the
kernel-log probe and the pasted-log reader, so a probed machine and a pasted log give the same facts.

The driver (NVRM) prints, for every Xid event, one line of this shape (open-gpu-kernel-modules, nvErrorLog_va):

    NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
    NVRM: Xid (0000:01:00): 3, C 00000005 SC 00000007 ...          (older drivers: no "PCI:")

and, when a GPU stops answering on the bus, also "NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus." or
"NVRM: GPU at 0000:01:00.0 has fallen off the bus."."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence


# Patterns are strings that re compiles on first use (and caches), not at import: a `check` run without kernel-log
# text never needs them, and compiling every module's patterns at import was a measurable part of the start-up time.
_XID = r"NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-7])?)\): (\d{1,4})\b,?\s*(.*)$"


# Newer drivers split it over lines: "NVRM: The NVIDIA GPU 0000:b3:00.0" / "NVRM: (PCI ID: 10de:26b5) installed in this
# system has" / "NVRM: fallen off the bus and is not responding to commands." (NVIDIA/NVSentinel#155)
_THE_GPU = r"NVRM: The NVIDIA GPU ([0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-7])?)\s*$"


_OFF_BUS = r"NVRM: GPU (?:at )?(?:PCI:)?([0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-7])?):?\s+(?:GPU )?has fallen off the bus"


# "pid=1896, name=python, " / "pid='<unknown>', name=<unknown>, ": who was running, not what happened
_WHO = r"^(?:pid=[^,]*,\s*)?(?:name=[^,]*,\s*)?"


MAX_TEXT = 300


@dataclass(frozen=True)
class XidLine:
    """An Xid line found in kernel log text, with its line number and GPU bus id."""
    line: int  # 1-based line number in the text
    xid: int
    pci_bus_id: str
    text: str  # the message after the number, without the pid/name prefix


@dataclass(frozen=True)
class OffBusLine:
    """A 'GPU has fallen off the bus' line found in kernel log text."""
    line: int
    pci_bus_id: str


def parse_kernel_log(text: str, lines: Sequence[str] | None = None,
                     holding: Callable[[str], Iterable[int]] | None = None) -> tuple[list[XidLine], list[OffBusLine]]:
    """Every Xid line and every "fallen off the bus" line, in the order of the text. ``lines`` and ``holding``: the
    text's lines as ``splitlines`` numbers them, and the numbers of those holding a word, in order, where the caller
    has them (a pasted document: only the driver's lines are looked at in Python)."""
    xids: list[XidLine] = []
    off_bus: list[OffBusLine] = []
    announced: tuple[int, str] | None = None  # "NVRM: The NVIDIA GPU <bus>": the first line of a multi-line message
    if lines is None or holding is None:
        lines = text.splitlines()
        numbers: Iterable[int] = (number for number, line in enumerate(lines, 1) if "NVRM" in line)  # a kernel log is mostly other drivers
    else:
        numbers = holding("NVRM")
    for number in numbers:
        line = lines[number - 1]
        m = re.search(_THE_GPU, line)
        if m:
            announced = (number, m.group(1).lower())
            continue
        if announced and number - announced[0] <= 3 and "fallen off the bus" in line:
            off_bus.append(OffBusLine(announced[0], announced[1]))
            announced = None
            continue
        m = re.search(_XID, line)
        if m:
            message = re.sub(_WHO, "", m.group(3).strip())
            xids.append(XidLine(number, int(m.group(2)), m.group(1).lower(), message[:MAX_TEXT]))
            continue
        m = re.search(_OFF_BUS, line)
        if m:
            off_bus.append(OffBusLine(number, m.group(1).lower()))
    return xids, off_bus


def same_gpu(kernel_bus_id: str | None, nvml_bus_id: str | None) -> bool:
    """The driver prints "0000:3b:00" (domain:bus:device) while NVML says "00000000:3B:00.0": one GPU."""
    if not kernel_bus_id or not nvml_bus_id:
        return False
    a, b = _bus_device(kernel_bus_id), _bus_device(nvml_bus_id)
    return a is not None and a == b


def _bus_device(bus_id: str) -> tuple[int, int, int] | None:
    parts = bus_id.lower().split(".")[0].split(":")
    if len(parts) != 3:
        return None
    try:
        return int(parts[0], 16), int(parts[1], 16), int(parts[2], 16)
    except ValueError:
        return None
