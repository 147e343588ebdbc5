"""The child process of ``gpudoctor verify``: runs the smoke tests of ONE framework, one after another in this process
(the framework is imported and the device initialised once), and writes one JSON document per test.

    python -m gpudoctor.verify.worker --framework torch|tf|jax --test cnn|lstm|transfer --result-file PATH [--device D]
                                      [--amp|--no-amp] [--weights PATH ...]
    python -m gpudoctor.verify.worker --framework torch|tf|jax --tests cnn,lstm,transfer --result-dir DIR
                                      --test-timeout SECONDS [--device D] [--amp|--no-amp] [--weights PATH ...]

With --tests, each test's result goes to DIR/TEST.json, and stderr carries ``@@gpudoctor-case TEST`` before a test
starts and ``@@gpudoctor-case-done TEST`` once its result is on disk. Each test has its own timeout: a watchdog
thread writes DIR/TEST.timeout and kills this process with SIGKILL when a test runs past --test-timeout (a hang in
native code still releases the GIL while it waits, so the watchdog runs); the parent reruns the tests after it in a
fresh child.

This is the only module that imports torch, tensorflow or jax (through torch_cases / tf_cases / jax_cases). The result goes only to
the private file the parent named (written to a temporary name, then renamed, so a half-written result is never
read); whatever the frameworks print is log output, never a result. Progress goes to stderr as
``@@gpudoctor-progress DONE TOTAL PHASE`` lines.

Test-only fault injection (for gpudoctor's own tests; not a user option): GPUDOCTOR_VERIFY_FAULT=FAULT, or
FAULT@TEST for one test only (``abort@lstm``: the LSTM test aborts, the others run), where FAULT is
  hang      sleep forever before doing anything (the parent's timeout must kill it)
  abort     os.abort() (the parent must report "child died with SIGABRT")
  lr0       train with learning rate 0 (the "learned" check must fail)
  noresult  exit 0 without writing a result
  forged    print a well-formed passing result on stdout and exit 0 without writing the file (must fail)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from typing import Any

from gpudoctor.matrix.tables.framework import Framework
from gpudoctor.verify.model import (
    PROGRESS_PREFIX,
    WORKER_SCHEMA,
    CaseFailed,
    CaseRequest,
    SmokeCheck,
    NoDevice,
    SmokeResult,
    SmokeStatus,
)

FAULT_ENV = "GPUDOCTOR_VERIFY_FAULT"
_MODULES = {Framework.TORCH: "torch", Framework.TENSORFLOW: "tensorflow", Framework.JAX: "jax"}


TESTS = ("cnn", "lstm", "transfer")
CASE_PREFIX = "@@gpudoctor-case"  # "@@gpudoctor-case TEST" (starting) and "@@gpudoctor-case-done TEST" (result on disk)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m gpudoctor.verify.worker")
    p.add_argument("--framework", required=True, choices=[f.short for f in Framework])
    p.add_argument("--test", choices=TESTS)
    p.add_argument("--tests", help="comma-separated tests to run in this process, in order (with --result-dir)")
    p.add_argument("--device", default="auto")
    p.add_argument("--amp", dest="amp", action="store_true", default=None)
    p.add_argument("--no-amp", dest="amp", action="store_false")
    p.add_argument("--weights", action="append", default=[])
    p.add_argument("--result-file")
    p.add_argument("--result-dir")
    p.add_argument("--test-timeout", type=float, default=None)
    return p


def parse(argv: list[str] | None) -> tuple[CaseRequest, str]:
    """The one-test command line -> (request, result file)."""
    p = _parser()
    a = p.parse_args(argv)
    if a.test is None or a.result_file is None:
        p.error("--test and --result-file go together (or --tests with --result-dir)")
    return CaseRequest(a.framework, a.test, a.device, a.amp, tuple(a.weights)), a.result_file


def parse_many(argv: list[str] | None) -> tuple[list[CaseRequest], str, float | None]:
    """The several-tests command line -> (requests in order, result directory, per-test timeout)."""
    p = _parser()
    a = p.parse_args(argv)
    tests = [t for t in (a.tests or "").split(",") if t]
    if not tests or a.result_dir is None or any(t not in TESTS for t in tests):
        p.error(f"--tests takes a comma-separated list of {', '.join(TESTS)}, with --result-dir")
    return [CaseRequest(a.framework, t, a.device, a.amp, tuple(a.weights)) for t in tests], a.result_dir, a.test_timeout


def progress(done: int, total: int, phase: str) -> None:
    sys.stderr.write(f"{PROGRESS_PREFIX} {done} {total} {phase}\n")
    sys.stderr.flush()


def measure(request: CaseRequest) -> SmokeResult:
    """Run the case in this process; whatever goes wrong inside it is a failed result with its reason."""
    base: dict[str, Any] = {"framework": request.framework, "test": request.test}
    try:
        if request.framework is Framework.TORCH:
            from gpudoctor.verify.torch_cases import case as cases
        elif request.framework is Framework.JAX:
            from gpudoctor.verify.jax_cases import case as cases  # type: ignore[no-redef]
        else:
            from gpudoctor.verify.tf_cases import case as cases  # type: ignore[no-redef]
    except Exception as exc:  # noqa: BLE001 - a broken install raises anything (OSError for a missing .so, ...)
        name = request.framework.label
        reason = " ".join(f"import of {name} failed: {type(exc).__name__}: {exc}".split())[:500]
        return SmokeResult(**base, status=SmokeStatus.FAILED, reason=reason, framework_path=framework_path(request.framework))
    base["framework_path"] = framework_path(request.framework)
    try:
        out = cases.run(request, progress)
    except (NoDevice, CaseFailed) as exc:
        return SmokeResult(**base, status=SmokeStatus.FAILED, reason=str(exc), device=request.device)
    except Exception as exc:  # noqa: BLE001 - a crash in the case is a failed test with its reason
        tb = traceback.format_exc()
        sys.stderr.write(tb)
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        return SmokeResult(**base, status=SmokeStatus.FAILED, reason=reason[:500], stderr_tail="\n".join(tb.splitlines()[-15:]))
    checks: list[SmokeCheck] = out.pop("checks")
    notes = tuple(out.pop("notes", ()))
    failed = [c for c in checks if c.status is SmokeStatus.FAILED]
    return SmokeResult(
        **base,
        **out,
        status=SmokeStatus.FAILED if failed else SmokeStatus.PASSED,
        reason="; ".join(f"{c.name}: {c.detail}" for c in failed) or None,
        checks=tuple(checks),
        notes=notes,
    )


def framework_path(framework: Framework) -> str | None:
    """Where the framework this child imported (or tried to import) lives: its package directory, so the report says
    which of several installs was tested (a venv's, or one first on PYTHONPATH from `module load`)."""
    import importlib.util

    name = _MODULES[framework]
    origin = getattr(sys.modules.get(name), "__file__", None)
    if origin is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
    if not origin:
        return None
    return os.path.dirname(origin) if os.path.basename(origin) == "__init__.py" else origin


def write_result(path: str, result: SmokeResult) -> None:
    tmp = f"{path}.partial"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps({"schema": WORKER_SCHEMA, "result": result.to_dict()}))
    os.replace(tmp, path)


