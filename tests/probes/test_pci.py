"""probe_pci / probe_kernel_module against fake sysfs and procfs trees built in tmp_path, laid out as Linux does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpudoctor.errors import ProbeFailed
from gpudoctor.model import PciDevice
from gpudoctor.probes.pci import probe_kernel_module, probe_pci

PROPRIETARY = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.04  Fri Feb 21 20:26:23 UTC 2025\n"
    "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n"
)
OPEN_KERNEL = (
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.04  Release Build  "
    "(dvs-builder@U16-I3-B03-4-3)  Tue Feb 18 11:11:37 UTC 2025\n"
    "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n"
)


def add_device(sys_root: Path, bus_id: str, vendor: str, device: str, cls: str, driver: str | None) -> None:
    """Like the kernel: the real node under /sys/devices, a symlink to it in /sys/bus/pci/devices, and a relative
    `driver` symlink into /sys/bus/pci/drivers/<name> only while a driver is bound."""
    node = sys_root / "devices" / "pci0000:00" / bus_id
    node.mkdir(parents=True)
    (node / "vendor").write_text(vendor + "\n")
    (node / "device").write_text(device + "\n")
    (node / "class").write_text(cls + "\n")
    if driver is not None:
        drivers = sys_root / "bus" / "pci" / "drivers" / driver
        drivers.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(drivers, node), node / "driver")
    devices = sys_root / "bus" / "pci" / "devices"
    devices.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(node, devices), devices / bus_id)


def test_gpus_with_nvidia_nouveau_and_no_driver_and_audio_function_skipped(tmp_path: Path) -> None:
    add_device(tmp_path, "0000:01:00.0", "0x10de", "0x2b85", "0x030000", "nvidia")
    add_device(tmp_path, "0000:01:00.1", "0x10de", "0x22e8", "0x040300", "snd_hda_intel")  # the board's HDMI audio
    add_device(tmp_path, "0000:02:00.0", "0x10de", "0x2684", "0x030000", "nouveau")
    add_device(tmp_path, "0000:03:00.0", "0x10de", "0x20B0", "0x030200", None)  # A100: a 3D controller, unbound
    add_device(tmp_path, "0000:00:02.0", "0x8086", "0x46a6", "0x030000", "i915")  # an Intel iGPU is not ours

    assert probe_pci(tmp_path) == (
        PciDevice(bus_id="0000:01:00.0", vendor_id="10de", device_id="2b85", driver="nvidia", device_class="0x030000"),
        PciDevice(bus_id="0000:02:00.0", vendor_id="10de", device_id="2684", driver="nouveau", device_class="0x030000"),
        PciDevice(bus_id="0000:03:00.0", vendor_id="10de", device_id="20b0", driver=None, device_class="0x030200"),
    )


def test_bus_without_nvidia_devices_is_probed_and_empty(tmp_path: Path) -> None:
    add_device(tmp_path, "0000:00:02.0", "0x8086", "0x46a6", "0x030000", "i915")
    assert probe_pci(tmp_path) == ()


def test_device_with_unreadable_files_is_skipped_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "bus" / "pci" / "devices" / "0000:05:00.0").mkdir(parents=True)  # no vendor/class files at all
    add_device(tmp_path, "0000:01:00.0", "0x10de", "0x2b85", "0x030000", "nvidia")
    assert [d.bus_id for d in probe_pci(tmp_path)] == ["0000:01:00.0"]


def test_no_sysfs_raises_probe_failed(tmp_path: Path) -> None:
    with pytest.raises(ProbeFailed, match="cannot list PCI devices"):
        probe_pci(tmp_path / "nosys")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_kernel_module_proprietary_version_from_proc(tmp_path: Path) -> None:
    write(tmp_path / "proc" / "driver" / "nvidia" / "version", PROPRIETARY)
    assert probe_kernel_module(tmp_path / "proc", tmp_path / "sys") == ("nvidia", "570.124.04")


def test_kernel_module_open_kernel_variant(tmp_path: Path) -> None:
    write(tmp_path / "proc" / "driver" / "nvidia" / "version", OPEN_KERNEL)
    assert probe_kernel_module(tmp_path / "proc", tmp_path / "sys") == ("nvidia", "570.124.04")


def test_kernel_module_version_from_sysfs_when_proc_lacks_it(tmp_path: Path) -> None:
    write(tmp_path / "sys" / "module" / "nvidia" / "version", "535.54.03\n")
    assert probe_kernel_module(tmp_path / "proc", tmp_path / "sys") == ("nvidia", "535.54.03")


def test_garbled_proc_version_gives_nvidia_with_unknown_version(tmp_path: Path) -> None:
    write(tmp_path / "proc" / "driver" / "nvidia" / "version", "\x00\x01garbage NVRM without numbers\n")
    assert probe_kernel_module(tmp_path / "proc", tmp_path / "sys") == ("nvidia", None)


def test_nouveau_loaded(tmp_path: Path) -> None:
    (tmp_path / "sys" / "module" / "nouveau").mkdir(parents=True)
    assert probe_kernel_module(tmp_path / "proc", tmp_path / "sys") == ("nouveau", None)


def test_no_gpu_module_loaded(tmp_path: Path) -> None:
    (tmp_path / "sys" / "module" / "snd_hda_intel").mkdir(parents=True)
    assert probe_kernel_module(tmp_path / "proc", tmp_path / "sys") == (None, None)
