"""The target machine from a description (``--gpu "RTX 4090" --driver 550.54 --os linux``), and a one-line
summary of a target for headers and stdout. An admin can prepare files for a machine they are not on."""

from __future__ import annotations

import re
from typing import Any, Sequence

from gpudoctor.errors import GpuDoctorError

OSES = ("linux", "windows", "wsl", "darwin")
_OS_LABEL = {"linux": "Linux", "windows": "Windows (native)", "darwin": "macOS"}

_CC = re.compile(r"(\d{1,2})\.(\d)")
_SM = re.compile(r"(?:sm|compute)_?(\d{1,2})(\d)a?", re.IGNORECASE)
_DRIVER = re.compile(r"\d{3,4}(?:\.\d{1,3}){0,2}")
_PYTHON = re.compile(r"3\.\d{1,2}")


class DescriptionError(GpuDoctorError):
    """A described machine that cannot be understood: an unknown GPU name, a malformed version (exit 2)."""


def parse_compute_capability(text: str) -> str | None:
    """ "8.9", "sm_89", "sm89", "compute_120" -> "8.9" / "12.0"; anything else -> None."""
    text = text.strip()
    match = _CC.fullmatch(text) or _SM.fullmatch(text)
    if not match:
        return None
    major, minor = match.groups()
    return f"{int(major)}.{minor}"


def gpu_capability(matrix: Any, name: str) -> str:
    """A GPU name (or a compute capability written directly) -> its compute capability, or DescriptionError."""
    cc = parse_compute_capability(name)
    if cc is not None:
        return cc
    from gpudoctor.matrix.solver.solve import gpu_compute_capability

    cc = gpu_compute_capability(matrix, name.strip())
    if cc is None:
        raise DescriptionError(
            f"unknown GPU {name.strip()!r}: give a name such as \"RTX 4090\" or \"Tesla V100\", "
            f"or its compute capability (e.g. --gpu 8.9), or an AMD GPU such as \"Radeon RX 7900 XTX\" or its gfx target (--gpu gfx1100); `nvidia-smi --query-gpu=name,compute_cap --format=csv` prints both"
        )
    return cc


def amd_targets(matrix: Any, gpus: Sequence[str]) -> tuple[str, ...]:
    """The gfx targets of the AMD GPUs among ``gpus`` ("Radeon RX 7900 XTX" -> "gfx1100"; "gfx1100" itself), from
    amd_gpus.toml; NVIDIA names are left out."""
    from gpudoctor.amd_text import gfx_target

    table = matrix.rocm
    found = []
    for name in gpus:
        gfx = gfx_target(name) if name.strip().lower().startswith("gfx") else (table.gfx_for(name) if table else None)
        if gfx:
            found.append(gfx)
    return tuple(found)


def _check_jetpack(matrix: Any, text: str, jetsons: list[str]) -> str:
    tables = matrix.platform_tables
    row = tables.jetpack_release(text) if tables else None
    if row is None:
        known = ", ".join(r.jetpack for r in tables.jetpack) if tables else "none"
        raise DescriptionError(f"--jetpack {text.strip()!r}: not a JetPack release gpudoctor knows ({known})")
    if not jetsons:
        raise DescriptionError("--jetpack describes a Jetson module: the --gpu given is not one")
    return row.jetpack


def check_driver_version(text: str) -> str:
    text = text.strip()
    if not _DRIVER.fullmatch(text):
        raise DescriptionError(f"--driver {text!r}: expected an NVIDIA driver version such as 550.54.15, 535.104 or a branch such as 550")
    return text


def check_python_version(text: str, known: Sequence[str] = ()) -> str:
    """ "3.11" -> "3.11"; DescriptionError for anything else, and for a Python no release in ``known`` has wheels for."""
    text = text.strip()
    if not _PYTHON.fullmatch(text):
        raise DescriptionError(f"--python {text!r}: expected a Python minor version such as 3.11")
    if known and text not in known:
        ordered = sorted(known, key=lambda v: tuple(map(int, v.split("."))))
        raise DescriptionError(f"--python {text}: no release in the compatibility matrix has wheels for it (it knows {ordered[0]}–{ordered[-1]})")
    return text


