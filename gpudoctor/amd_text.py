"""Pure parsers of AMD's tools' text (rocminfo, rocm-smi, amd-smi) and of the KFD topology's gfx_target_version.

Shared by the AMD probe (which runs the tools through the runner) and the evidence readers (which read the same
output pasted into a bug report): one parser per format, so a probed machine and a paste give the same facts.
Every parser returns the line number (1-based) of each value, for provenance; none of them judges anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

Holding = Callable[[str], Iterable[int]]  # the numbers of the lines holding a word, in order


# Patterns are strings that re compiles on first use (and caches), not at import: a `check` run without AMD tool text
# never needs them, and compiling every module's patterns at import was a measurable part of the start-up time.
_GFX = r"\bgfx([0-9]{1,2}[0-9a-f]{2})\b"


@dataclass
class AmdGpuText:
    """One GPU as a tool printed it: field -> (line number, value)."""

    index: int
    fields: dict[str, tuple[int, object]] = field(default_factory=dict)

    def set(self, name: str, line: int, value: object) -> None:
        if value not in (None, "") and name not in self.fields:
            self.fields[name] = (line, value)


def gfx_target(text: str | None) -> str | None:
    """"gfx1100", "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "AMD Radeon RX 5700 XT (gfx1010:xnack-)" -> the
    bare LLVM target ("gfx1100", "gfx90a", "gfx1010"); None when the text names none."""
    m = re.search(_GFX, text or "", re.IGNORECASE)
    return f"gfx{m.group(1).lower()}" if m else None


def gfx_from_topology(value: int) -> str | None:
    """KFD's gfx_target_version (major*10000 + minor*100 + stepping, each printed in hex by LLVM's names):
    110000 -> gfx1100, 90010 -> gfx90a, 90402 -> gfx942, 0 (a CPU node) -> None."""
    if value <= 0:
        return None
    major, minor, stepping = value // 10000, value // 100 % 100, value % 100
    if minor > 15 or stepping > 15:
        return None
    return f"gfx{major}{minor:x}{stepping:x}"


def parse_rocminfo(text: str, lines: Sequence[str] | None = None, holding: Holding | None = None) -> list[AmdGpuText]:
    """GPU agents of ``rocminfo``: each agent block's first ``Name:`` (its gfx target), ``Marketing Name:`` and
    ``Device Type:``. CPU agents are skipped. Only the lines holding "Agent", "Name" or "Device Type" matter (the
    others are skipped unread: ``lines`` and ``holding``, see ``parse_amd_smi``)."""
    gpus: list[AmdGpuText] = []
    block: dict[str, tuple[int, str]] = {}

    def close() -> None:
        if block.get("type", (0, ""))[1].upper() == "GPU":
            gpu = AmdGpuText(len(gpus))
            if "name" in block:
                gpu.set("gfx_target", block["name"][0], gfx_target(block["name"][1]))
            if "marketing" in block:
                gpu.set("name", block["marketing"][0], block["marketing"][1])
            if "bdf" in block:
                gpu.set("pci_bus_id", *block["bdf"])
            gpus.append(gpu)
        block.clear()

    if lines is None or holding is None:
        lines = text.splitlines()
        numbers: Iterable[int] = range(1, len(lines) + 1)
    else:
        numbers = sorted({n for word in ("Agent", "Name", "Device Type") for n in holding(word)})
    for number in numbers:
        line = lines[number - 1]
        stripped = line.strip()
        if stripped.startswith("Agent ") and re.fullmatch(r"Agent \d+", stripped):
            close()
            continue
        key, sep, value = stripped.partition(":")
        if not sep:
            continue
        value = value.strip()
        key = key.strip()
        if key == "Name" and "name" not in block and line.startswith("  ") and not line.startswith("    "):
            block["name"] = (number, value)
        elif key == "Marketing Name" and "marketing" not in block:
            block["marketing"] = (number, value)
        elif key == "Device Type" and "type" not in block:
            block["type"] = (number, value)
    close()
    return gpus


_SMI_LINE = r"^GPU\[(\d+)\]\s*:\s*([^:]+?)\s*:\s*(.*?)\s*$"


def parse_rocm_smi(text: str, lines: Sequence[str] | None = None, holding: Holding | None = None) -> list[AmdGpuText]:
    """``rocm-smi --showproductname`` (and other ``GPU[n] : Field: value`` lines): card series, GFX version.
    ``lines`` and ``holding``: see ``parse_amd_smi``."""
    by_index: dict[int, AmdGpuText] = {}
    if "GPU[" not in text:
        return []  # no line can match: a large paste stays cheap
    lines, numbers = _holding(text, lines, holding, "GPU[")
    for number in numbers:
        m = re.match(_SMI_LINE, lines[number - 1].strip())
        if not m:
            continue
        index, key, value = int(m.group(1)), m.group(2).strip().lower(), m.group(3).strip()
        gpu = by_index.setdefault(index, AmdGpuText(index))
        if key in ("card series", "card model") and value and not value.lower().startswith("0x"):
            gpu.set("name", number, value)
        elif key == "gfx version":
            gpu.set("gfx_target", number, gfx_target(value))
        elif key == "pci bus":
            gpu.set("pci_bus_id", number, value)
    return [by_index[i] for i in sorted(by_index)]


_AMD_SMI_GPU = r"^GPU:\s*(\d+)\s*$"


_AMD_SMI_FIELD = r"^\s+([A-Z_]+):\s*(.*?)\s*$"


_AMD_SMI_ROCM = r"ROCm version:\s*([0-9][0-9.]*)"


def parse_amd_smi(text: str, lines: Sequence[str] | None = None,
                  holding: Holding | None = None) -> tuple[list[AmdGpuText], tuple[int, str] | None]:
    """``amd-smi static`` / ``amd-smi list`` blocks (``GPU: 0`` then indented ``KEY: value`` lines), and the ROCm
    version ``amd-smi version`` prints (``... | ROCm version: 6.2.0``). ``lines`` and ``holding``: the text's lines
    as ``splitlines`` numbers them, and the numbers of those holding a word, in order, where the caller has them (a
    pasted document: only the lines holding the formats' words are looked at in Python)."""
    rocm: tuple[int, str] | None = None
    if "ROCm version" in text:
        lines, numbers = _holding(text, lines, holding, "ROCm version")
        for number in numbers:
            if (m := re.search(_AMD_SMI_ROCM, lines[number - 1])):
                rocm = (number, m.group(1).rstrip("."))
                break
    gpus: list[AmdGpuText] = []
    if "GPU:" in text:  # only the lines of a block are read (a large paste has many lines, few of amd-smi's)
        lines, numbers = _holding(text, lines, holding, "GPU:")
        for start in [number for number in numbers if lines[number - 1].startswith("GPU:")]:
            m = re.match(_AMD_SMI_GPU, lines[start - 1])
            if m:
                gpus.append(_amd_smi_block(lines, start, AmdGpuText(int(m.group(1)))))
    return gpus, rocm


def _holding(text: str, lines: Sequence[str] | None, holding: Holding | None, word: str) -> tuple[Sequence[str], Iterable[int]]:
    """The lines, and the numbers of those holding ``word``: the caller's, or found here line by line."""
    if lines is None or holding is None:
        lines = text.splitlines()
        return lines, [number for number, line in enumerate(lines, 1) if word in line]
    return lines, holding(word)


def _amd_smi_block(lines: Sequence[str], start: int, gpu: AmdGpuText) -> AmdGpuText:
    """The fields of the indented ``KEY: value`` lines below the ``GPU: n`` line ``start``, up to the first line
    that is not indented (another ``GPU:`` line among them)."""
    for number in range(start + 1, len(lines) + 1):
        line = lines[number - 1]
        if line.startswith("GPU:") or line.strip() and not line.startswith((" ", "\t")):
            break
        f = re.match(_AMD_SMI_FIELD, line)
        if not f:
            continue
        key, value = f.group(1), f.group(2)
        if key == "MARKET_NAME" and value.upper() != "N/A":
            gpu.set("name", number, value)
        elif key == "TARGET_GRAPHICS_VERSION":
            gpu.set("gfx_target", number, gfx_target(value))
        elif key == "BDF":
            gpu.set("pci_bus_id", number, value)
    return gpu
