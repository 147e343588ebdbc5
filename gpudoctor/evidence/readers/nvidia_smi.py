"""``nvidia-smi`` (the default table), every layout from the 3xx drivers to the >= 610 banner that says
``KMD Version`` / ``CUDA UMD Version`` instead of ``Driver Version`` / ``CUDA Version``, and nvidia-smi's own failure
lines ("Failed to initialize NVML: ...", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA
driver", "No devices were found")."""

from __future__ import annotations

import re
from typing import Iterator

from ...digits import is_ascii_int
from ..document import Document
from ..observation import Observation
from ._common import known

NAME = "nvidia-smi"

_BANNER = re.compile(r"NVIDIA-SMI\s+(\S+)\s+(?:Driver Version|KMD Version):\s*(\S+)(?:\s+(?:CUDA Version|CUDA UMD Version):\s*(\S+))?")
_GPU_ROW = re.compile(r"^\|\s*(\d+)\s+(.+?)\s+(On|Off|WDDM|TCC|MCDM)\s*\|\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s+(\S+)\s*\|\s*(.*?)\s*\|")
_MEMORY = re.compile(r"(\d+)\s*MiB\s*/\s*(\d+)\s*MiB")
_MIG_CELL = re.compile(r"^\|.*\|.*\|\s*(Enabled|Disabled|N/A)\s*\|\s*$")
_NO_DRIVER = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"
_NVML_FAIL = re.compile(r"Failed to initialize NVML:\s*(.+?)\s*$")
_NO_DEVICES = re.compile(r"^\s*No devices were found\s*$")


def read(document: Document) -> Iterator[Observation]:
    lines = document.lines
    seen_table = False
    # every branch below needs one of these in its line (the no-driver line holds "NVIDIA-SMI")
    for number in document.lines_with("NVIDIA-SMI", "|", "Failed to initialize NVML", "No devices were found"):
        line = lines[number - 1]
        m = _BANNER.search(line)
        if m:
            seen_table = True
            yield Observation("driver.version", m.group(2), number, NAME)
            if m.group(3) and known(m.group(3)):
                yield Observation("driver.cuda_version", m.group(3), number, NAME)
            if m.group(1) != m.group(2) and re.fullmatch(r"[\d.]+", m.group(1)):
                yield Observation("symptoms[]", {"kind": "smi-version-differs", "text": line.strip("| ").strip(),
                                                 "subject": f"{m.group(1)} vs {m.group(2)}"}, number, NAME)
            continue
        m = _GPU_ROW.match(line)
        if m and seen_table:
            yield from _gpu(lines, number, m)
            continue
        m = _NVML_FAIL.search(line)
        if m:
            yield Observation("driver.nvml_error", m.group(1), number, NAME)
            continue
        if _NO_DRIVER in line:
            yield Observation("driver.nvml_error", _NO_DRIVER, number, NAME)
            continue
        if _NO_DEVICES.match(line):
            yield Observation("symptoms[]", {"kind": "smi-no-devices", "text": line.strip()}, number, NAME)


def _gpu(lines: tuple[str, ...], number: int, m: re.Match[str]) -> Iterator[Observation]:
    index = int(m.group(1))
    name = m.group(2).strip()
    key = f"gpus[{index}]"
    yield Observation(f"{key}.index", index, number, NAME)
    if not name.endswith("..."):  # the table cuts long names; a cut name is not a model name
        yield Observation(f"{key}.name", name, number, NAME)
    else:
        yield Observation(f"{key}.name", name, number, NAME, "nvidia-smi's table cuts long names")
    yield Observation(f"{key}.pci_bus_id", m.group(4), number, NAME)
    ecc = m.group(6).strip()
    if is_ascii_int(ecc):
        yield Observation(f"{key}.ecc_uncorrected_errors", int(ecc), number, NAME)
    # The second and third rows of the same GPU: memory, then (drivers >= 450) the MIG mode cell.
    for offset in (1, 2):
        if number - 1 + offset >= len(lines):
            break
        row = lines[number - 1 + offset]
        mem = _MEMORY.search(row)
        if mem and offset == 1:
            yield Observation(f"{key}.memory_used_mib", int(mem.group(1)), number + offset, NAME)
            yield Observation(f"{key}.memory_total_mib", int(mem.group(2)), number + offset, NAME)
        mig = _MIG_CELL.match(row)
        if mig and offset == 2 and mig.group(1) != "N/A":
            yield Observation(f"{key}.mig_enabled", mig.group(1) == "Enabled", number + offset, NAME)
