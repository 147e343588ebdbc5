"""Observe the GPUs' peer-to-peer status and interconnect, never judge: NVML's nvmlDeviceGetP2PStatus for every
ordered pair and capability (read, write, NVLink), and ``nvidia-smi topo -m`` through the runner. The parsing and
the comparison are gpudoctor.topology_text's. A failure of any one call is an unknown (None), not an error."""

from __future__ import annotations

from typing import Any

from gpudoctor.topology_text import NVML_P2P_STATUS, Pair, parse_topo_links
from gpudoctor.runner import Runner

# pynvml's NVML_P2P_CAPS_INDEX_* values (nvidia-ml-py's pynvml.py), used when a binding lacks the constant
CAPS = {"read": ("NVML_P2P_CAPS_INDEX_READ", 0), "write": ("NVML_P2P_CAPS_INDEX_WRITE", 1),
        "nvlink": ("NVML_P2P_CAPS_INDEX_NVLINK", 2)}  # fmt: skip


def probe_p2p_status(nvml: Any) -> dict[Pair, dict[str, str | None]]:
    """{(i, j): {"read": "ok" | "GPU not supported" | ..., "write": ..., "nvlink": ...}} for i != j, with an
    initialised NVML binding (pynvml, or a fake with its API); a capability NVML cannot answer is None."""
    count = nvml.nvmlDeviceGetCount()
    handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
    out: dict[Pair, dict[str, str | None]] = {}
    for i in range(count):
        for j in range(count):
            if i == j:
                continue
            caps: dict[str, str | None] = {}
            for cap, (constant, default) in CAPS.items():
                try:
                    status = nvml.nvmlDeviceGetP2PStatus(handles[i], handles[j], getattr(nvml, constant, default))
                    caps[cap] = NVML_P2P_STATUS.get(int(status), f"status {status}")
                except nvml.NVMLError:
                    caps[cap] = None
            out[(i, j)] = caps
    return out


def probe_topology(runner: Runner) -> dict[Pair, str] | None:
    """``nvidia-smi topo -m`` parsed; None when nvidia-smi is missing or fails."""
    result = runner.run(["nvidia-smi", "topo", "-m"], timeout=15.0)
    if not result.ok:
        return None
    return parse_topo_links(result.stdout)
