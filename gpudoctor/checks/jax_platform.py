"""JAX publishes CUDA builds for Linux only: native Windows and macOS get the CPU jaxlib, whatever is asked for
(https://docs.jax.dev/en/latest/installation.html#supported-platforms: NVIDIA GPU on Windows x86_64 "no", on WSL2
"experimental"). A request for a +cuda jaxlib that pip cannot find beside plain versions, or JAX on Windows beside a
GPU, is that platform gap."""

from __future__ import annotations

from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import gpu_presence, symptoms

SUPPORTED_PLATFORMS = "https://docs.jax.dev/en/latest/installation.html#supported-platforms"


def _cuda_jaxlib_not_offered(facts: Facts) -> list:
    """pip's "(from versions: ...)" for a +cuda jaxlib, listing only plain (CPU) versions."""
    out = []
    for s in symptoms(facts, "pip-offered-versions"):
        wanted, _, offered = (s.subject or "").partition("|")
        if wanted.startswith("jaxlib==") and "+cuda" in wanted and offered.strip() not in ("", "none") and "cuda" not in offered:
            out.append(s)
    return out


def jax_windows_native_gpu_unsupported(facts: Facts, matrix: object) -> Iterator[Finding]:
    refused = _cuda_jaxlib_not_offered(facts)
    host = facts.host
    jax = facts.frameworks.jax if facts.frameworks else None
    on_windows = host is not None and host.os == "windows" and not host.wsl
    fell_back = bool(symptoms(facts, "jax-no-accelerator"))  # JAX itself ran, found no GPU
    if not refused and not (on_windows and (jax is not None or fell_back) and (fell_back or gpu_presence(facts) is True)):
        return
    evidence = [f"log: {s.text}" for s in refused[:1]]
    if on_windows:
        evidence.append(f"this is native Windows ({host.os_release or 'windows'})")
    evidence.append("JAX publishes CUDA jaxlib wheels for Linux only; on Windows, JAX's GPU support is through WSL2")
    no_cuda_platform = on_windows or (host is not None and host.os == "darwin")
    if not no_cuda_platform:
        # pip's list alone does not say the platform: on Linux, +cuda jaxlib wheels came from JAX's own index (-f URL),
        # and a Python newer than the pinned release also leaves only newer plain versions
        evidence.append("the platform is not known here: on Linux, a +cuda jaxlib comes only from JAX's own index "
                        "(pip's -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html) and only for the Pythons "
                        "that release supports")
    yield Finding(
        "jax-windows-native-gpu-unsupported", Severity.ERROR if no_cuda_platform else Severity.WARNING, Section.JAX,
        "JAX has no CUDA build for " + ("native Windows" if on_windows else "this platform") + ": only the CPU jaxlib installs here",
        tuple(evidence),
        Fix("Run JAX with CUDA in WSL2 (Ubuntu) on this machine, or on Linux; the Windows driver serves WSL2",
            ("wsl --install -d Ubuntu   # from PowerShell, then inside WSL:", 'pip install -U "jax[cuda12]"'),
            SUPPORTED_PLATFORMS),
    )


CHECKS = (jax_windows_native_gpu_unsupported,)
