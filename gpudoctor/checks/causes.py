"""One primary cause first. Which finding explains which is data: a CPU-only torch explains why CUDA is not
available; a driver too old explains it as well. ``link`` fills each finding's ``explains`` with the ids present in
the report, and ``primary`` picks the finding to lead with."""

from __future__ import annotations

import dataclasses

from ..model import Finding, Severity

# What a framework that sees no GPU reports, whichever framework: a cause of "no GPU" explains each of them.
_UNAVAILABLE = ("torch-cuda-unavailable", "tf-gpu-not-visible", "jax-cuda-backend-failed", "cuda-init-no-device")
EFFECTS = frozenset(_UNAVAILABLE)  # a framework cannot use the GPU: what happened, not why

# cause id -> ids of findings it explains, when both are in one report.
EXPLAINS: dict[str, tuple[str, ...]] = {
    "gpu-without-driver": (*_UNAVAILABLE, "driver-too-old-for-cuda-build", "tf-missing-gpu-libs", "framework-import-failed"),
    "nouveau-loaded": (*_UNAVAILABLE, "gpu-without-driver"),
    "nvml-driver-library-mismatch": (*_UNAVAILABLE, "gpu-without-driver"),
    "container-without-gpu-runtime": (*_UNAVAILABLE, "gpu-without-driver", "tf-missing-gpu-libs"),
    "wsl1-no-gpu-support": (*_UNAVAILABLE, "gpu-without-driver", "tf-missing-gpu-libs"),
    "wsl-libcuda-not-on-loader-path": (*_UNAVAILABLE, "gpu-without-driver"),
    "cuda-visible-devices-hides-all-gpus": _UNAVAILABLE,
    "torch-cpu-only-build": ("torch-cuda-unavailable", "cuda-toolkit-major-mismatch-for-extensions", "torch-extension-built-for-other-torch"),
    "tf-cpu-package-shadows-gpu": ("tf-gpu-not-visible", "tf-missing-gpu-libs"),
    "tf-windows-native-gpu-unsupported": ("tf-gpu-not-visible", "tf-missing-gpu-libs"),
    "driver-too-old-for-cuda-build": (*_UNAVAILABLE, "gpu-arch-ptx-only", "cuda-toolkit-newer-than-driver"),
    "gpu-arch-not-in-build": ("tf-gpu-not-visible",),
    "known-broken-combination": ("tf-gpu-not-visible", "cuda-toolkit-newer-than-driver", "gpu-arch-not-in-build"),
    "tf-missing-gpu-libs": ("tf-gpu-not-visible", "cudnn-failed-to-initialize"),
    "cudnn-version-mismatch": ("tf-gpu-not-visible", "cudnn-failed-to-initialize", "framework-import-failed", "cudnn-not-on-loader-path",
                               "jax-cuda-backend-failed"),
    "ld-library-path-wrong-cuda-libs": (*_UNAVAILABLE, "cudnn-version-mismatch", "loader-cudnn-shadows-framework-cudnn"),
    "loader-cudnn-shadows-framework-cudnn": ("framework-import-failed", "cudnn-version-mismatch", "cudnn-failed-to-initialize"),
    "numpy2-abi-mismatch": ("framework-import-failed",),
    "python-version-no-wheel": ("matrix-unknown-version",),
    "mig-several-instances-visible": _UNAVAILABLE,
    "torch-not-rocm-on-amd-gpu": ("torch-cuda-unavailable", "gpu-without-driver"),
    "jax-version-mismatch": ("jax-cuda-backend-failed",),
    "jax-cpu-only-install": ("jax-cuda-backend-failed",),
    "jax-windows-native-gpu-unsupported": ("jax-cpu-only-install", "jax-cuda-backend-failed", "python-version-no-wheel"),
}


def link(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    present = {f.id for f in findings if f.severity >= Severity.WARNING}
    out = []
    for finding in findings:
        explained = tuple(i for i in EXPLAINS.get(finding.id, ()) if i in present and i != finding.id)
        out.append(dataclasses.replace(finding, explains=explained) if explained and finding.severity >= Severity.WARNING else finding)
    return tuple(out)


def primary(findings: tuple[Finding, ...]) -> str | None:
    """The cause to lead with: the most severe finding not explained by another, the one explaining most first."""
    explained = {i for f in findings for i in f.explains}
    candidates = [f for f in findings if f.severity >= Severity.WARNING and f.id not in explained]
    if not candidates:
        return None
    best = max(candidates, key=lambda f: (f.severity, len(f.explains), -findings.index(f)))
    return best.id
