"""AMD GPUs and the ROCm stack around them, observed, never judged.

The GPU list comes from the first source that answers: amdsmi (AMD's maintained Python library, imported lazily and
only if installed), else ``rocminfo``, else ``rocm-smi --showproductname`` (both through the runner), else the kernel's
KFD topology in sysfs, which exists wherever the amdgpu driver runs compute, with or without ROCm installed. Then the
ROCm version (/opt/rocm/.info/version), the amdgpu kernel module, /dev/kfd and who may open the GPU device nodes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..errors import ProbeFailed
from ..model import Rocm
from ..runner import Runner

if TYPE_CHECKING:
    from ..model import AmdGpu
    from ..amd_text import AmdGpuText

AMD_VENDOR = "0x1002"
_MIB = 1024 * 1024


def probe_amd(runner: Runner, amdsmi: Any | None = None, root: Path = Path("/"),
              groups: Callable[[], tuple[tuple[str, ...], bool]] | None = None) -> tuple[tuple[AmdGpu, ...], Rocm]:
    """(the AMD GPUs, the ROCm facts). ``amdsmi`` is anything with amdsmi's API (tests pass a fake); None imports the
    real one when installed. ``root`` is the filesystem root (tests pass a fake tree)."""
    gpus, source = _gpus(runner, amdsmi, root)
    user_groups, is_root = (groups or _user_groups)()
    module = root / "sys/module/amdgpu"
    return gpus, Rocm(
        version=_rocm_version(root),
        amdgpu_loaded=module.exists(),
        kfd_present=(root / "dev/kfd").exists(),
        device_groups=_device_groups(root),
        user_groups=user_groups,
        user_is_root=is_root,
        source=source,
    )


def _gpus(runner: Runner, amdsmi: Any | None, root: Path) -> tuple[tuple[AmdGpu, ...], str | None]:
    smi = amdsmi if amdsmi is not None else _import_amdsmi()
    if smi is not None:
        try:
            return probe_amdsmi(smi), "amdsmi"
        except ProbeFailed:
            pass  # the library is there but the driver is not: the tools and sysfs say what they can
    if not ((root / "sys/module/amdgpu").exists() or (root / "dev/kfd").exists()):
        return (), None  # no amdgpu driver: the ROCm tools could list nothing, and starting them costs check's budget
    from ..amd_text import parse_rocm_smi, parse_rocminfo  # the tools' parsers, loaded where an amdgpu driver is

    for argv, parse, source in ((("rocminfo",), parse_rocminfo, "rocminfo"),
                                (("rocm-smi", "--showproductname"), parse_rocm_smi, "rocm-smi")):
        result = runner.run(list(argv), timeout=10.0)
        if result.returncode == 0 and result.stdout:
            found = parse(result.stdout)
            if found:
                return tuple(_from_text(g) for g in found), source
    found = _sysfs_gpus(root)
    return found, ("sysfs" if found else None)


def probe_amdsmi(smi: Any) -> tuple[AmdGpu, ...]:
    """Every GPU through amdsmi's Python API (amdsmi_init, amdsmi_get_processor_handles, amdsmi_get_gpu_asic_info,
    amdsmi_get_gpu_device_bdf, amdsmi_get_gpu_vram_usage). A failed init raises ProbeFailed; a failed call on one
    GPU leaves that field unknown."""
    try:
        smi.amdsmi_init()
    except smi.AmdSmiException as exc:
        raise ProbeFailed(f"amdsmi: {exc}") from None
    from ..amd_text import gfx_target
    from ..model import AmdGpu  # created where a source lists AMD GPUs

    try:
        out = []
        for index, handle in enumerate(smi.amdsmi_get_processor_handles()):
            asic = _call(smi, smi.amdsmi_get_gpu_asic_info, handle) or {}
            vram = _call(smi, smi.amdsmi_get_gpu_vram_usage, handle) or {}
            name = asic.get("market_name")
            total = vram.get("vram_total")
            out.append(AmdGpu(
                index=index,
                name=name if isinstance(name, str) and name != "N/A" else None,
                gfx_target=gfx_target(str(asic.get("target_graphics_version", ""))),
                pci_bus_id=_call(smi, smi.amdsmi_get_gpu_device_bdf, handle),
                memory_total_mib=int(total) if isinstance(total, int) and total > 0 else None,  # amdsmi reports MB
            ))
        return tuple(out)
    finally:
        try:
            smi.amdsmi_shut_down()
        except smi.AmdSmiException:
            pass


def _call(smi: Any, function: Callable[[Any], Any], handle: Any) -> Any:
    try:
        return function(handle)
    except smi.AmdSmiException:
        return None


def _import_amdsmi() -> Any | None:
    if not (Path("/opt/rocm").exists() or os.environ.get("ROCM_PATH")):
        return None  # amdsmi needs libamd_smi from ROCm: without ROCm the import would only fail, slowly
    try:
        import amdsmi  # type: ignore[import-not-found]
    except Exception:  # noqa: BLE001 - not installed, or its shared library missing: the other sources answer
        return None
    return amdsmi


def _from_text(gpu: AmdGpuText) -> AmdGpu:
    from ..model import AmdGpu

    value = {name: v for name, (_, v) in gpu.fields.items()}
    return AmdGpu(index=gpu.index, name=value.get("name"), gfx_target=value.get("gfx_target"), pci_bus_id=value.get("pci_bus_id"))


def _sysfs_gpus(root: Path) -> tuple[AmdGpu, ...]:
    """GPU nodes of /sys/class/kfd/kfd/topology/nodes/*/properties (gfx_target_version 0 is a CPU node)."""
    from ..amd_text import gfx_from_topology
    from ..model import AmdGpu

    nodes = root / "sys/class/kfd/kfd/topology/nodes"
    out = []
    for node in sorted(nodes.glob("*"), key=lambda p: int(p.name) if p.name.isdigit() else 0):
        try:
            lines = (node / "properties").read_text().splitlines()
        except OSError:
            continue
        props = dict(line.split(None, 1) for line in lines if len(line.split(None, 1)) == 2)
        try:
            gfx = gfx_from_topology(int(props.get("gfx_target_version", "0")))
        except ValueError:
            gfx = None
        if gfx:
            out.append(AmdGpu(index=len(out), gfx_target=gfx))
    return tuple(out)


def _rocm_version(root: Path) -> str | None:
    for path in ("opt/rocm/.info/version", "opt/rocm/.info/version-dev"):
        try:
            text = (root / path).read_text().strip()
        except OSError:
            continue
        if text:
            return text.split("-", 1)[0]
    return None


def _device_groups(root: Path) -> tuple[str, ...] | None:
    """Groups owning /dev/kfd and the render nodes: the user needs to be in them (or be root)."""
    import grp

    paths = [root / "dev/kfd", *sorted((root / "dev/dri").glob("renderD*"))]
    names: list[str] = []
    for path in paths:
        try:
            gid = path.stat().st_gid
        except OSError:
            continue
        try:
            name = grp.getgrgid(gid).gr_name
        except KeyError:
            name = str(gid)
        if name not in names:
            names.append(name)
    return tuple(names) if names else None


def _user_groups() -> tuple[tuple[str, ...], bool]:
    import grp

    names = []
    for gid in sorted(set(os.getgroups()) | {os.getgid()}):
        try:
            names.append(grp.getgrgid(gid).gr_name)
        except KeyError:
            names.append(str(gid))
    return tuple(names), os.geteuid() == 0
