"""JAX publishes CUDA builds for Linux only: native Windows and macOS get the CPU jaxlib, whatever is asked for. Where
JAX runs on an NVIDIA GPU is data: matrices/jax.toml's [nvidia_gpu_platforms], from the supported-platforms table of
JAX's install guide. A request for a +cuda jaxlib that pip cannot find beside plain versions, or JAX on Windows
beside a GPU, is that platform gap."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import gpu_presence, symptoms

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix

SUPPORTED_PLATFORMS = "https://docs.jax.dev/en/latest/installation.html#supported-platforms"


def _cuda_jaxlib_not_offered(facts: Facts) -> list:
    """pip's "(from versions: ...)" for a +cuda jaxlib, listing only plain (CPU) versions."""
    out = []
    for s in symptoms(facts, "pip-offered-versions"):
        wanted, _, offered = (s.subject or "").partition("|")
        if wanted.startswith("jaxlib==") and "+cuda" in wanted and offered.strip() not in ("", "none") and "cuda" not in offered:
            out.append(s)
    return out


def _platform(facts: Facts) -> str | None:
    """The host as jax.toml's platform table names it: linux, wsl2, windows, macos; None where it is unknown."""
    host = facts.host
    if host is None:
        return None
    if host.wsl:
        return "wsl2" if host.wsl == 2 else None
    return {"linux": "linux", "windows": "windows", "darwin": "macos"}.get(host.os or "")


def jax_windows_native_gpu_unsupported(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    if matrix is None:
        return
    refused = _cuda_jaxlib_not_offered(facts)
    host = facts.host
    platform = _platform(facts)
    support = matrix.jax.nvidia_gpu_support(platform) if platform else None
    jax = facts.frameworks.jax if facts.frameworks else None
    on_windows = platform == "windows"
    fell_back = bool(symptoms(facts, "jax-no-accelerator"))  # JAX itself ran, found no GPU
    native = on_windows and support == "no" and (jax is not None or fell_back) and (fell_back or gpu_presence(facts) is True)
    if not native and not (refused and support != "yes" and support != "experimental"):
        return  # on Linux (and WSL2) a refused +cuda jaxlib is no platform gap: pip_messages reads pip's list there
    evidence = [f"log: {s.text}" for s in refused[:1]]
    if on_windows:
        evidence.append(f"this is native Windows ({host.os_release or 'windows'})")
    evidence.append("JAX publishes CUDA jaxlib wheels for Linux only; on Windows, JAX's GPU support is through WSL2")
    if support is None:
        # pip's list alone does not say the platform: on Linux, +cuda jaxlib wheels came from JAX's own index (-f URL),
        # and a Python newer than the pinned release also leaves only newer plain versions
        evidence.append("the platform is not known here: on Linux, a +cuda jaxlib comes only from JAX's own index "
                        "(pip's -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html) and only for the Pythons "
                        "that release supports")
    yield Finding(
        "jax-windows-native-gpu-unsupported", Severity.ERROR if support == "no" else Severity.WARNING, Section.JAX,
        "JAX has no CUDA build for " + ("native Windows" if on_windows else "this platform") + ": only the CPU jaxlib installs here",
        tuple(evidence),
        Fix("Run JAX with CUDA in WSL2 (Ubuntu) on this machine, or on Linux; the Windows driver serves WSL2",
            ("wsl --install -d Ubuntu   # from PowerShell, then inside WSL:", 'pip install -U "jax[cuda12]"'),
            SUPPORTED_PLATFORMS),
    )


CHECKS = (jax_windows_native_gpu_unsupported,)
