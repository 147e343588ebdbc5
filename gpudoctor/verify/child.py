"""Runs one smoke test in a child process (``python -m gpudoctor.verify.worker``) through the runner's streaming
spawn, and turns whatever happens into a SmokeResult: a hang is a timeout, a segfault or abort is "child died with
SIGSEGV/SIGABRT", an exit without a result says so -- never a dead or hung gpudoctor, and never a success by default.

The result travels on a private channel: a file in a fresh directory only this run knows, named on the worker's
command line and written atomically by the worker. Nothing the child prints is ever taken as its result, so a
framework that prints JSON (or a forged result line) at exit cannot pass a test. The child's merged stdout/stderr
carries the frameworks' log spam and ``@@gpudoctor-progress`` lines, read as they come (progress) and kept as a
short tail (for the reason of a failure)."""

from __future__ import annotations

import collections
import json
import os
import shutil
import tempfile
from typing import Callable

from gpudoctor import child_start
from gpudoctor.runner import SpawnResult, Spawner, SubprocessRunner
from gpudoctor.verify.model import PROGRESS_PREFIX, WORKER_SCHEMA, CaseRequest, SmokeResult, SmokeStatus
from gpudoctor.workloads.children import child_env, signal_name

TAIL_LINES = 20
RESULT_FILE = "result.json"

ProgressFn = Callable[[int, int, str], None]


def worker_argv(request: CaseRequest, result_file: str) -> list[str]:
    argv = child_start.argv("gpudoctor.verify.worker", "--framework", request.framework.short, "--test", request.test,
                            "--device", request.device, "--result-file", result_file)  # fmt: skip
    if request.amp is True:
        argv.append("--amp")
    elif request.amp is False:
        argv.append("--no-amp")
    for path in request.weights:
        argv += ["--weights", path]
    return argv


def _is_noise(line: str) -> bool:
    return "/job:localhost/" in line  # TensorFlow's placement log (captured separately by the TF case)


def run_case(request: CaseRequest, timeout: float, on_progress: ProgressFn | None = None,
             spawner: Spawner | None = None) -> SmokeResult:  # fmt: skip
    spawner = spawner or SubprocessRunner()
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)

    def on_line(line: str) -> None:
        if line.startswith(PROGRESS_PREFIX):
            parts = line.split(" ", 3)
            if on_progress is not None and len(parts) >= 3:
                try:
                    on_progress(int(parts[1]), int(parts[2]), parts[3] if len(parts) > 3 else "")
                except ValueError:
                    pass
        elif line.strip() and not _is_noise(line):
            tail.append(line)

    private = tempfile.mkdtemp(prefix="gpudoctor-verify-")  # mode 0700: only this user can write the result
    try:
        path = os.path.join(private, RESULT_FILE)
        spawned = spawner.spawn(worker_argv(request, path), timeout=timeout, env=child_env(), on_line=on_line)
        text = _read(path)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    return judge_child(request, spawned, text, list(tail), timeout)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        return f"<unreadable: {exc}>"


def judge_child(request: CaseRequest, spawned: SpawnResult, text: str | None, tail: list[str],
                timeout: float) -> SmokeResult:  # fmt: skip
    """How the child ended and what it wrote -> the test's result. Only a child that exited 0 after writing a
    well-formed result for this very test can pass; everything else is a failed test that says what happened."""
    base = {"framework": request.framework, "test": request.test, "wall_s": spawned.wall_s}
    stderr_tail = "\n".join(tail) or None
    last = f" (last output line: {tail[-1][:200]})" if tail else ""

    def failed(reason: str) -> SmokeResult:
        return SmokeResult(**base, status=SmokeStatus.FAILED, reason=reason, stderr_tail=stderr_tail)

    if spawned.returncode is None and not spawned.timed_out:
        return failed(f"could not start the child process: {spawned.error}")
    result, problem = parse_result(text, request) if text is not None else (None, None)
    if spawned.timed_out:
        return failed(f"timed out after {timeout:g}s: the child hung or is far slower than it should be (it was killed)")
    rc = spawned.returncode
    assert rc is not None
    if rc != 0:
        how = f"child died with {signal_name(-rc)}" if rc < 0 else f"child exited with status {rc}"
        if result is None:
            return failed(f"{how} without writing a result{last}")
        # A result followed by a crash is not a pass: the process that trained did not end cleanly. Keep its numbers.
        reason = f"{how} after writing its result" + (f"; {result.reason}" if result.reason else "")
        crashed = {**base, "status": SmokeStatus.FAILED.value, "reason": reason, "stderr_tail": stderr_tail}
        return SmokeResult.from_dict({**result.to_dict(), **crashed})
    if text is None:
        return failed(f"child exited with status 0 without writing a result{last}")
    if result is None:
        return failed(f"child wrote a result that is not one: {problem}")
    updates: dict[str, object] = {"wall_s": spawned.wall_s}
    if result.status is SmokeStatus.FAILED and result.stderr_tail is None:
        updates["stderr_tail"] = stderr_tail
    return SmokeResult.from_dict({**result.to_dict(), **updates})


def parse_result(text: str, request: CaseRequest) -> tuple[SmokeResult | None, str | None]:
    """The worker's result document -> (result, None), or (None, what is wrong with it)."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("schema") != WORKER_SCHEMA:
            return None, f"not a {WORKER_SCHEMA} document"
        result = SmokeResult.from_dict(data["result"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return None, f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
    if (result.framework, result.test) != (request.framework, request.test):
        return None, f"it answers for {result.framework.short} {result.test}, not {request.framework.short} {request.test}"
    return result, None
