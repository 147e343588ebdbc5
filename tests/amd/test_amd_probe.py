"""The AMD probe through a fake amdsmi (real API names), recorded rocminfo output and a fake sysfs/dev tree."""

from __future__ import annotations

import os
from pathlib import Path

from gpudoctor.amd_text import gfx_from_topology, gfx_target
from gpudoctor.model import AmdGpu
from gpudoctor.probes.amd import probe_amd
from tests.amd.fake_amdsmi import AMDSMI_STATUS_DRIVER_NOT_LOADED, FakeAmdSmi
from tests.fakes import FakeRunner

DATA = Path(__file__).parent.parent / "data" / "amd"
MI300X = {"market_name": "AMD Instinct MI300X", "gfx": 942, "bdf": "0000:0c:00.0", "vram_total": 196592}


def _groups(names=("alice", "video"), root=False):
    return lambda: (names, root)


def test_amdsmi_is_read_first_and_shut_down(tmp_path):
    smi = FakeAmdSmi([MI300X, {**MI300X, "bdf": "0000:22:00.0"}])
    runner = FakeRunner({"rocminfo": "must not be needed"})
    gpus, rocm = probe_amd(runner, amdsmi=smi, root=tmp_path, groups=_groups())
    assert gpus[0] == AmdGpu(0, "AMD Instinct MI300X", "gfx942", "0000:0c:00.0", 196592)
    assert [g.pci_bus_id for g in gpus] == ["0000:0c:00.0", "0000:22:00.0"]
    assert rocm.source == "amdsmi" and smi.shut_down and runner.calls == []


def test_a_failing_call_costs_one_field_not_the_gpu(tmp_path):
    smi = FakeAmdSmi([MI300X], failing=("amdsmi_get_gpu_vram_usage",))
    gpus, _ = probe_amd(FakeRunner(), amdsmi=smi, root=tmp_path, groups=_groups())
    assert gpus[0].gfx_target == "gfx942" and gpus[0].memory_total_mib is None


def test_amdsmi_without_driver_falls_back_to_rocminfo(tmp_path):
    smi = FakeAmdSmi([MI300X], init_error=AMDSMI_STATUS_DRIVER_NOT_LOADED)
    runner = FakeRunner({"rocminfo": (DATA / "rocminfo-rx5700xt.txt").read_text()})
    (tmp_path / "sys/module/amdgpu").mkdir(parents=True)  # the driver is loaded; only the library fails
    gpus, rocm = probe_amd(runner, amdsmi=smi, root=tmp_path, groups=_groups())
    assert gpus == (AmdGpu(0, "AMD Radeon RX 5700 XT", "gfx1010"),)  # the CPU agent is not a GPU
    assert rocm.source == "rocminfo"


def _fake_tree(tmp_path: Path, gfx_versions: list[int]) -> Path:
    for node, value in enumerate(gfx_versions):
        d = tmp_path / f"sys/class/kfd/kfd/topology/nodes/{node}"
        d.mkdir(parents=True)
        (d / "properties").write_text(f"cpu_cores_count 0\nsimd_count 0\ngfx_target_version {value}\nvendor_id 4098\n")
    (tmp_path / "sys/module/amdgpu").mkdir(parents=True)
    (tmp_path / "opt/rocm/.info").mkdir(parents=True)
    (tmp_path / "opt/rocm/.info/version").write_text("6.4.1-120\n")
    (tmp_path / "dev/dri").mkdir(parents=True)
    (tmp_path / "dev/kfd").write_text("")
    (tmp_path / "dev/dri/renderD128").write_text("")
    return tmp_path


def test_sysfs_topology_when_no_tool_answers(tmp_path):
    root = _fake_tree(tmp_path, [0, 110000, 90010])  # node 0 is the CPU
    gpus, rocm = probe_amd(FakeRunner(), amdsmi=None, root=root, groups=_groups())
    assert [g.gfx_target for g in gpus] == ["gfx1100", "gfx90a"] and rocm.source == "sysfs"
    assert rocm.version == "6.4.1" and rocm.amdgpu_loaded is True and rocm.kfd_present is True
    import grp

    assert rocm.device_groups == (grp.getgrgid(os.getgid()).gr_name,)  # the files' owner group, by name


def test_no_amd_gpu_is_probed_absent_not_unknown(tmp_path):
    runner = FakeRunner({"rocminfo": "must not be started", "rocm-smi": "must not be started"})
    gpus, rocm = probe_amd(runner, amdsmi=None, root=tmp_path, groups=_groups())
    assert runner.calls == []  # no amdgpu driver: no ROCm tool is started (check's time budget)
    assert gpus == () and rocm.amdgpu_loaded is False and rocm.kfd_present is False
    assert rocm.version is None and rocm.device_groups is None and rocm.source is None


def test_gfx_names():
    assert [gfx_from_topology(v) for v in (110000, 90010, 90402, 100100, 0)] == ["gfx1100", "gfx90a", "gfx942", "gfx1010", None]
    assert gfx_target("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") == "gfx90a"
    assert gfx_target("AMD Radeon RX 6700 XT (gfx1031)") == "gfx1031" and gfx_target("RTX 4090") is None
