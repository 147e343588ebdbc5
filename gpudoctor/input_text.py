"""Reading the input of ``--from``: a file or standard input, as bytes, bounded, decoded without failing."""

from __future__ import annotations

import sys
from pathlib import Path

from .errors import SnapshotError

# Reading stops here: /dev/zero or a runaway log must not exhaust memory. Larger inputs are cut, and the report says so.
MAX_INPUT_BYTES = 64 * 1024 * 1024


def read_input(path: Path, allow_empty: bool = False) -> tuple[str, str]:
    """(text, origin name). SnapshotError, one line, when it cannot be read (or is empty, unless ``allow_empty``:
    an issue opened with no body is still an issue)."""
    if str(path) == "-":
        data, origin = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1), "standard input"
    else:
        origin = str(path)
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
        except OSError as exc:
            raise SnapshotError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not data.strip():
        if allow_empty:
            return "", origin
        raise SnapshotError(f"{origin} is empty: give a snapshot or paste the output of collect_env, nvidia-smi, ...")
    if data.count(b"\x00") > len(data) // 100:
        raise SnapshotError(f"{origin} is binary data, not text: give a snapshot or pasted command output")
    # utf-16 with a BOM is what PowerShell's `>` writes on Windows
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        text = data.decode("utf-16", errors="replace")
    else:
        text = data.decode("utf-8", errors="replace")
    sample = text[:65536]
    noise = sum(1 for c in sample if c == "\ufffd" or (ord(c) < 32 and c not in "\t\n\r"))
    if noise > len(sample) // 10:
        raise SnapshotError(f"{origin} is binary data, not text: give a snapshot or pasted command output")
    return text, origin
