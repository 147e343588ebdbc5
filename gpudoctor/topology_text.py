"""The GPUs' interconnect: ``nvidia-smi topo -m`` (how each pair is linked) and ``nvidia-smi topo -p2p rw`` /
NVML's nvmlDeviceGetP2PStatus (whether peer-to-peer works), parsed into pair -> value, and compared with what the
link should give. Pure text and tables: the probe (gpudoctor/probes/p2p.py) runs the commands and calls NVML.

The link codes are nvidia-smi's own legend (printed under ``topo -m``): X self, NV# a bonded set of # NVLinks, PIX at
most one PCIe bridge, PXB several PCIe bridges without the host bridge, PHB through a PCIe host bridge (the CPU),
NODE across host bridges within a NUMA node, SYS across the SMP interconnect (QPI/UPI) between NUMA nodes."""

from __future__ import annotations

import re

Pair = tuple[int, int]

_GPU = re.compile(r"^GPU(\d+)$")
_NVLINK = re.compile(r"^NV(\d+)$")
P2P_CODES = {"OK": "ok", "CNS": "chipset not supported", "GNS": "GPU not supported", "TNS": "topology not supported",
             "NS": "not supported", "DR": "disabled by regkey", "U": "unknown"}  # topo -p2p's legend  # fmt: skip
# NVML's nvmlGpuP2PStatus_t values (pynvml NVML_P2P_STATUS_*), in the same words as nvidia-smi's legend
NVML_P2P_STATUS = {0: "ok", 1: "chipset not supported", 2: "GPU not supported", 3: "topology not supported",
                   4: "disabled by regkey", 5: "not supported", 6: "unknown"}  # fmt: skip


def _matrix(text: str) -> dict[Pair, str]:
    """The GPU x GPU block of a topo matrix: header row names the columns; a row GPUi gives column cells in order."""
    columns: list[int] = []
    out: dict[Pair, str] = {}
    for line in text.splitlines():
        cells = line.split()
        if not cells:
            continue
        if not columns:
            # the header: GPU columns first, then NICs, "CPU Affinity" ... (only the GPU x GPU block is read)
            columns = [int(_GPU.match(c).group(1)) for c in _leading_gpus(cells)]  # type: ignore[union-attr]
            continue
        row = _GPU.match(cells[0])
        if row is None:
            if cells[0].startswith("Legend"):
                break
            continue
        for col, cell in zip(columns, cells[1 : 1 + len(columns)]):
            out[(int(row.group(1)), col)] = cell
    return out


def _leading_gpus(cells: list[str]) -> list[str]:
    leading = []
    for c in cells:
        if not _GPU.match(c):
            break
        leading.append(c)
    return leading


def parse_topo_links(text: str) -> dict[Pair, str]:
    """``nvidia-smi topo -m`` -> {(i, j): "NV12" | "PIX" | "PXB" | "PHB" | "NODE" | "SYS"} for every pair i != j."""
    return {pair: code for pair, code in _matrix(text).items() if pair[0] != pair[1] and code != "X"}


def parse_topo_p2p(text: str) -> dict[Pair, str]:
    """``nvidia-smi topo -p2p r|w|rw|n|a`` -> {(i, j): "ok" | "GPU not supported" | ...} (the legend's words)."""
    return {pair: P2P_CODES.get(code, code) for pair, code in _matrix(text).items() if pair[0] != pair[1]}


def link_kind(code: str) -> str:
    m = _NVLINK.match(code)
    if m:
        return f"NVLink x{m.group(1)}"
    return {"PIX": "PCIe, one switch", "PXB": "PCIe, several switches", "PHB": "PCIe through the CPU's host bridge",
            "NODE": "PCIe across host bridges (same NUMA node)", "SYS": "PCIe across CPU sockets (QPI/UPI)"}.get(code, code)  # fmt: skip


def p2p_expectation(link: str, p2p: str | None) -> str | None:
    """A problem where the link and the P2P status disagree, or None. NVLink pairs must have P2P; a PCIe pair
    without it is normal on GeForce boards ("GPU not supported") and across sockets, so only an NVLink pair, or a
    P2P status disabled by a registry key, is called out. None (unknown) raises nothing."""
    if p2p is None or p2p == "ok":
        return None
    if _NVLINK.match(link):
        return f"the GPUs are linked by {link_kind(link)} but peer-to-peer reports '{p2p}': NVLink is down or not used"
    if p2p == "disabled by regkey":
        return f"peer-to-peer over {link_kind(link)} is disabled by a driver registry key"
    return None
