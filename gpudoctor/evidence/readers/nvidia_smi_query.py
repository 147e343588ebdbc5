"""``nvidia-smi -q`` (the text report) and ``nvidia-smi -q -x`` (XML, parsed by the probe's own parser)."""

from __future__ import annotations

import re
from typing import Iterator

from ...errors import ProbeFailed
from ..document import Document
from ..observation import Observation
from ._common import known

NAME = "nvidia-smi -q"

_KEY = re.compile(r"^(\s*)([A-Za-z][\w .()/-]*?)\s*:\s*(.*?)\s*$")
_GPU_HEADER = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")


def read(document: Document) -> Iterator[Observation]:
    text_start = next(iter(document.lines_with("==============NVSMI LOG==============")), None)
    xml_start = next(iter(document.lines_with("<nvidia_smi_log")), None)
    if xml_start is not None:
        yield from _xml(document, xml_start)
    if text_start is not None:
        yield from _text(document, text_start)


def _xml(document: Document, start: int) -> Iterator[Observation]:
    from ...smi_xml import parse_nvidia_smi_xml

    end = next((n for n in document.lines_with("</nvidia_smi_log>") if n >= start), None)
    if end is None:
        return  # a cut XML log: the text readers still see its banner-free lines; nothing reliable here
    text = "\n".join(document.lines[start - 1:end])
    try:
        driver, gpus = parse_nvidia_smi_xml(text)
    except ProbeFailed:
        return
    if driver.version:
        yield Observation("driver.version", driver.version, start, NAME + " -x")
    if driver.cuda_version:
        yield Observation("driver.cuda_version", driver.cuda_version, start, NAME + " -x")
    for position, gpu in enumerate(gpus):
        index = gpu.index if gpu.index is not None else position
        for field in ("name", "uuid", "pci_bus_id", "compute_capability", "memory_total_mib", "memory_used_mib",
                      "mig_enabled", "ecc_uncorrected_errors"):
            value = getattr(gpu, field)
            if value is not None:
                yield Observation(f"gpus[{index}].{field}", value, start, NAME + " -x")
        yield Observation(f"gpus[{index}].index", index, start, NAME + " -x")


def _text(document: Document, start: int) -> Iterator[Observation]:
    index = -1
    section: list[tuple[int, str]] = []  # (indent, heading) of the nested blocks we are in
    lines = document.lines
    for number in document.lines_with(":", "GPU "):  # a line without either is neither a GPU's header nor a key
        line = lines[number - 1]
        if number < start or not line.strip():
            continue
        header = _GPU_HEADER.match(line)
        if header:
            index += 1
            section = []
            yield Observation(f"gpus[{index}].index", index, number, NAME)
            yield Observation(f"gpus[{index}].pci_bus_id", header.group(1), number, NAME)
            continue
        m = _KEY.match(line)
        if not m:
            continue
        indent, key, value = len(m.group(1)), m.group(2).strip(), m.group(3)
        section = [(i, h) for i, h in section if i < indent]
        if value == "":
            section.append((indent, key))
            continue
        where = " > ".join(h for _, h in section)
        value = known(value)
        if value is None:
            continue
        if index < 0:
            if key in ("Driver Version", "KMD Version"):
                yield Observation("driver.version", value, number, NAME)
            elif key in ("CUDA Version", "CUDA UMD Version") and re.match(r"\d+\.\d+", value):
                yield Observation("driver.cuda_version", value.split()[0], number, NAME)
            continue
        gpu = f"gpus[{index}]"
        if key == "Product Name":
            yield Observation(f"{gpu}.name", value, number, NAME)
        elif key == "GPU UUID":
            yield Observation(f"{gpu}.uuid", value, number, NAME)
        elif where == "MIG Mode" and key == "Current":
            yield Observation(f"{gpu}.mig_enabled", value.lower() == "enabled", number, NAME)
        elif where == "FB Memory Usage" and key in ("Total", "Used"):
            mib = re.match(r"(\d+)\s*MiB", value)
            if mib:
                yield Observation(f"{gpu}.memory_{key.lower()}_mib", int(mib.group(1)), number, NAME)
        elif key in ("CUDA Compute Capability", "Compute Capability") and re.fullmatch(r"\d+\.\d+", value):
            yield Observation(f"{gpu}.compute_capability", value, number, NAME)
