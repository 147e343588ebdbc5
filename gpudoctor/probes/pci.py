"""NVIDIA GPUs on the PCI bus and the GPU kernel module, read from Linux sysfs and procfs.

The bus is the one witness that does not depend on the driver: a GPU with no driver, or held by nouveau, still shows
here, which is how the checks tell "no GPU" from "GPU without a driver". Roots are parameters so that tests can build
fake trees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import os
import re
from pathlib import Path

from gpudoctor.errors import ProbeFailed

if TYPE_CHECKING:
    from gpudoctor.model import PciDevice

NVIDIA_VENDOR = "0x10de"
# PCI base class 0x03 is "display controller" (VGA 0x0300, 3D 0x0302); a GPU board also exposes HDMI audio (0x0403)
# and USB-C (0x0c03) functions under the same vendor id, which are not GPUs.
DISPLAY_CLASS_PREFIX = "0x03"


# Proprietary: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.04  Fri Feb 21 ..."
# Open:        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.04  Release Build ..."
_NVRM_VERSION = r"NVRM version:.*?Kernel Module(?:\s+for\s+\S+)?\s+(\d+\.\d+(?:\.\d+)*)\b"


# Patterns are strings that re compiles on first use (and caches), not at import: a `check` run without NVRM version
# text never needs them, and compiling every module's patterns at import was a measurable part of the start-up time.
_BARE_VERSION = r"^\d+\.\d+(?:\.\d+)*$"


def probe_pci(sys_root: Path = Path("/sys")) -> tuple[PciDevice, ...]:
    """NVIDIA display/3D functions on the PCI bus, bound or not. () is "none there"; no sysfs raises ProbeFailed."""
    devices_dir = Path(sys_root) / "bus" / "pci" / "devices"
    if not devices_dir.is_dir():
        raise ProbeFailed(f"{devices_dir} does not exist: cannot list PCI devices (no sysfs here)")
    try:
        entries = sorted(devices_dir.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise ProbeFailed(f"cannot list {devices_dir}: {exc.strerror or exc}") from None
    found = (_nvidia_display_device(entry) for entry in entries)
    return tuple(device for device in found if device is not None)


def _nvidia_display_device(dev: Path) -> PciDevice | None:
    vendor = _read_id(dev / "vendor")
    device_class = _read_id(dev / "class")
    if vendor != NVIDIA_VENDOR or device_class is None or not device_class.startswith(DISPLAY_CLASS_PREFIX):
        return None
    device_id = _read_id(dev / "device")
    from gpudoctor.model import PciDevice  # created where an NVIDIA device is on the bus

    return PciDevice(
        bus_id=dev.name,
        vendor_id=vendor[2:],
        device_id=device_id[2:] if device_id and device_id.startswith("0x") else device_id,
        driver=_bound_driver(dev),
        device_class=device_class,
    )


def _read_id(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip().lower()
    except OSError:
        return None
    return text or None


def _bound_driver(dev: Path) -> str | None:
    # sysfs links `driver` to .../bus/pci/drivers/<name> only while a driver is bound; no link means no driver.
    try:
        target = os.readlink(dev / "driver")
    except OSError:
        return None
    return os.path.basename(target.rstrip("/")) or None


def probe_kernel_module(
    proc_root: Path = Path("/proc"), sys_root: Path = Path("/sys")
) -> tuple[str | None, str | None]:
    """(module, version) of the loaded GPU kernel module: ("nvidia", "570.124.04"), ("nouveau", None), (None, None)."""
    proc_version = Path(proc_root) / "driver" / "nvidia" / "version"
    nvidia_module = Path(sys_root) / "module" / "nvidia"
    proc_text = _read_text(proc_version)
    if proc_text is not None or nvidia_module.is_dir():
        return "nvidia", _nvrm_version(proc_text) or _sysfs_module_version(nvidia_module / "version")
    if (Path(sys_root) / "module" / "nouveau").is_dir():
        return "nouveau", None
    return None, None


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _nvrm_version(text: str | None) -> str | None:
    match = re.search(_NVRM_VERSION, text or "")
    return match.group(1) if match else None


def _sysfs_module_version(path: Path) -> str | None:
    text = (_read_text(path) or "").strip()
    return text if re.match(_BARE_VERSION, text) else None
