"""The one subprocess seam. Every external command goes through a Runner (``run``: wait, then read the output) or,
for long children whose output streams, ``spawn`` (verify's smoke tests): an argv list, never a shell, always a
timeout. Tests pass fakes with the same signatures (tests/fakes.py, tests/verify/fakes.py)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, Sequence


@dataclass(frozen=True)
class CommandResult:
    """What a finished command gave: exit code, output, or why it could not run."""
    argv: tuple[str, ...]
    returncode: int | None  # None: it could not start or timed out (see ``error``)
    stdout: str = ""
    stderr: str = ""
    error: str | None = None  # "not found", "timed out after 5s", ...

    @property
    def ok(self) -> bool:
        return self.returncode == 0


class Runner(Protocol):
    def run(self, argv: Sequence[str], timeout: float = 10.0) -> CommandResult: ...


class SubprocessRunner:
    def run(self, argv: Sequence[str], timeout: float = 10.0) -> CommandResult:
        argv = tuple(argv)
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, errors="replace", check=False)
        except FileNotFoundError:
            return CommandResult(argv, None, error=f"{argv[0]}: command not found")
        except PermissionError as exc:
            return CommandResult(argv, None, error=f"{argv[0]}: {exc.strerror}")
        except subprocess.TimeoutExpired:
            return CommandResult(argv, None, error=f"{argv[0]}: timed out after {timeout:g}s")
        except OSError as exc:
            return CommandResult(argv, None, error=f"{argv[0]}: {exc}")
        return CommandResult(argv, done.returncode, done.stdout, done.stderr)

    def spawn(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
              on_line: Callable[[str], None] | None = None) -> SpawnResult:  # fmt: skip
        return spawn(argv, timeout, env, on_line)


# ---------------------------------------------------------------------------------------------------------------
# Streaming spawn: for long children whose output is read as it comes (verify's smoke tests). Same rules as run:
# an argv list, never a shell, always a timeout, never raises. Tests pass a fake with the same ``spawn`` signature.


@dataclass(frozen=True)
class SpawnResult:
    """How a spawned child process ended: exit code or signal, timeout, and its wall time."""
    argv: tuple[str, ...]
    returncode: int | None  # negative: killed by that signal (Popen's convention); None: it could not start
    timed_out: bool = False  # it ran past the timeout and its process group was killed
    error: str | None = None  # why it could not start
    wall_s: float = 0.0
    cpu_s: float | None = None  # user + system seconds of the child and its descendants (benchmarks on busy hosts)


class Spawner(Protocol):
    def spawn(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
              on_line: Callable[[str], None] | None = None) -> SpawnResult: ...  # fmt: skip


def spawn(argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
          on_line: Callable[[str], None] | None = None) -> SpawnResult:  # fmt: skip
    """Run argv in its own process group with stdout and stderr merged into one stream, handed to ``on_line`` line
    by line as it comes; kill the whole group at the timeout (a hung framework often leaves helpers behind)."""
    argv = tuple(argv)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env=dict(env) if env is not None else None, start_new_session=True)  # fmt: skip
    except OSError as exc:
        return SpawnResult(argv, None, error=f"{argv[0]}: {exc.strerror or exc}")

    def read() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            if on_line is not None:
                try:
                    on_line(raw.decode("utf-8", "replace").rstrip("\r\n"))
                except Exception:  # noqa: BLE001 - a broken listener must not stop the draining (the child would block)
                    pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        proc.wait()
    reader.join(timeout=2)
    if reader.is_alive():  # the child is gone but something it started still holds the pipe open
        _kill_group(proc)
        reader.join(timeout=2)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return SpawnResult(argv, proc.returncode, timed_out, None, time.perf_counter() - start, cpu)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass
