"""What the operating system says about the GPU: ``lspci -k`` / ``lspci -v`` (the kernel driver bound to each
NVIDIA device), ``lsmod``, ``/proc/driver/nvidia/version`` and the kernel log's NVRM lines."""

from __future__ import annotations

import re
from typing import Iterator

from ..document import Document
from ..observation import Observation

NAME = "system output"

_LSPCI_DEVICE = re.compile(r"^((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(VGA compatible controller|3D controller|Display controller)"
                           r"(?: \[[0-9a-f]{4}\])?: NVIDIA Corporation\s*(.*)$")
_LSPCI_ANY_DEVICE = re.compile(r"^(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\s")
_DRIVER_IN_USE = re.compile(r"^\s+Kernel driver in use:\s*(\S+)")
_LSMOD = re.compile(r"^(nvidia|nouveau)\s+\d+\s+\d+")
_PROC_VERSION = re.compile(r"NVRM version: NVIDIA UNIX \S+ Kernel Module(?: for \S+)?\s+(\d+\.\d+(?:\.\d+)?)")
# `lshw -C display`: a "*-display" block per device; "vendor: NVIDIA Corporation", "bus info: pci@0000:03:00.0",
# "configuration: driver=nouveau latency=0", or "*-display UNCLAIMED" when no kernel driver is bound
_LSHW_VENDOR = re.compile(r"^\s+vendor: NVIDIA Corporation\s*$")
_LSHW_HEADER = re.compile(r"^\s*\*-display(?::\d+)?( UNCLAIMED)?\s*$")
_LSHW_BUS = re.compile(r"^\s+bus info: pci@((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])")
_LSHW_DRIVER = re.compile(r"^\s+configuration:.*\bdriver=(\S+)")
_NVRM_CONFLICT = re.compile(r"NVRM: The NVIDIA probe routine was not called for \d+ device")


def read(document: Document) -> Iterator[Observation]:
    lines = document.lines
    index = 0
    # every branch below needs one of these in its line
    for number in document.lines_with("NVIDIA Corporation", "nvidia", "nouveau", "NVRM"):
        line = lines[number - 1]
        m = _LSPCI_DEVICE.match(line)
        if m:
            bus = m.group(1) if m.group(1).count(":") == 2 else f"0000:{m.group(1)}"
            key = f"pci_devices[{index}]"
            yield Observation(f"{key}.bus_id", bus.lower(), number, NAME + " (lspci)")
            yield Observation(f"{key}.vendor_id", "10de", number, NAME + " (lspci)")
            for offset, detail in enumerate(lines[number:number + 80], start=number + 1):
                if _LSPCI_ANY_DEVICE.match(detail):
                    break
                bound = _DRIVER_IN_USE.match(detail)
                if bound:
                    yield Observation(f"{key}.driver", bound.group(1), offset, NAME + " (lspci)")
                    break
            index += 1
            continue
        if _LSHW_VENDOR.match(line):
            found = list(_lshw_device(lines, number, f"pci_devices[{index}]"))
            if found:
                yield from found
                index += 1
            continue
        m = _LSMOD.match(line)
        if m:
            yield Observation("driver.kernel_module", m.group(1), number, NAME + " (lsmod)")
            continue
        m = _PROC_VERSION.search(line)
        if m:
            yield Observation("driver.kernel_module", "nvidia", number, NAME + " (/proc/driver/nvidia/version)")
            yield Observation("driver.kernel_module_version", m.group(1), number, NAME + " (/proc/driver/nvidia/version)")
            yield Observation("driver.version", m.group(1), number, NAME + " (/proc/driver/nvidia/version)")
            continue
        if _NVRM_CONFLICT.search(line):
            yield Observation("symptoms[]", {"kind": "nvidia-probe-not-called", "text": line.strip()}, number, NAME + " (kernel log)")


def _lshw_device(lines: list[str], number: int, key: str) -> Iterator[Observation]:
    """The NVIDIA device of the lshw block around line ``number``, when the block says which driver is bound
    (``configuration: driver=...``) or that none is (``*-display UNCLAIMED``); nothing otherwise."""
    start = next((i for i in range(number - 1, max(number - 12, 0) - 1, -1) if _LSHW_HEADER.match(lines[i])), None)
    if start is None:
        return
    end = next((i for i in range(start + 1, min(start + 30, len(lines))) if lines[i].lstrip().startswith("*-")), min(start + 30, len(lines)))
    block = range(start, end)
    bus = next((m.group(1) for i in block if (m := _LSHW_BUS.match(lines[i]))), None)
    driver = next(((i, m.group(1)) for i in block if (m := _LSHW_DRIVER.match(lines[i]))), None)
    unclaimed = bool(_LSHW_HEADER.match(lines[start]).group(1))
    if driver is None and not unclaimed:
        return  # whether a driver is bound is not said
    source = NAME + " (lshw)"
    if bus:
        yield Observation(f"{key}.bus_id", bus.lower() if bus.count(":") == 2 else f"0000:{bus.lower()}", number, source)
    yield Observation(f"{key}.vendor_id", "10de", number, source)
    if driver:
        yield Observation(f"{key}.driver", driver[1], driver[0] + 1, source)
