"""``nvidia-smi -q -x`` parsed into the same Driver and Gpu facts NVML gives: a pure parser, shared by the nvidia-smi
probe (gpudoctor/probes/smi.py) and the reader of a pasted XML (gpudoctor/evidence/readers/nvidia_smi_query.py).

The XML schema changed across drivers (v11 to v13 DTDs, and an older undeclared one from the 418 era); every lookup
here tolerates a missing element or a placeholder such as "N/A" by returning None (unknown), never by failing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpudoctor.errors import ProbeFailed
from gpudoctor.model import Driver, Gpu, GpuProcess, Pcie

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

# What nvidia-smi prints in place of a value it could not read.
_PLACEHOLDERS = frozenset(
    {"", "n/a", "[n/a]", "not supported", "[not supported]", "unknown error", "[unknown error]",
     "insufficient permissions", "[insufficient permissions]", "gpu is lost", "[gpu is lost]"}
)


# Patterns are strings that re compiles on first use (and caches), not at import: a `check` run without nvidia-smi
# text never needs them, and compiling every module's patterns at import was a measurable part of the start-up time.
_LEADING_INT = r"^([0-9]{1,18})(?![0-9])"  # ASCII digits, 64-bit at most: longer or "²" is unknown


_VERSION = r"^\d+(?:\.\d+)+$"


def parse_nvidia_smi_xml(text: str) -> tuple[Driver, tuple[Gpu, ...]]:
    """Driver and GPUs from ``nvidia-smi -q -x`` output; ProbeFailed (never a traceback) when it is not such a log."""
    # Imported here: only the fallback path pays for the XML parser.
    import xml.etree.ElementTree as ET

    try:
        # ElementTree never fetches the DOCTYPE's external DTD, so the SYSTEM reference is harmless.
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError) as exc:
        raise ProbeFailed(f"nvidia-smi -q -x output is not valid XML: {exc}") from None
    if root.tag != "nvidia_smi_log":
        raise ProbeFailed(f"nvidia-smi -q -x output is not an nvidia-smi log: its root element is <{root.tag}>")
    # Drivers 610 and later renamed "Driver Version" to "KMD Version" and "CUDA Version" to "CUDA UMD Version" (the
    # -q labels, and the XML elements named after them); either spelling is read, the older first.
    driver = Driver(version=_version(_text(root, "driver_version") or _text(root, "kmd_version")),
                    cuda_version=_version(_text(root, "cuda_version") or _text(root, "cuda_umd_version")))
    # attached_gpus is not trusted for the count: a trimmed or partial log can claim more GPUs than it lists.
    return driver, tuple(_gpu(index, node) for index, node in enumerate(root.findall("gpu")))


def _gpu(index: int, node: Element) -> Gpu:
    return Gpu(
        index=index,
        name=_text(node, "product_name"),
        uuid=_text(node, "uuid"),
        pci_bus_id=_text(node, "pci/pci_bus_id") or _value(node.get("id")),
        compute_capability=_version(_text(node, "compute_cap")),
        # Direct children only: MIG instances nest their own fb_memory_usage under mig_devices.
        memory_total_mib=_int(_text(node, "fb_memory_usage/total")),
        memory_used_mib=_int(_text(node, "fb_memory_usage/used")),
        pcie=_pcie(node),
        mig_enabled=_mig_enabled(_text_raw(node, "mig_mode/current_mig")),
        ecc_uncorrected_errors=_ecc_uncorrected(node.find("ecc_errors/volatile")),
        processes=_processes(node.find("processes")),
    )


def _pcie(node: Element) -> Pcie | None:
    link = node.find("pci/pci_gpu_link_info")
    if link is None:
        return None
    return Pcie(
        gen_current=_int(_text(link, "pcie_gen/current_link_gen")),
        # max_link_gen is the GPU-and-host maximum, the same number NVML's MaxPcieLinkGeneration returns.
        gen_max=_int(_text(link, "pcie_gen/max_link_gen")),
        width_current=_int(_text(link, "link_widths/current_link_width")),
        width_max=_int(_text(link, "link_widths/max_link_width")),
    )


def _mig_enabled(current: str | None) -> bool | None:
    if current is None:
        return None  # the schema predates MIG: unknown
    # "N/A" is a GPU without MIG support, which NVML reports as NotSupported: probed, not enabled.
    return current.strip().lower() == "enabled"


def _ecc_uncorrected(volatile: Element | None) -> int | None:
    if volatile is None:
        return None
    old_schema_total = volatile.find("double_bit/total")
    if old_schema_total is not None:
        return _int(_value(old_schema_total.text))
    # v11+ split the count by memory (sram_uncorrectable, dram_uncorrectable; v13 splits SRAM into parity and
    # SEC-DED). Their sum is NVML's total; all placeholders means ECC is off or unsupported: unknown.
    counts = [_int(_value(child.text)) for child in volatile if "uncorrectable" in child.tag and len(child) == 0]
    known = [count for count in counts if count is not None]
    return sum(known) if known else None


def _processes(node: Element | None) -> tuple[GpuProcess, ...] | None:
    if node is None:
        return None
    infos = node.findall("process_info")
    if not infos:
        # An empty element is "no processes"; text such as "N/A" means nvidia-smi could not list them.
        return () if not (node.text or "").strip() else None
    by_pid: dict[int, GpuProcess] = {}
    without_pid: list[GpuProcess] = []
    for process in map(_process, infos):
        if process.pid is None:
            without_pid.append(process)
        else:
            # The same pid appears once per MIG instance it uses; each entry is that instance's memory.
            seen = by_pid.get(process.pid)
            by_pid[process.pid] = process if seen is None else _merge(seen, process)
    return tuple(by_pid.values()) + tuple(without_pid)


def _process(info: Element) -> GpuProcess:
    return GpuProcess(
        pid=_int(_text(info, "pid")),
        name=_text(info, "process_name"),
        used_mib=_int(_text(info, "used_memory")),
    )


def _merge(first: GpuProcess, again: GpuProcess) -> GpuProcess:
    if first.used_mib is None or again.used_mib is None:
        return first if first.used_mib is not None else GpuProcess(first.pid, first.name, again.used_mib)
    return GpuProcess(first.pid, first.name, first.used_mib + again.used_mib)


def _text_raw(node: Element, path: str) -> str | None:
    found = node.find(path)
    if found is None:
        return None
    return (found.text or "").strip()


def _text(node: Element, path: str) -> str | None:
    return _value(_text_raw(node, path))


def _value(text: str | None) -> str | None:
    if text is None:
        return None
    text = " ".join(text.split())
    # "[N/A]", "[Not Supported]", "[Insufficient Permissions]", "[Unknown Error]" and any other bracketed note is
    # nvidia-smi saying it could not read the value: unknown, never the value.
    if text.lower() in _PLACEHOLDERS or (text.startswith("[") and text.endswith("]")):
        return None
    return text


def _int(text: str | None) -> int | None:
    # "16384 MiB", "16x", "4": the number nvidia-smi prints first; anything else is unknown.
    match = re.match(_LEADING_INT, text or "")
    return int(match.group(1)) if match else None


def _version(text: str | None) -> str | None:
    return text if text is not None and re.match(_VERSION, text) else None
