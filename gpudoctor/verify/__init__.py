"""``gpudoctor verify``: short CNN, LSTM and transfer-learning training runs under PyTorch, TensorFlow and JAX, one child
process per framework, that prove the frameworks really train on this machine's GPU (or say plainly that they ran on
the CPU, and why).

Importing this package imports no framework (only gpudoctor.verify.worker, in the child, does);
installed frameworks are found with importlib.util.find_spec.
"""

from __future__ import annotations

import importlib.util
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor.matrix.tables.framework import Framework
from gpudoctor.verify.model import (
    TEST_NAMES,
    CaseRequest,
    SmokeResult,
    SmokeStatus,
    VerifyOptions,
    VerifyReport,
)

if TYPE_CHECKING:
    from gpudoctor.verify.multigpu import MultiGpuPlan
    from gpudoctor.runner import Spawner

FRAMEWORKS = (Framework.TORCH, Framework.TENSORFLOW, Framework.JAX)
TESTS = ("cnn", "lstm", "transfer")
DEVICE_PATTERN = re.compile(r"^(auto|cpu|cuda|cuda:[0-9]{1,4}|mps|xpu|xpu:[0-9]{1,4}|directml)$")  # ASCII digits: int() would take "cuda:٣" too

# The Python modules each case needs, and what to install when one is missing.
_REQUIRES = {
    (Framework.TORCH, "cnn"): ("torch",),
    (Framework.TORCH, "lstm"): ("torch",),
    (Framework.TORCH, "transfer"): ("torch", "torchvision"),
    (Framework.TENSORFLOW, "cnn"): ("tensorflow", "keras"),
    (Framework.TENSORFLOW, "lstm"): ("tensorflow", "keras"),
    (Framework.TENSORFLOW, "transfer"): ("tensorflow", "keras"),
    (Framework.JAX, "cnn"): ("jax", "jaxlib"),
    (Framework.JAX, "lstm"): ("jax", "jaxlib"),
    (Framework.JAX, "transfer"): ("jax", "jaxlib"),
    (Framework.TORCH, "ddp"): ("torch",),
    (Framework.TENSORFLOW, "mirrored"): ("tensorflow", "keras"),
}
_INSTALL = {"torch": "pip install torch", "torchvision": "pip install torchvision", "tensorflow": "pip install tensorflow",
            "keras": "pip install keras", "jax": "pip install jax", "jaxlib": "pip install jax"}  # fmt: skip
_DISPLAY = {"torch": "PyTorch", "torchvision": "torchvision", "tensorflow": "TensorFlow", "keras": "Keras", "jax": "JAX",
            "jaxlib": "jaxlib"}  # fmt: skip


@dataclass(frozen=True)
class Case:
    """One smoke test to run: a framework and a test (cnn, lstm or transfer)."""

    framework: Framework
    test: str

    @property
    def label(self) -> str:
        return f"{self.framework.label} {TEST_NAMES[self.test]}"


def cases(frameworks: tuple[Framework, ...], tests: tuple[str, ...]) -> list[Case]:
    """The registry: framework x test, in a fixed order (torch, TensorFlow, JAX; cnn, lstm, transfer)."""
    return [Case(f, t) for f in FRAMEWORKS if f in frameworks for t in TESTS if t in tests]


def _find_spec(name: str) -> object | None:
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def missing_reason(case: Case) -> str | None:
    """Why this case cannot run here (a module is not installed), or None. Nothing is imported."""
    missing = [m for m in _REQUIRES[(case.framework, case.test)] if _find_spec(m) is None]
    if not missing:
        return None
    names = " and ".join(_DISPLAY[m] for m in missing)
    verb = "is" if len(missing) == 1 else "are"
    return f"{names} {verb} not installed ({'; '.join(dict.fromkeys(_INSTALL[m] for m in missing))})"


class Listener:
    """What run_verify tells its caller as it goes (the CLI draws progress bars from it). No-ops by default."""

    def started(self, case: Case) -> None: ...

    def progress(self, case: Case, done: int, total: int, phase: str) -> None: ...

    def finished(self, case: Case, result: SmokeResult) -> None: ...