def fault_for(test: str) -> str:
    """The injected fault for this test: GPUDOCTOR_VERIFY_FAULT=abort (every test) or abort@lstm (that test)."""
    fault, _, only = os.environ.get(FAULT_ENV, "").partition("@")
    return fault if not only or only == test else ""


def case_line(test: str, done: bool = False) -> None:
    sys.stderr.write(f"{CASE_PREFIX}{'-done' if done else ''} {test}\n")
    sys.stderr.flush()


def _with_fault(request: CaseRequest) -> CaseRequest | None:
    """The request as the injected fault of its test leaves it (FAULT_ENV, for the parent's tests); None: this
    process ends here without writing a result."""
    fault = fault_for(request.test)
    if fault == "hang":
        time.sleep(24 * 3600)
    elif fault == "abort":
        os.abort()
    elif fault == "noresult":
        return None
    elif fault == "forged":
        forged = SmokeResult(request.framework, request.test, SmokeStatus.PASSED)
        print(json.dumps({"schema": WORKER_SCHEMA, "result": forged.to_dict()}), flush=True)
        return None
    elif fault == "lr0":
        return CaseRequest(request.framework, request.test, request.device, request.amp, request.weights, 0.0)
    return request


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if "--tests" in argv or any(a.startswith("--tests=") for a in argv):
        return main_many(argv)
    request, result_file = parse(argv)
    request = _with_fault(request)
    if request is None:
        return 0
    result = measure(request)
    write_result(result_file, result)
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


def main_many(argv: list[str]) -> int:
    """Several tests of one framework in this process, each with its own result file and timeout."""
    requests, result_dir, test_timeout = parse_many(argv)
    for request in requests:
        case_line(request.test)
        watchdog = _watchdog(os.path.join(result_dir, f"{request.test}.timeout"), test_timeout)
        request = _with_fault(request)
        if request is None:
            return 0
        start = time.perf_counter()
        result = measure(request)
        if watchdog is not None:
            watchdog.cancel()
        result = SmokeResult.from_dict({**result.to_dict(), "wall_s": time.perf_counter() - start})
        write_result(os.path.join(result_dir, f"{request.test}.json"), result)
        case_line(request.test, done=True)
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


def _watchdog(marker: str, seconds: float | None):  # -> threading.Timer | None
    """Kill this process when the current test runs past ``seconds``, leaving ``marker`` to say it timed out."""
    if not seconds or seconds <= 0:
        return None
    import signal
    import threading

    def fire() -> None:
        try:
            with open(marker, "w", encoding="utf-8") as f:
                f.write(f"{seconds:g}")
        finally:
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGKILL)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    return timer


if __name__ == "__main__":
    sys.exit(main())
