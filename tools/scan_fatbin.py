"""Which GPU architectures a wheel's CUDA code is compiled for: the CUDA fatbinary headers of every shared library
> 5 MB in the wheel, as SASS (ELF, "sm_XY") and PTX ("compute_XY") entries. Writes one JSON object per wheel.

    python tools/scan_fatbin.py tensorflow_gpu-1.14.0-cp37-cp37m-manylinux1_x86_64.whl

How tests/data/sources/tensorflow/fatbin-scan.json was made (2026-11-24, wheels from PyPI). The header layout is
NVIDIA's fatbinary container: magic 0xBA55ED50, u16 version, u16 header size, u64 payload size; then entries of
u16 kind (1 = PTX, 2 = ELF/SASS), u16, u32 header size, u64 payload size, ..., u32 arch at offset 28.
Libraries vendored under `external/` (tensorflow-gpu 1.7.0 ships NVIDIA TensorRT's libnvinfer.so.4, with its own
architecture list) are not the framework's kernels and are skipped.
"""

from __future__ import annotations

import collections
import json
import re
import struct
import sys
import zipfile

MAGIC = struct.pack("<I", 0xBA55ED50)


def scan_bytes(data: bytes) -> tuple[int, collections.Counter, collections.Counter]:
    sass: collections.Counter = collections.Counter()
    ptx: collections.Counter = collections.Counter()
    count = 0
    i = data.find(MAGIC)
    while i != -1:
        version, header, size = struct.unpack_from("<HHQ", data, i + 4)
        if version != 1 or header != 16 or size <= 0 or i + 16 + size > len(data):
            i = data.find(MAGIC, i + 4)
            continue
        count += 1
        p, end = i + 16, i + 16 + size
        while p + 32 <= end:
            kind, _, entry_header, payload = struct.unpack_from("<HHIQ", data, p)
            arch = struct.unpack_from("<I", data, p + 28)[0]
            if kind not in (1, 2) or entry_header == 0:
                break
            (ptx if kind == 1 else sass)[arch] += 1
            p += entry_header + payload
        i = data.find(MAGIC, end)
    return count, sass, ptx


def scan_wheel(path: str) -> dict:
    sass: collections.Counter = collections.Counter()
    ptx: collections.Counter = collections.Counter()
    fatbins = 0
    with zipfile.ZipFile(path) as wheel:
        for info in wheel.infolist():
            if "/external/" in info.filename:
                continue
            if re.search(r"\.(so(\.\d+)*|pyd|dll)$", info.filename) and info.file_size > 5_000_000:
                n, s, p = scan_bytes(wheel.read(info))
                fatbins += n
                sass.update(s)
                ptx.update(p)
    return {
        "wheel": path.rsplit("/", 1)[-1],
        "fatbins": fatbins,
        "sass": [f"sm_{a}" for a in sorted(sass)],
        "ptx": [f"compute_{a}" for a in sorted(ptx)],
    }


if __name__ == "__main__":
    for wheel_path in sys.argv[1:]:
        print(json.dumps(scan_wheel(wheel_path)))