def run_verify(options: VerifyOptions, listener: Listener | None = None,
               spawner: Spawner | None = None) -> VerifyReport:  # fmt: skip
    """Run every selected case, one child process per framework (through ``spawner``, the runner's streaming spawn
    unless a test passes a fake; a test that fails takes its child with it and the tests after it get a fresh
    one), and collect the results in the registry's order."""
    from gpudoctor.verify import child

    from gpudoctor.verify.multigpu import plan

    listener = listener or Listener()
    start = time.perf_counter()
    results = []
    distributed = Framework.TORCH in options.frameworks or Framework.TENSORFLOW in options.frameworks
    multi = plan(options.multi_gpu, options.nproc, options.gpus) if distributed else None
    single = () if options.multi_gpu is True or options.nproc is not None else cases(options.frameworks, options.tests)
    children = 0
    for framework in FRAMEWORKS:
        # One child per framework: its runnable tests share the import and the device's initialisation; a test
        # that cannot run here is skipped without a child.
        runnable: list[Case] = []
        for case in (c for c in single if c.framework is framework):
            why = missing_reason(case)
            if why is None:
                runnable.append(case)
                continue
            listener.started(case)
            result = SmokeResult(case.framework, case.test, SmokeStatus.SKIPPED, reason=why)
            results.append(result)
            listener.finished(case, result)
        if not runnable:
            continue
        requests = [CaseRequest(c.framework, c.test, options.device, options.amp, options.weights) for c in runnable]
        ran = child.run_framework(
            requests, options.timeout_s,
            lambda r: listener.started(Case(r.framework, r.test)),
            lambda r, done, total, phase: listener.progress(Case(r.framework, r.test), done, total, phase),
            spawner,
        )  # fmt: skip
        children += ran.children
        for case, result in zip(runnable, ran.results):
            listener.finished(case, result)
        results += ran.results
    results.sort(key=lambda r: [(c.framework, c.test) for c in single].index((r.framework, r.test)))
    if multi is not None and Framework.TORCH in options.frameworks:
        results.append(_run_ddp(multi, options, listener, spawner))
    if multi is not None and Framework.TENSORFLOW in options.frameworks:
        results.append(_run_mirrored(multi, options, listener, spawner))
    return VerifyReport(options, tuple(results), wall_s=time.perf_counter() - start, children=children)


def _run_ddp(multi: MultiGpuPlan, options: VerifyOptions, listener: Listener, spawner: Spawner | None) -> SmokeResult:
    import dataclasses

    from gpudoctor.verify.multigpu.launch import run_ddp

    case = Case("torch", "ddp")
    listener.started(case)
    why = missing_reason(case)
    if why is not None:
        result = SmokeResult("torch", "ddp", SmokeStatus.SKIPPED, reason=why)
    else:
        result = dataclasses.replace(run_ddp(multi.nproc, multi.backend, options.timeout_s, spawner),
                                     device_note=multi.why)  # fmt: skip
    listener.finished(case, result)
    return result


def _run_mirrored(multi: MultiGpuPlan, options: VerifyOptions, listener: Listener, spawner: Spawner | None) -> SmokeResult:
    """TensorFlow's MirroredStrategy over the same devices the DDP run uses: one replica per visible GPU, or the
    CPU split into as many logical devices as the gloo path has ranks."""
    import dataclasses

    from gpudoctor.verify.multigpu.tf_launch import run_mirrored

    case = Case(Framework.TENSORFLOW, "mirrored")
    listener.started(case)
    why = missing_reason(case)
    if why is not None:
        result = SmokeResult(Framework.TENSORFLOW, "mirrored", SmokeStatus.SKIPPED, reason=why)
    else:
        where = "gpu" if multi.backend == "nccl" else "cpu"
        note = (f"{multi.nproc} replicas, one per visible GPU" if where == "gpu" else
                multi.why.replace("gloo ranks on the CPU", "replicas on the CPU, split into logical devices"))  # fmt: skip
        result = dataclasses.replace(run_mirrored(multi.nproc, where, options.timeout_s, spawner), device_note=note)
    listener.finished(case, result)
    return result


def ran_on(report: VerifyReport) -> str:
    """The report's first line: where the tests ran, in plain words."""
    ran = [r for r in report.results if r.status is not SmokeStatus.SKIPPED and r.device_name is not None]
    if not ran:
        no_device = [r for r in report.results if r.reason and r.reason.startswith("no CUDA device")]
        if no_device:
            return f"could not run on {report.options.device}: no CUDA device is visible"
        if report.results and all(r.status is SmokeStatus.SKIPPED for r in report.results):
            return "nothing ran: " + "; ".join(sorted({r.reason or "" for r in report.results}))
        return "no test got as far as choosing a device"
    places: dict[str, list[SmokeResult]] = {}
    for r in ran:
        places.setdefault(_place(r), []).append(r)
    if len(places) == 1:
        return next(iter(places))
    parts = []
    for place, rs in places.items():
        frameworks = sorted({r.framework.label for r in rs})
        parts.append(f"{place} ({', '.join(frameworks)})")
    return "; ".join(parts)


def _place(r: SmokeResult) -> str:
    if r.test in ("ddp", "mirrored") and r.device and r.device.startswith("cpu"):
        return f"on {r.device_note}" if r.device_note else "on the CPU"
    if r.device and r.device.startswith(("cuda", "mps", "xpu", "privateuseone")):  # privateuseone: DirectML's device
        return f"on {r.device_name} ({r.device})"
    note = r.device_note or ""
    if note.startswith("no CUDA device is visible"):
        return "on the CPU: no CUDA device is visible"
    if note == "--device cpu":
        return "on the CPU, as asked (--device cpu)"
    return "on the CPU" + (f": {note}" if note else "")


__all__ = [
    "Case",
    "FRAMEWORKS",
    "TESTS",
    "DEVICE_PATTERN",
    "Listener",
    "cases",
    "missing_reason",
    "ran_on",
    "run_verify",
]
