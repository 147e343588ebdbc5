"""The child process of ``gpudoctor verify``: runs ONE smoke test and writes ONE JSON document to --result-file.

    python -m gpudoctor.verify.worker --framework torch|tf|jax --test cnn|lstm|transfer --result-file PATH [--device D]
                                      [--amp|--no-amp] [--weights PATH ...]

This is the only module that imports torch, tensorflow or jax (through torch_cases / tf_cases / jax_cases). The result goes only to
the private file the parent named (written to a temporary name, then renamed, so a half-written result is never
read); whatever the frameworks print is log output, never a result. Progress goes to stderr as
``@@gpudoctor-progress DONE TOTAL PHASE`` lines.

Test-only fault injection (for gpudoctor's own tests; not a user option): GPUDOCTOR_VERIFY_FAULT=
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

from gpudoctor.matrix.framework import Framework
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


def parse(argv: list[str] | None) -> tuple[CaseRequest, str]:
    p = argparse.ArgumentParser(prog="python -m gpudoctor.verify.worker")
    p.add_argument("--framework", required=True, choices=[f.short for f in Framework])
    p.add_argument("--test", required=True, choices=["cnn", "lstm", "transfer"])
    p.add_argument("--device", default="auto")
    p.add_argument("--amp", dest="amp", action="store_true", default=None)
    p.add_argument("--no-amp", dest="amp", action="store_false")
    p.add_argument("--weights", action="append", default=[])
    p.add_argument("--result-file", required=True)
    a = p.parse_args(argv)
    return CaseRequest(a.framework, a.test, a.device, a.amp, tuple(a.weights)), a.result_file


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


def main(argv: list[str] | None = None) -> int:
    request, result_file = parse(argv)
    fault = os.environ.get(FAULT_ENV, "")
    if fault == "hang":
        time.sleep(24 * 3600)
    elif fault == "abort":
        os.abort()
    elif fault == "noresult":
        return 0
    elif fault == "forged":
        forged = SmokeResult(request.framework, request.test, SmokeStatus.PASSED)
        print(json.dumps({"schema": WORKER_SCHEMA, "result": forged.to_dict()}), flush=True)
        return 0
    elif fault == "lr0":
        request = CaseRequest(request.framework, request.test, request.device, request.amp, request.weights, 0.0)
    result = measure(request)
    write_result(result_file, result)
    sys.stdout.flush()
    sys.stderr.flush()
    # The result is safe on disk; skip the interpreter's teardown, where frameworks' atexit hooks and C++
    # destructors are known to crash, which would turn a passed test into "died with SIGSEGV" for no training fault.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
