"""Runs one smoke test in a child process (``python -m gpudoctor.verify.worker``) with a timeout, and turns whatever
happens into a SmokeResult: a hang is a timeout, a segfault or abort is "child died with SIGSEGV/SIGABRT", output
that is not a result is "bad output" -- never a dead or hung gpudoctor.

stdout carries exactly one JSON line; stderr carries the frameworks' log spam and ``@@gpudoctor-progress`` lines,
read as they come (progress) and kept as a short tail (for the reason of a failure)."""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from gpudoctor.verify.model import WORKER_SCHEMA, CaseRequest, SmokeResult, Status

PROGRESS_PREFIX = "@@gpudoctor-progress"  # the worker's (kept here so the parent never imports the worker)
TAIL_LINES = 20

ProgressFn = Callable[[int, int, str], None]


def worker_argv(request: CaseRequest) -> list[str]:
    argv = [sys.executable, "-m", "gpudoctor.verify.worker", "--framework", request.framework, "--test", request.test,
            "--device", request.device]  # fmt: skip
    if request.amp is True:
        argv.append("--amp")
    elif request.amp is False:
        argv.append("--no-amp")
    for path in request.weights:
        argv += ["--weights", path]
    return argv


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's C++ INFO/WARNING spam
    env.setdefault("PYTHONUNBUFFERED", "1")
    # The child must import this same gpudoctor, wherever the parent was started from.
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _is_noise(line: str) -> bool:
    return line.startswith(PROGRESS_PREFIX) or "/job:localhost/" in line


def run_case(request: CaseRequest, timeout: float, on_progress: ProgressFn | None = None) -> SmokeResult:
    start = time.perf_counter()
    base = {"framework": request.framework, "test": request.test}
    try:
        proc = subprocess.Popen(
            worker_argv(request),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_env(),
            start_new_session=True,  # its own process group: a timeout kills everything it started
        )
    except OSError as exc:
        return SmokeResult(**base, status=Status.FAILED, reason=f"could not start the child process: {exc}")

    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
    stdout_chunks: list[bytes] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith(PROGRESS_PREFIX):
                parts = line.split(" ", 3)
                if on_progress is not None and len(parts) >= 3:
                    try:
                        on_progress(int(parts[1]), int(parts[2]), parts[3] if len(parts) > 3 else "")
                    except ValueError:
                        pass
            elif line.strip() and not _is_noise(line):
                tail.append(line)

    def read_stdout() -> None:
        assert proc.stdout is not None
        stdout_chunks.append(proc.stdout.read())

    readers = [threading.Thread(target=read_stderr, daemon=True), threading.Thread(target=read_stdout, daemon=True)]
    for t in readers:
        t.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        proc.wait()
    for t in readers:
        t.join(timeout=5)
    wall = time.perf_counter() - start
    stderr_tail = "\n".join(tail) or None

    if timed_out:
        return SmokeResult(**base, status=Status.FAILED, wall_s=wall, stderr_tail=stderr_tail,
                           reason=f"timed out after {timeout:g}s: the child hung or is far slower than it should be "
                                  "(it was killed)")  # fmt: skip
    rc = proc.returncode
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = f"signal {-rc}"
        return SmokeResult(**base, status=Status.FAILED, wall_s=wall, stderr_tail=stderr_tail,
                           reason=f"child died with {name}" + _last_words(tail))  # fmt: skip
    result = parse_result(b"".join(stdout_chunks).decode("utf-8", "replace"))
    if result is None:
        what = f"child exited with status {rc} without a result" if rc else "child printed no result"
        return SmokeResult(**base, status=Status.FAILED, wall_s=wall, stderr_tail=stderr_tail,
                           reason=what + _last_words(tail))  # fmt: skip
    if result.framework != request.framework or result.test != request.test:
        return SmokeResult(**base, status=Status.FAILED, wall_s=wall, reason="child answered for another test")
    updates = {"wall_s": wall}
    if result.status is Status.FAILED and result.stderr_tail is None:
        updates["stderr_tail"] = stderr_tail
    return SmokeResult.from_dict({**result.to_dict(), **updates})


def parse_result(stdout: str) -> SmokeResult | None:
    """The last stdout line that is a worker result; None when there is none (or it does not parse)."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
            if data.get("schema") == WORKER_SCHEMA:
                return SmokeResult.from_dict(data["result"])
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    return None


def _last_words(tail: collections.deque[str]) -> str:
    return f" (last stderr line: {tail[-1][:200]})" if tail else ""


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
