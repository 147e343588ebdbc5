"""Runs smoke tests in child processes (``python -m gpudoctor.verify.worker``) through the runner's streaming spawn:
one child for a framework's tests (run_framework), or one for a single test (run_case), and turns whatever happens
to each test into a SmokeResult: a hang is a timeout, a segfault or abort is "child died with
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
import time
from dataclasses import dataclass
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
    return argv + _options(request)


def _options(request: CaseRequest) -> list[str]:
    """The worker options a request carries beside its test: AMP on or off, and pretrained weights files."""
    out = ["--amp"] if request.amp is True else ["--no-amp"] if request.amp is False else []
    for path in request.weights:
        out += ["--weights", path]
    return out


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


CASE_PREFIX = "@@gpudoctor-case"  # the worker's "@@gpudoctor-case TEST" / "@@gpudoctor-case-done TEST" lines
StartFn = Callable[[CaseRequest], None]
CaseProgressFn = Callable[[CaseRequest, int, int, str], None]


def many_argv(requests: list[CaseRequest], result_dir: str, test_timeout: float) -> list[str]:
    first = requests[0]
    argv = child_start.argv("gpudoctor.verify.worker", "--framework", first.framework.short,
                            "--tests", ",".join(r.test for r in requests), "--device", first.device, "--result-dir", result_dir,
                            "--test-timeout", f"{test_timeout:g}")  # fmt: skip
    return argv + _options(first)


@dataclass
class FrameworkRun:
    """The results of one framework's tests and how many child processes they took."""

    results: list[SmokeResult]
    children: int


def run_framework(requests: list[CaseRequest], timeout: float, on_start: StartFn | None = None,
                  on_progress: CaseProgressFn | None = None, spawner: Spawner | None = None) -> FrameworkRun:  # fmt: skip
    """The tests of one framework (same device, precision and weights), in one child process when nothing fails:
    the framework is imported and the device initialised once. Each test keeps its own timeout (``timeout``) and
    result; a crash, hang or abort in one is that test's failure with its reason, and the tests after it run in a
    fresh child. A single test runs as run_case runs it."""
    results: list[SmokeResult] = []
    children = 0
    remaining = list(requests)
    while remaining:
        children += 1
        if len(remaining) == 1:
            request = remaining.pop()
            if on_start is not None:
                on_start(request)
            progress = (lambda d, t, ph, r=request: on_progress(r, d, t, ph)) if on_progress is not None else None
            results.append(run_case(request, timeout, progress, spawner))
            break
        done, remaining = _run_many(remaining, timeout, on_start, on_progress, spawner)
        results += done
    return FrameworkRun(results, children)


def _run_many(requests: list[CaseRequest], timeout: float, on_start: StartFn | None, on_progress: CaseProgressFn | None,
              spawner: Spawner | None) -> tuple[list[SmokeResult], list[CaseRequest]]:  # fmt: skip
    """One child for ``requests`` -> (the results it settled, the requests left for a fresh child)."""
    spawner = spawner or SubprocessRunner()
    by_test = {r.test: r for r in requests}
    tails: dict[str, collections.deque[str]] = {r.test: collections.deque(maxlen=TAIL_LINES) for r in requests}
    state: dict[str, object] = {"current": None, "started": [], "marks": {}}
    clock = time.perf_counter

    def on_line(line: str) -> None:
        current = state["current"]
        if line.startswith(CASE_PREFIX):
            word, _, test = line.partition(" ")
            test = test.strip()
            if test in by_test:
                state["marks"][(word, test)] = clock()  # type: ignore[index]
                if word == CASE_PREFIX:
                    state["current"] = test
                    state["started"].append(test)  # type: ignore[attr-defined]
                    if on_start is not None:
                        on_start(by_test[test])
            return
        if line.startswith(PROGRESS_PREFIX):
            parts = line.split(" ", 3)
            if on_progress is not None and current is not None and len(parts) >= 3:
                try:
                    on_progress(by_test[current], int(parts[1]), int(parts[2]), parts[3] if len(parts) > 3 else "")  # type: ignore[index]
                except ValueError:
                    pass
        elif line.strip() and not _is_noise(line):
            tails[current if current is not None else requests[0].test].append(line)  # type: ignore[index]

    private = tempfile.mkdtemp(prefix="gpudoctor-verify-")  # mode 0700: only this user can write the results
    try:
        began = clock()
        # The worker's watchdog keeps each test to ``timeout``; this one bounds the whole child should the watchdog
        # itself be stuck (a hang that holds the GIL): every test's timeout, plus as much again (at most a minute)
        # for the start-up.
        spawned = spawner.spawn(many_argv(requests, private, timeout), timeout=timeout * len(requests) + min(timeout, 60),
                                env=child_env(), on_line=on_line)  # fmt: skip
        texts = {r.test: _read(os.path.join(private, f"{r.test}.json")) for r in requests}
        timed_out = {r.test for r in requests if os.path.exists(os.path.join(private, f"{r.test}.timeout"))}
    finally:
        shutil.rmtree(private, ignore_errors=True)
    started: list[str] = state["started"]  # type: ignore[assignment]
    marks: dict = state["marks"]  # type: ignore[assignment]
    results: list[SmokeResult] = []
    previous_end = began
    for index, request in enumerate(requests):
        test = request.test
        went_on = index + 1 < len(requests) and requests[index + 1].test in started  # a later test began: this one ended cleanly
        end = marks.get((f"{CASE_PREFIX}-done", test))
        wall = (end - previous_end) if end is not None else None
        if texts[test] is not None and went_on:
            ended = SpawnResult(spawned.argv, 0, wall_s=wall if wall is not None else spawned.wall_s)
        else:
            ended = SpawnResult(spawned.argv, spawned.returncode, spawned.timed_out or test in timed_out, spawned.error,
                                wall_s=(clock() - previous_end) if spawned.returncode is not None else spawned.wall_s)  # fmt: skip
        if test not in started and on_start is not None:
            on_start(request)  # it never began (the child died before it): say so before its result
        results.append(judge_child(request, ended, texts[test], list(tails[test]), timeout))
        if end is not None:
            previous_end = end
        if not went_on:
            return results, requests[index + 1:]
    return results, []


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
