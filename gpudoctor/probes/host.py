"""Host facts: OS, kernel, architecture, WSL, container, Python and the environment variables that matter."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping

from ..model import Host

# Verbatim in the snapshot: each one changes which GPU or which CUDA libraries a framework ends up with.
RELEVANT_ENV = (
    "CUDA_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "CUDA_HOME",
    "CUDA_PATH",
    "PATH",
    "CONDA_PREFIX",
    "VIRTUAL_ENV",
    "PYTORCH_CUDA_ALLOC_CONF",
    "TF_FORCE_GPU_ALLOW_GROWTH",
    "TF_USE_LEGACY_KERAS",  # tf.keras is tf-keras (Keras 2) instead of Keras 3 (TensorFlow 2.15+)
    "XLA_FLAGS",
    "CUDA_FORCE_PTX_JIT",
    # AMD: which GPUs HIP sees, and the gfx-target override people set for GPUs the ROCm builds do not carry
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "HSA_OVERRIDE_GFX_VERSION",
)


def probe_host(environ: Mapping[str, str] | None = None, root: Path = Path("/")) -> Host:
    environ = os.environ if environ is None else environ
    system, kernel, arch = _uname()
    system = system.lower()
    return Host(
        os=system,
        os_release=_os_release(system, root),
        kernel=kernel,
        arch=arch,
        wsl=wsl_version(_read(root / "proc/sys/kernel/osrelease")) if system == "linux" else None,
        container=container_kind(root, environ) if system == "linux" else None,
        python=sys.version.split()[0],  # what platform.python_version() returns ("3.12.4", "3.13.0rc1")
        env={name: environ[name] for name in RELEVANT_ENV if name in environ},
        glibc=_glibc(),
        shm_mib=_size_mib(root / "dev/shm") if system == "linux" else None,
    )


def wsl_version(kernel_release: str | None) -> int | None:
    # WSL2 kernels are "...-microsoft-standard-WSL2"; WSL1 reports the Windows build as "...-Microsoft".
    if not kernel_release:
        return None
    if "microsoft-standard" in kernel_release.lower() or "wsl2" in kernel_release.lower():
        return 2
    if "Microsoft" in kernel_release:
        return 1
    return None


def container_kind(root: Path, environ: Mapping[str, str]) -> str | None:
    if (root / ".dockerenv").exists():
        return "docker"
    if (root / "run/.containerenv").exists():
        return "podman"
    if "KUBERNETES_SERVICE_HOST" in environ:
        return "kubernetes"
    cgroup = _read(root / "proc/1/cgroup") or ""
    for marker, kind in (("kubepods", "kubernetes"), ("docker", "docker"), ("libpod", "podman"), ("lxc", "lxc")):
        if marker in cgroup:
            return kind
    if environ.get("container"):  # systemd-nspawn, podman set it for PID 1's children
        return environ["container"]
    return None


def _os_release(system: str, root: Path) -> str | None:
    if system == "linux":
        for line in (_read(root / "etc/os-release") or "").splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
        return None
    import platform  # only here: Linux, the common case, never imports it (see _uname)

    if system == "darwin":
        return f"macOS {platform.mac_ver()[0]}"
    if system == "windows":
        return f"Windows {platform.version()}"
    return None


def _uname() -> tuple[str, str, str]:
    """platform.system(), release() and machine(). On Linux and macOS those are os.uname()'s fields, read here
    directly: importing `platform` (it compiles a dozen regexes) was ~3 ms of every `gpudoctor check`."""
    if sys.platform.startswith("linux") or sys.platform == "darwin":
        name = os.uname()
        return name.sysname, name.release, name.machine
    import platform

    return platform.system(), platform.release(), platform.machine()


def _glibc() -> str | None:
    try:
        name_version = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.36"; no file read, no subprocess
    except (AttributeError, ValueError, OSError):
        return None
    if name_version and name_version.startswith("glibc "):
        return name_version.split(" ", 1)[1]
    return None


def _size_mib(path: Path) -> int | None:
    """The size of the file system mounted at ``path`` in MiB (statvfs: no file read, no subprocess)."""
    try:
        stat = os.statvfs(path)
    except (OSError, AttributeError):  # no /dev/shm; os.statvfs does not exist on Windows
        return None
    return stat.f_frsize * stat.f_blocks // 2**20


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None
