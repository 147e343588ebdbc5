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
