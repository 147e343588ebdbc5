"""A validated matrix kept on disk between runs, keyed by the hash of everything that produced it.

Parsing and validating the TOML tables is most of what `gpudoctor check` spends on its own work (about 30 ms of
a 100 ms budget), and the tables change only with a release. The key covers the bytes of every table in the
directory, the loader's own source and the Python version, so an edited table, a new gpudoctor or another
interpreter never sees a stale entry. The cache is an optimisation only: any failure to read or write it falls back
to a normal load, silently. Entries live in the user's own cache directory, which is as trusted as the user's
site-packages; set GPUDOCTOR_CACHE_DIR to move it, or to an empty string to turn it off.
"""

from __future__ import annotations

import os
import pickle
import sys
import zlib
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")

_LOADER_DIR = Path(__file__).resolve().parent


def cache_dir() -> Path | None:
    """Where entries go: GPUDOCTOR_CACHE_DIR, else $XDG_CACHE_HOME/gpudoctor, else ~/.cache/gpudoctor; None = off."""
    configured = os.environ.get("GPUDOCTOR_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if base.startswith("~"):  # HOME unset: no sensible place
        return None
    return Path(base) / "gpudoctor"


def content_key(directory: Path) -> str:
    """A checksum of the tables in ``directory``, the loader's source files and the interpreter version.

    CRC-32 and Adler-32 together (64 bits) rather than hashlib: importing hashlib loads OpenSSL, which alone costs
    a tenth of the run; these inputs are our own files, so accidental collisions are all that must be avoided."""
    crc, adler = zlib.crc32(sys.version.encode()), zlib.adler32(sys.version.encode())
    for group in (sorted(directory.glob("*.toml")), sorted(_LOADER_DIR.glob("*.py"))):
        for path in group:
            data = path.name.encode() + b"\0" + path.read_bytes() + b"\0"
            crc, adler = zlib.crc32(data, crc), zlib.adler32(data, adler)
    return f"{crc:08x}{adler:08x}"


def cached(directory: Path, load: Callable[[Path], T]) -> T:
    """``load(directory)``, or the entry a previous run stored for exactly these inputs."""
    where = cache_dir()
    if where is None:
        return load(directory)
    try:
        entry = where / f"matrix-{content_key(directory)}.pickle"
    except OSError:  # an unreadable table: the normal load says which, with its own error
        return load(directory)
    try:
        with entry.open("rb") as fh:
            return pickle.load(fh)
    except Exception:  # noqa: BLE001 - a missing, stale-format or unreadable entry just means "load it"
        pass
    value = load(directory)  # a MatrixError propagates: only a valid matrix is ever stored
    _store(where, entry, value)
    return value


def _store(where: Path, entry: Path, value: object) -> None:
    import tempfile  # only on a miss: a hit must not pay for it

    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".matrix-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, entry)  # atomic: a concurrent run reads the old entry or the new one, never half
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        pass  # a read-only home or a full disk: the next run loads from the tables again
