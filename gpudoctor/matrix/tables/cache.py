"""A validated matrix kept on disk between runs, keyed by the hash of everything that produced it.

Parsing and validating the TOML tables is most of what `gpudoctor check` spends on its own work (about 30 ms of
a 100 ms budget), and the tables change only with a release. The key covers every table in the directory and the
loader's own source (the name, size and modification time of each) and the Python version, so an edited table, a
new gpudoctor or another interpreter never sees a stale entry. The cache is an optimisation only: any failure to
read or write it falls back to a normal load, silently. Entries live in the user's own cache directory
(gpudoctor.cachefiles), which is as trusted as the user's site-packages: an entry another user could have written
is ignored, never unpickled. Set GPUDOCTOR_CACHE_DIR to move it, or to an empty string to turn it off.
"""

from __future__ import annotations

import os
import pickle
import sys
import zlib
from pathlib import Path
from typing import Callable, TypeVar

from ...cachefiles import cache_dir, read_private, write_atomic

__all__ = ["cache_dir", "cached", "content_key"]

T = TypeVar("T")

_LOADER_DIR = Path(__file__).resolve().parent


def content_key(directory: Path) -> str:
    """A checksum of the name, size and modification time of each table in ``directory`` and of the loader's source
    files, and of the interpreter version: the rule Python's own bytecode cache uses for source files (an edit
    changes the time, and nearly always the size), at a stat per file instead of reading ~250 KB on every run.

    CRC-32 and Adler-32 together (64 bits) rather than hashlib: importing hashlib loads OpenSSL, which alone costs
    a tenth of the run; these inputs are our own files, so accidental collisions are all that must be avoided."""
    parts = [sys.version]
    for folder, suffix in ((directory, ".toml"), (_LOADER_DIR, ".py")):
        with os.scandir(folder) as entries:
            files = sorted((entry.name, entry.stat()) for entry in entries
                           if entry.name.endswith(suffix) and entry.is_file())
        parts.extend(f"{name}\0{info.st_size}\0{info.st_mtime_ns}" for name, info in files)
    data = "\n".join(parts).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def cached(directory: Path, load: Callable[[Path], T]) -> T:
    """``load(directory)``, or the entry a previous run stored for exactly these inputs."""
    where = cache_dir()
    if where is None:
        return load(directory)
    try:
        name = f"matrix-{content_key(directory)}.pickle"
    except OSError:  # an unreadable table: the normal load says which, with its own error
        return load(directory)
    stored = read_private(where / name)  # None: missing, or writable by someone else (not ours to unpickle)
    if stored is not None:
        try:
            return pickle.loads(stored)
        except Exception:  # noqa: BLE001 - a stale-format or truncated entry just means "load it"
            pass
    value = load(directory)  # a MatrixError propagates: only a valid matrix is ever stored
    write_atomic(where, name, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    _drop_old_entries(where, keep=name)
    return value


# Entries kept beside the one just written: enough for a few installs (venvs, versions) sharing one cache directory
# without each rewriting its entry on every run, few enough that upgrades do not pile up files.
_OTHER_ENTRIES_KEPT = 3


def _drop_old_entries(where: Path, keep: str) -> None:
    """Remove all but the newest few other matrix entries (each upgrade or edited table writes a new one)."""
    try:
        with os.scandir(where) as entries:
            others = [(entry.stat().st_mtime_ns, entry.path) for entry in entries
                      if entry.name.startswith("matrix-") and entry.name.endswith(".pickle") and entry.name != keep]
        for _, path in sorted(others, reverse=True)[_OTHER_ENTRIES_KEPT:]:
            os.unlink(path)
    except OSError:
        pass  # an entry another process removed first, or a directory we may not change: left as it is
