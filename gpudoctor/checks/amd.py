"""AMD GPUs: are they there, does the amdgpu driver hold them, may this user open them, and what an
HSA_OVERRIDE_GFX_VERSION in the environment does. Judges facts only (the AMD probe and readers observe)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..digits import is_ascii_int
from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import env, gpu_presence

if TYPE_CHECKING:
    from ..model import AmdGpu

ROCM_INSTALL = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/quick-start.html"
ROCM_GROUPS = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html"
# Groups that own /dev/kfd and /dev/dri/renderD* on the distributions ROCm supports.
ACCESS_GROUPS = ("render", "video")


def amd_gpus(facts: Facts) -> tuple[AmdGpu, ...]:
    return facts.amd_gpus or ()


def amd_label(gpu: AmdGpu) -> str:
    target = f" ({gpu.gfx_target})" if gpu.gfx_target else ""
    return f"AMD GPU {gpu.index if gpu.index is not None else '?'}: {gpu.name or 'model unknown'}{target}"


def amd_gpus_found(facts: Facts, matrix: object) -> Iterator[Finding]:
    found = amd_gpus(facts)
    if not found:
        return
    rocm = facts.rocm.version if facts.rocm and facts.rocm.version else None
    evidence = [amd_label(g) + (f", {g.memory_total_mib} MiB" if g.memory_total_mib else "") for g in found]
    if facts.rocm and facts.rocm.source:
        evidence.append(f"read through {facts.rocm.source}")
    if gpu_presence(facts) is False:
        evidence.append("no NVIDIA GPU: the NVIDIA driver and CUDA checks do not apply to this machine")
    yield Finding(
        "amd-gpus-found", Severity.OK, Section.GPU,
        f"{len(found)} AMD GPU{'s' if len(found) != 1 else ''}" + (f", ROCm {rocm}" if rocm else ", ROCm version unknown"),
        tuple(evidence),
    )


def amdgpu_driver_not_loaded(facts: Facts, matrix: object) -> Iterator[Finding]:
    rocm = facts.rocm
    if rocm is None or rocm.amdgpu_loaded is not False:
        return
    torch = facts.frameworks.torch if facts.frameworks else None
    # rocminfo's own "ROCk module is NOT loaded": ROCm is installed, so the module is wanted
    said = (facts.provenance or {}).get("rocm.amdgpu_loaded", "").startswith("rocminfo")
    wanted = amd_gpus(facts) or rocm.version or (torch and torch.hip) or said
    if not wanted:
        return  # no sign of an AMD GPU or of ROCm: the module is simply not needed here
    evidence = ["rocminfo: ROCk module is NOT loaded" if said else "the amdgpu kernel module is not loaded (/sys/module/amdgpu is absent)"]
    if rocm.version:
        evidence.append(f"ROCm {rocm.version} is installed")
    if torch and torch.hip:
        evidence.append(f"torch is a ROCm {torch.hip} build")
    if facts.host and facts.host.wsl:  # WSL has no amdgpu module of its own: AMD's WSL route is another install
        yield Finding(
            "amdgpu-driver-not-loaded", Severity.ERROR, Section.GPU,
            "ROCm installed for Linux inside WSL finds no amdgpu kernel driver: WSL has none",
            (*evidence, f"WSL {facts.host.wsl}"),
            Fix("Use AMD's ROCm-on-WSL install (Radeon software for WSL with ROCm), not the native Linux installer; or run ROCm on native Linux",
                ("rocminfo | grep -E 'Name|Marketing'   # after AMD's WSL install",),
                "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-radeon.html"),
        )
        return
    yield Finding(
        "amdgpu-driver-not-loaded", Severity.ERROR, Section.GPU,
        "The amdgpu kernel driver is not loaded: ROCm cannot reach an AMD GPU",
        tuple(evidence),
        Fix("Load the driver (install AMD's amdgpu-dkms if the kernel lacks it), then check again",
            ("sudo modprobe amdgpu", "sudo dmesg | grep -i amdgpu   # why it failed, if it does", "rocminfo | grep -E 'Name|Marketing'"),
            ROCM_INSTALL),
    )


def user_not_in_render_group(facts: Facts, matrix: object) -> Iterator[Finding]:
    rocm = facts.rocm
    if rocm is None or rocm.user_is_root or rocm.user_groups is None or not rocm.device_groups:
        return
    if rocm.user_is_root is None and not amd_gpus(facts):
        return
    missing = [g for g in rocm.device_groups if g in ACCESS_GROUPS and g not in rocm.user_groups]
    if not missing:
        return
    yield Finding(
        "user-not-in-render-group", Severity.ERROR, Section.GPU,
        f"This user is not in the {' and '.join(missing)} group{'s' if len(missing) > 1 else ''}: ROCm cannot open the GPU",
        (f"/dev/kfd and the render nodes belong to: {', '.join(rocm.device_groups)}",
         f"this user's groups: {', '.join(rocm.user_groups) or '(none)'}"),
        Fix("Add the user to the groups, then log out and back in (or reboot) for it to take effect",
            (f"sudo usermod -a -G {','.join(missing)} $LOGNAME",), ROCM_GROUPS),
    )


def hsa_override_gfx_version_set(facts: Facts, matrix: object) -> Iterator[Finding]:
    value = env(facts, "HSA_OVERRIDE_GFX_VERSION")
    if not value:
        return
    targets = ", ".join(f"{g.gfx_target}" for g in amd_gpus(facts) if g.gfx_target)
    yield Finding(
        "hsa-override-gfx-version-set", Severity.INFO, Section.GPU,
        f"HSA_OVERRIDE_GFX_VERSION={value}: the ROCm runtime reports every GPU as {override_target(value) or 'another target'}",
        (f"HSA_OVERRIDE_GFX_VERSION={value}",
         "the runtime then loads kernels built for that target on this GPU" + (f" (really {targets})" if targets else ""),
         "a workaround AMD does not support: it works only where the two targets share an instruction set "
         "(e.g. gfx1031/gfx1032 as gfx1030); elsewhere it crashes or computes wrong results"),
        Fix("Keep it only if the GPU has no official build; otherwise unset it",
            ("unset HSA_OVERRIDE_GFX_VERSION",), ROCM_GROUPS.replace("install/prerequisites.html", "reference/system-requirements.html")),
    )


def override_target(value: str) -> str | None:
    """HSA_OVERRIDE_GFX_VERSION "10.3.0" -> "gfx1030", "9.0.10" -> "gfx90a" (major.minor.stepping, hex digits)."""
    parts = value.strip().split(".")
    if len(parts) != 3 or not all(is_ascii_int(p, 4) for p in parts):
        return None
    major, minor, stepping = (int(p) for p in parts)
    if major > 99 or minor > 15 or stepping > 15:
        return None
    return f"gfx{major}{minor:x}{stepping:x}"


CHECKS = (amd_gpus_found, amdgpu_driver_not_loaded, user_not_in_render_group, hsa_override_gfx_version_set)