def known_pythons(matrix: Any) -> tuple[str, ...]:
    return tuple(sorted({p for r in (*matrix.torch, *matrix.tensorflow) for p in r.python}))


def resolve_arch(matrix: Any, os: str, arch: str | None, gpus: Sequence[str], capabilities: Sequence[str]) -> str:
    """The CPU architecture of a described machine: --arch, else what its GPUs imply (a Jetson or a Grace superchip
    is aarch64), else x86_64 (arm64 on macOS). Impossible combinations are DescriptionErrors."""
    from gpudoctor.matrix.solver.solve import normalize_arch

    plat = matrix.platforms
    jetson = [name for name, cc in zip(gpus, capabilities) if plat and plat.is_jetson(cc)]
    arm_only = [name for name in gpus if plat and plat.aarch64_only(name)]
    if arch is None:
        return "aarch64" if (jetson or arm_only) and os != "darwin" else normalize_arch(None, os)
    value = normalize_arch(arch, os)
    if value not in ("x86_64", "aarch64", "arm64"):
        raise DescriptionError(f"--arch {arch!r}: expected x86_64 or aarch64 (arm64)")
    if value == "x86_64" and (jetson or arm_only):
        raise DescriptionError(f"--arch x86_64 with {(jetson or arm_only)[0]!r}: that GPU only comes in aarch64 machines")
    if os in ("windows", "wsl") and value != "x86_64":
        raise DescriptionError(f"--os {os} --arch {arch}: gpudoctor targets Windows on x86_64 only (no CUDA builds for Windows on Arm)")
    return value


def target_from_description(
    matrix: Any,
    gpus: Sequence[str] = (),
    driver: str | None = None,
    os: str = "linux",
    python: str | None = None,
    arch: str | None = None,
    jetpack: str | None = None,
) -> Any:
    """A solver Target for a described machine. ``os`` is linux, windows (native), wsl (WSL2: Linux wheels, the
    Windows driver) or darwin. No ``gpus``: a machine without an NVIDIA GPU (the driver is then meaningless)."""
    from gpudoctor.matrix.solver.solve import Target

    if os not in OSES:
        raise DescriptionError(f"--os {os!r}: expected one of {', '.join(OSES)}")
    if driver is not None and not gpus:
        raise DescriptionError("--driver describes the GPU's driver: give the GPU too (--gpu NAME)")
    if os == "darwin" and gpus:
        raise DescriptionError(
            "--os darwin with --gpu: macOS has no CUDA (no PyTorch or TensorFlow CUDA build runs there); describe the Mac without --gpu"
        )
    amd = amd_targets(matrix, gpus)
    if amd and len(amd) != len(gpus):
        raise DescriptionError("--gpu: describe either AMD or NVIDIA GPUs, not both (no environment drives both vendors' GPUs)")
    if amd and driver is not None:
        raise DescriptionError("--driver is the NVIDIA driver's version: an AMD GPU needs none (the amdgpu kernel driver comes with Linux)")
    if jetpack is not None and not gpus:
        raise DescriptionError("--jetpack describes a Jetson module: give it too (--gpu \"Jetson AGX Orin\")")
    capabilities = () if amd else tuple(gpu_capability(matrix, name) for name in gpus)
    if jetpack is not None:
        jetpack = _check_jetpack(matrix, jetpack, [n for n, cc in zip(gpus, capabilities) if matrix.platforms and matrix.platforms.is_jetson(cc)])
    arch = resolve_arch(matrix, os, arch, gpus, capabilities)
    return Target(
        gfx=amd,
        jetpack=jetpack,
        os="linux" if os == "wsl" else os,
        python=check_python_version(python, known_pythons(matrix)) if python is not None else None,
        driver_version=check_driver_version(driver) if driver is not None else None,
        driver_cuda=None,
        compute_capabilities=capabilities,
        wsl=os == "wsl",
        arch=arch,
    )


