"""AMD's tools pasted into a report: ``rocminfo``, ``rocm-smi``, ``amd-smi`` (static / list / version), and the
ROCm lines of torch's collect_env (``HIP runtime version``, ``MIOpen runtime version``). The parsers are the ones the
AMD probe uses (gpudoctor/amd_text.py), so a paste and a probed machine give the same facts."""

from __future__ import annotations

import re
from typing import Iterator

from ...amd_text import AmdGpuText, parse_amd_smi, parse_rocm_smi, parse_rocminfo
from ..document import Document
from ..observation import Observation
from ._common import known, version_in

NAME = "amd"
# "ROCk module is loaded" / "ROCk module version 6.3.6 is loaded"; "ROCk module is NOT loaded, possibly no GPU devices"
_ROCK = re.compile(r"^\s*`?ROCk module(?: version \S+)? is (NOT )?loaded\b")
_NO_BINARY = re.compile(r"hipErrorNoBinaryForGpu|HIP error: invalid device function")
_RUNTIME = re.compile(r"^\s*(HIP runtime version|MIOpen runtime version)\s*:\s*(.*)$")


def read(document: Document) -> Iterator[Observation]:
    text = document.text
    if "HSA Agents" not in text and "GPU[" not in text and "GPU:" not in text \
            and "ROCk module" not in text and "runtime version" not in text and "ROCm version" not in text \
            and "hipError" not in text and "HIP error" not in text and "rocminfo" not in text.lower():
        return  # none of the formats can be here: keep a large paste cheap (the text lowercased last: it is dearest)
    # the parsers look only at the lines holding their words, found by the document's search of the whole text
    lines, holding = (document.lines, document.lines_with) if document.numbered_as_splitlines else (None, None)
    amd_smi, rocm = parse_amd_smi(text, lines, holding)
    for gpus, reader in ((parse_rocminfo(text, lines, holding) if "HSA Agents" in text else [], "rocminfo"),
                         (parse_rocm_smi(text, lines, holding), "rocm-smi"),
                         (amd_smi, "amd-smi")):
        yield from _gpus(gpus, reader)
    if rocm:
        yield Observation("rocm.version", rocm[1], rocm[0], "amd-smi")
    for number in document.lines_with("ROCk module", "hipErrorNoBinaryForGpu", "HIP error", "runtime version"):
        # each pattern needs its words in the line: only lines holding them are read (a large paste has few of AMD's)
        line = document.lines[number - 1]
        m = _ROCK.match(line) if "ROCk module" in line else None
        if m:
            yield Observation("rocm.amdgpu_loaded", not m.group(1), number, "rocminfo",
                              f"rocminfo prints this when the amdgpu (ROCk) module is {'not ' if m.group(1) else ''}loaded")
            continue
        if ("hipErrorNoBinaryForGpu" in line or "HIP error" in line) and _NO_BINARY.search(line):
            yield Observation("symptoms[]", {"kind": "hip-no-binary-for-gpu", "text": line.strip()[:300], "framework": "torch"}, number, "error line")
            continue
        m = _RUNTIME.match(line) if "runtime version" in line else None
        if m:
            value = version_in(known(m.group(2)))
            if value:
                key = "rocm.hip_runtime" if m.group(1).startswith("HIP") else "rocm.miopen"
                yield Observation(key, value, number, "collect_env")


def _gpus(gpus: list[AmdGpuText], reader: str) -> Iterator[Observation]:
    for gpu in gpus:
        if not gpu.fields:
            continue
        key = f"amd_gpus[{gpu.index}]"
        first = min(line for line, _ in gpu.fields.values())
        yield Observation(f"{key}.index", gpu.index, first, reader)
        for name, (line, value) in gpu.fields.items():
            yield Observation(f"{key}.{name}", value, line, reader)
