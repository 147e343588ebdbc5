"""The results of ``gpudoctor verify``: frozen dataclasses, JSON round-trip, no framework import.

A smoke test (one framework x one test) ends ``passed``, ``failed`` (with the check that failed and by how much) or
``skipped`` (not applicable here: framework not installed, nothing to compare on a CPU ...). Skips are not failures.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from gpudoctor.matrix.tables.framework import Framework
from gpudoctor.workloads import CaseFailed, NoDevice  # noqa: F401 - where verify's modules import them from

VERIFY_SCHEMA = "gpudoctor.verify/1"
WORKER_SCHEMA = "gpudoctor.verify.worker/1"
PROGRESS_PREFIX = "@@gpudoctor-progress"  # the worker's progress lines (here, so the parent never imports the worker)

TEST_NAMES = {"cnn": "CNN", "lstm": "LSTM", "transfer": "transfer learning", "ddp": "DDP across ranks",
              "mirrored": "MirroredStrategy across replicas"}


class SmokeStatus(str, enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class SmokeCheck:
    """One thing a smoke test proved (or failed to prove), with the numbers it measured."""

    name: str  # "learned" | "placement" | "agreement" | "frozen" | "amp" | "device" | "weights"
    status: SmokeStatus
    detail: str  # one line, with the measured values and the threshold
    measured: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SmokeCheck":
        return cls(
            name=str(data["name"]),
            status=SmokeStatus(data["status"]),
            detail=str(data.get("detail", "")),
            measured=dict(data.get("measured") or {}),
        )


def _framework(value: Framework | str) -> Framework:
    """Any spelling ("tf", "tensorflow", Framework.TENSORFLOW) -> the enum; the JSON keeps the short name ("tf")."""
    return value if isinstance(value, Framework) else Framework.parse(value)


@dataclass(frozen=True)
class SmokeResult:
    """One smoke test's outcome: passed, failed or skipped and why, where it ran, and how training went."""

    framework: Framework  # accepts any spelling Framework.parse does; written to JSON as its short name ("tf")
    test: str  # "cnn" | "lstm" | "transfer"
    status: SmokeStatus
    reason: str | None = None  # why it failed or was skipped; None when it passed
    device: str | None = None  # "cpu", "cuda:0"
    device_name: str | None = None  # "NVIDIA H100 80GB HBM3", "CPU"
    device_note: str | None = None  # why it ran where it ran ("no CUDA device is visible to PyTorch ...")
    framework_version: str | None = None
    framework_path: str | None = None  # the package the child imported (or tried to): which torch was tested
    steps: int | None = None
    batch_size: int | None = None
    first_loss: float | None = None  # held-out loss before training
    last_loss: float | None = None  # held-out loss after training
    accuracy: float | None = None  # held-out accuracy after training
    chance: float | None = None  # accuracy of guessing
    samples_per_s: float | None = None
    train_s: float | None = None  # the training loop alone
    wall_s: float | None = None  # the whole child process, start-up and import included
    peak_mem_mib: float | None = None  # peak device memory where the framework reports it (CUDA only)
    weights: str | None = None  # transfer learning: where the backbone's weights came from
    checks: tuple[SmokeCheck, ...] = ()
    notes: tuple[str, ...] = ()
    stderr_tail: str | None = None  # the child's last stderr lines when it failed outside a check

    def __post_init__(self) -> None:
        object.__setattr__(self, "framework", _framework(self.framework))

    @property
    def label(self) -> str:
        return f"{self.framework.label} {TEST_NAMES.get(self.test, self.test)}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["framework"] = self.framework.short
        data["status"] = self.status.value
        data["checks"] = [{**asdict(c), "status": c.status.value} for c in self.checks]
        data["notes"] = list(self.notes)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SmokeResult":
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["status"] = SmokeStatus(data["status"])
        kwargs["checks"] = tuple(SmokeCheck.from_dict(c) for c in data.get("checks") or ())
        kwargs["notes"] = tuple(str(n) for n in data.get("notes") or ())
        return cls(**kwargs)


@dataclass(frozen=True)
class VerifyOptions:
    """What `gpudoctor verify` was asked to run: frameworks, tests, device, mixed precision, weights, multi-GPU."""

    frameworks: tuple[Framework, ...] = (Framework.TORCH, Framework.TENSORFLOW, Framework.JAX)
    tests: tuple[str, ...] = ("cnn", "lstm", "transfer")
    device: str = "auto"  # "auto" | "cpu" | "cuda" | "cuda:N"
    amp: bool | None = None  # None: on when the GPU has compute capability >= 7.0
    weights: tuple[str, ...] = ()
    timeout_s: float = 300.0
    multi_gpu: bool | None = None  # None: the DDP run happens when more than one GPU is visible; True: only it
    nproc: int | None = None  # force N gloo ranks on the CPU for the DDP run
    gpus: int | None = None  # the GPUs visible to CUDA, as the parent counted them (None: unknown)

    def __post_init__(self) -> None:
        object.__setattr__(self, "frameworks", tuple(_framework(f) for f in self.frameworks))


@dataclass(frozen=True)
class VerifyReport:
    """A whole `gpudoctor verify` run: the options and each smoke test's result."""

    options: VerifyOptions
    results: tuple[SmokeResult, ...]
    wall_s: float | None = None
    children: int | None = None  # the smoke tests' child processes: one per framework when nothing fails

    def count(self, status: SmokeStatus) -> int:
        return sum(1 for r in self.results if r.status is status)

    @property
    def ok(self) -> bool:
        """No test failed and at least one ran and passed: skips are not failures, but a run that proved nothing
        (no framework installed, every test skipped) is not a success either."""
        return self.count(SmokeStatus.FAILED) == 0 and self.count(SmokeStatus.PASSED) > 0


@dataclass(frozen=True)
class CaseRequest:
    """What the parent asks one child to run (the worker's command line, parsed)."""

    framework: Framework  # any spelling Framework.parse accepts; the worker's --framework takes the short name
    test: str
    device: str = "auto"
    amp: bool | None = None
    weights: tuple[str, ...] = ()
    lr_scale: float = 1.0  # 0.0 only under the test-only fault GPUDOCTOR_VERIFY_FAULT=lr0

    def __post_init__(self) -> None:
        object.__setattr__(self, "framework", _framework(self.framework))
