"""Collect from a directory of saved reports or snapshots (written by a Kubernetes Job, Ansible, ssh, srun...).
Every ``*.json`` under it is one node, named by its path relative to the directory without ``.json``. Files are
read one at a time and only their digest is kept, so memory stays bounded however many nodes there are."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterator

from ..errors import GpuDoctorError
from .documents import failed, node_from_text
from .model import NodeResult

MAX_REPORT_BYTES = 16 * 1024 * 1024  # a report is a few kB; more is not a report (and must not fill memory)


class FleetInputError(GpuDoctorError):
    """The fleet's input cannot be read at all (exit 2): a missing directory, no reports in it."""


def report_files(directory: Path) -> list[tuple[str, str]]:
    """(path, node name) of every *.json under ``directory``, sorted. Plain strings and os.walk: at 10,000 files
    pathlib's per-path objects cost more than reading the reports."""
    if not directory.is_dir():
        raise FleetInputError(f"{directory}: not a directory")
    top = os.path.join(str(directory), "")
    files = []
    for folder, subfolders, names in os.walk(top):
        subfolders.sort()
        prefix = folder[len(top):].replace(os.sep, "/")
        files += [(os.path.join(folder, n), f"{prefix}/{n[:-5]}" if prefix else n[:-5])
                  for n in names if n.endswith(".json")]
    if not files:
        raise FleetInputError(f"{directory}: no *.json reports or snapshots in it")
    return sorted(files, key=lambda item: item[1])


def read_node(path: Path | str, name: str, shared: dict | None = None) -> NodeResult:
    origin = str(path)
    try:
        raw = _read_regular_file(path, MAX_REPORT_BYTES + 1)
    except OSError as exc:
        return failed(name, origin, f"unreadable: {exc.strerror or exc}")
    if raw is None:
        return failed(name, origin, "not a regular file (a FIFO, device or socket): not a report")
    if len(raw) > MAX_REPORT_BYTES:
        return failed(name, origin, f"larger than {MAX_REPORT_BYTES // 2**20} MiB: not a report")
    return node_from_text(raw.decode("utf-8", "replace"), name, origin, shared)


def _read_regular_file(path: Path | str, limit: int) -> bytes | None:
    """Up to ``limit`` bytes of a regular file; None for anything else. Opened without blocking and checked on the
    open descriptor: a FIFO named node7.json would otherwise wait for a writer forever, and /dev/zero never ends."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], limit  # os.read, not a buffered file object: a fleet reads 10,000 small files
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


# Below this many files one process reads them all: starting workers costs more than it saves (issue 23).
PARALLEL_FROM = 400
_CHUNK = 250  # files per task: large enough that pickling the answers back is a small share of the work


def read_directory(directory: Path, workers: int | None = None) -> Iterator[NodeResult]:
    """Every node of the directory, in name order. A large directory is read (and its snapshots judged) by
    ``workers`` processes (default: one per CPU this process may use), each file by one of them; the parent keeps
    one copy of what many nodes share, as a single process does. A pool that cannot start falls back to reading
    here."""
    files = report_files(directory)
    shared: dict = {}
    workers = _workers() if workers is None else workers
    if workers > 1 and len(files) >= PARALLEL_FROM:
        chunks = [files[i:i + _CHUNK] for i in range(0, len(files), _CHUNK)]
        try:
            import multiprocessing

            context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
            pool = context.Pool(min(workers, len(chunks)))
        except (OSError, ValueError, ImportError):
            pool = None
        if pool is not None:
            with pool:
                for nodes in pool.imap(_read_chunk, chunks):
                    for node in nodes:
                        yield _shared_node(node, shared)
            return
    for path, name in files:
        yield read_node(path, name, shared)


def _workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _read_chunk(files: list[tuple[str, str]]) -> list[NodeResult]:
    shared: dict = {}
    return [read_node(path, name, shared) for path, name in files]


def _shared_node(node: NodeResult, shared: dict) -> NodeResult:
    """A node read in a worker, its digest parts replaced by the parent's one copy of each (as node_from_report
    shares them in a single process): 10,000 alike nodes hold each distinct part once."""
    if not node.answered:
        return node
    return NodeResult(  # not dataclasses.replace, several times slower: the parent does this per node
        name=node.name, origin=node.origin, failure=node.failure, exit_code=node.exit_code,
        sections=shared.setdefault(("sections", node.sections), node.sections),
        findings=shared.setdefault(("findings", tuple((f.id, f.severity, f.title) for f in node.findings)), node.findings),
        facts=shared.setdefault(("facts", node.facts), node.facts),
    )


def read_golden(path: Path) -> NodeResult:
    """The reference node: a snapshot or a report. Unreadable or not a gpudoctor document is a usage error."""
    if not path.is_file():
        raise FleetInputError(f"{path}: golden snapshot not found")
    node = read_node(path, "golden")
    if not node.answered:
        raise FleetInputError(f"{path}: {node.failure}")
    return node