def summarize_target(target: Any, gpu_names: Sequence[str] = ()) -> str:
    """ "Tesla V100 (CC 7.0), NVIDIA driver 580.65.06, Linux x86_64" - for file headers and stdout."""
    parts: list[str] = []
    ccs = list(target.compute_capabilities)
    if ccs:
        names = list(gpu_names) if len(gpu_names) == len(ccs) else []
        gpus = [f"{name} (CC {cc})" if name != cc else f"GPU with CC {cc}" for name, cc in zip(names, ccs)] if names else [
            f"GPU with CC {cc}" for cc in ccs
        ]
        parts.append(_collapse(gpus))
        if target.driver_version and "." not in target.driver_version:
            parts.append(f"NVIDIA driver branch R{target.driver_version}")
        elif target.driver_version:
            cuda = f" (CUDA {target.driver_cuda})" if target.driver_cuda else ""
            parts.append(f"NVIDIA driver {target.driver_version}{cuda}")
        else:
            parts.append("no NVIDIA driver known")
    elif getattr(target, "gfx", ()):
        names = list(gpu_names) if len(gpu_names) == len(target.gfx) else []
        parts.append(_collapse([f"{n} ({g})" if n != g else g for n, g in zip(names, target.gfx)] if names else list(target.gfx)))
    else:
        parts.append("no usable NVIDIA GPU")
    if getattr(target, "jetpack", None):
        parts.append(f"JetPack {target.jetpack}")
    os_label = "Linux on WSL" if target.wsl else _OS_LABEL.get(target.os, target.os)
    parts.append(f"{os_label} {target.arch}".strip())
    if target.python:
        parts.append(f"Python {target.python}")
    return ", ".join(parts)


def _collapse(items: list[str]) -> str:
    """["A", "A", "B"] -> "2x A + B", keeping first-seen order."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return " + ".join(f"{n}x {item}" if n > 1 else item for item, n in counts.items())


def facts_warnings(facts: Any, target: Any) -> list[str]:
    """What a probed machine or snapshot hides from the solver, said before files are written for it: an NVIDIA GPU
    that no driver reports (the files become CPU builds), GPUs the probes could not see, GPUs of unknown capability."""
    warnings: list[str] = []
    gpus = facts.gpus
    if getattr(target, "gfx", ()):  # AMD GPUs: the ROCm route, whatever NVML says
        return warnings
    if not target.compute_capabilities:
        on_bus = [
            d for d in facts.pci_devices or ()
            if (d.vendor_id or "").lower() == "10de" and (d.device_class is None or d.device_class.startswith("0x03"))
        ]
        if on_bus:
            device = on_bus[0]
            bound = device.driver or "none"
            nvml = facts.driver.nvml_error if facts.driver and facts.driver.nvml_error else None
            why = f"kernel driver: {bound}" + (f"; NVML: {nvml}" if nvml else "")
            warnings.append(
                f"an NVIDIA GPU is on the PCI bus ({device.bus_id}, device 10de:{device.device_id}) but no NVIDIA driver "
                f"reports it ({why}), so these are CPU builds: fix the driver first (`gpudoctor check` says how) and run "
                f"`gpudoctor env` again, or describe the machine with --gpu NAME --driver VERSION"
            )
        elif gpus is None:
            errors = "; ".join(f"{e.probe}: {e.error}" for e in facts.probe_errors) or "not probed"
            warnings.append(
                f"whether this machine has an NVIDIA GPU is unknown ({errors}), so these are CPU builds: "
                f"describe the GPU with --gpu NAME --driver VERSION for GPU builds"
            )
    elif gpus and len(gpus) > len(target.compute_capabilities):
        unknown = [g.name or f"GPU {g.index}" for g in gpus if not g.compute_capability]
        warnings.append(
            f"compute capability unknown for {', '.join(unknown) or 'some GPUs'}: the choice covers only the others; "
            f"describe them with --gpu CC (e.g. --gpu 8.9)"
        )
    return warnings
