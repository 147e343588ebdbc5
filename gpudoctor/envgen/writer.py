"""Atomic, no-clobber writing of generated files.

Every existing file is checked *before* anything is written, so a refused run leaves the directory exactly as it was.
Each file is written to a temporary file in the same directory, flushed and fsynced, then moved into place:
``os.link`` without ``force`` (fails rather than clobber a file that appeared meanwhile), ``os.replace`` with it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Mapping

from gpudoctor.errors import GpuDoctorError, OutputExistsError


class OutputError(GpuDoctorError):
    """The output directory or a file in it cannot be written (exit 2)."""


def planned_paths(directory: Path, names: Mapping[str, str] | list[str]) -> list[Path]:
    return [Path(directory) / name for name in names]


def existing(paths: list[Path]) -> list[Path]:
    """The paths that would be overwritten (a dangling symlink counts: writing there would follow or replace it)."""
    return [p for p in paths if p.exists() or p.is_symlink()]


def write_files(directory: Path | str, files: Mapping[str, str], force: bool = False) -> list[Path]:
    """Write ``files`` (name -> text) into ``directory``; return the paths written, in order.

    Raises OutputExistsError (naming the first existing file) before writing anything when a file exists and
    ``force`` is false; OutputError when the directory or a file cannot be written. Files this call created are
    removed again if a later one fails, so a failed run leaves no half-set of new files behind.
    """
    directory = Path(directory)
    paths = planned_paths(directory, list(files))
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"{directory} is not a directory")
    if not force:
        clash = existing(paths)
        if clash:
            others = f" (and {len(clash) - 1} more)" if len(clash) > 1 else ""
            raise OutputExistsError(f"{clash[0]} already exists{others}: not overwritten (use --force to replace it)")
    made = [p for p in (directory, *directory.parents) if not p.exists()]  # deepest first: removed again on failure
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _remove_dirs(made)
        raise OutputError(f"cannot create {directory}: {exc.strerror or exc}") from None

    created: list[Path] = []
    try:
        for path, text in zip(paths, files.values()):
            existed = path.exists() or path.is_symlink()
            _write_one(path, text, force)
            if not existed:
                created.append(path)
    except BaseException:
        for path in created:
            try:
                path.unlink()
            except OSError:
                pass
        _remove_dirs(made)
        raise
    _fsync_dir(directory)
    return paths


def _remove_dirs(made: list[Path]) -> None:
    """Remove the directories this run created (deepest first), so a failed run leaves no empty directory behind."""
    for path in made:
        try:
            path.rmdir()
        except OSError:
            pass


def _write_one(path: Path, text: str, force: bool) -> None:
    data = text.encode("utf-8")
    try:
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write in {path.parent}: {exc.strerror or exc}") from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _chmod_default(tmp)
        if force:
            os.replace(tmp, path)
        else:
            _link_no_clobber(tmp, path)
    except FileExistsError:
        raise OutputExistsError(f"{path} already exists: not overwritten (use --force to replace it)") from None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if tmp.exists():
            tmp.unlink()


def _link_no_clobber(tmp: Path, path: Path) -> None:
    try:
        os.link(tmp, path)  # atomic and fails if the name exists: no window in which a new file is clobbered
    except FileExistsError:
        raise
    except OSError:  # a filesystem without hard links: check, then replace (a tiny window, but still atomic)
        if path.exists() or path.is_symlink():
            raise FileExistsError(str(path)) from None
        os.replace(tmp, path)


def _chmod_default(path: Path) -> None:
    """mkstemp creates 0600; a generated file should get the usual 0666 & ~umask."""
    if os.name != "posix":
        return
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


def _fsync_dir(directory: Path) -> None:
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
