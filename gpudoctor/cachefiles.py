"""Where gpudoctor keeps what it can rebuild (the validated matrix, compiled dataclass methods), and the two rules
every such file follows: it is read only if this user owns it and nobody else can write it, and it is written
atomically. A cache is an optimisation only: any failure to read or write returns None or does nothing, and the
caller rebuilds. Imports nothing heavy: it runs before anything else at start-up."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def cache_dir() -> Path | None:
    """Where entries go: GPUDOCTOR_CACHE_DIR, else $XDG_CACHE_HOME/gpudoctor, else ~/.cache/gpudoctor; None = off."""
    configured = os.environ.get("GPUDOCTOR_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if base.startswith("~"):  # HOME unset: no sensible place
        return None
    return Path(base) / "gpudoctor"


def read_private(path: Path) -> bytes | None:
    """The bytes of ``path``, or None when it is missing, unreadable, or could have been written by someone else
    (another owner, or group/world-writable): such an entry is not ours to trust, so it is rebuilt instead."""
    try:
        with open(path, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not _private(info):
                return None
            return fh.read()
    except OSError:
        return None


def write_atomic(where: Path, name: str, data: bytes) -> None:
    """Write ``where/name`` so that a concurrent reader sees the old file or the new one, never half of one."""
    import tempfile  # only when writing: a run that reads its caches must not pay for it

    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=f".{name}-", suffix=".tmp")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, where / name)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        pass  # a read-only home or a full disk: the next run rebuilds again


def _private(info: os.stat_result) -> bool:
    if not stat.S_ISREG(info.st_mode) or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    getuid = getattr(os, "getuid", None)  # Windows has no owners in this sense; its profile directory is per user
    return getuid is None or info.st_uid == getuid()
