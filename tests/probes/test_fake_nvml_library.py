"""gpudoctor's real NVML path (ctypes dlopen of libnvidia-ml.so.1, then nvidia-ml-py's pynvml) against a fake NVML
*shared library*: tests/data/fakenvml/fake_nvml.c, one Tesla T4 on driver 515.105.01 with the values of the real
capture tests/data/nvidia-smi/tesla-t4.xml, compiled once per session by tests/fake_nvml_lib.py.

pynvml dlopens the library once per process, so each case runs in a child with LD_LIBRARY_PATH pointing at the fake
(and FAKE_NVML_* variables choosing the variant). Without a C compiler these tests skip with the reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.smi_xml import parse_nvidia_smi_xml
from tests.conftest import FACTS_DIR
from tests.fake_nvml_lib import SONAME, CannotBuild, build

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
MIB = 1024 * 1024

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pynvml dlopens a .so only on Linux")

# The child: the real probe, its facts as JSON, and which file the process really mapped as libnvidia-ml.so.1.
PROBE = """
import dataclasses, json
from gpudoctor.errors import ProbeFailed
from gpudoctor.probes.nvml import probe_nvml
try:
    driver, gpus = probe_nvml()
    out = {"driver": dataclasses.asdict(driver), "gpus": [dataclasses.asdict(g) for g in gpus]}
except ProbeFailed as exc:
    out = {"failed": str(exc)}
out["mapped"] = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libnvidia-ml" in line})
print(json.dumps(out))
"""


@pytest.fixture(scope="session")
def fake_nvml(tmp_path_factory) -> Path:
    try:
        return build(tmp_path_factory.mktemp("fakenvml"))
    except CannotBuild as exc:
        pytest.skip(str(exc))


def child(lib: Path, argv: list[str], path_first: Path | None = None, **fake_env: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_NVML_")}
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(lib), env.get("LD_LIBRARY_PATH")]))
    if path_first is not None:
        env["PATH"] = os.pathsep.join([str(path_first), env.get("PATH", "")])
    env.update(fake_env)
    # cwd: the child imports gpudoctor from this checkout, as the test process does
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120, env=env, cwd=REPO)


def probe(lib: Path, **fake_env: str) -> dict:
    done = child(lib, ["-c", PROBE], **fake_env)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["mapped"] == [str(lib / SONAME)], out["mapped"]  # the fake, not a real driver's library
    return out


def test_the_real_probe_reads_the_t4_through_pynvml_and_the_library(fake_nvml):
    out = probe(fake_nvml)
    assert out["driver"] == {"version": "515.105.01", "cuda_version": "11.7", "kernel_module": None,
                             "kernel_module_version": None, "nvml_error": None}  # fmt: skip
    (gpu,) = out["gpus"]
    assert (gpu["index"], gpu["name"], gpu["uuid"]) == (0, "Tesla T4", "GPU-d37e67a5-91dd-3774-a5cb-99096249601a")
    assert (gpu["pci_bus_id"], gpu["compute_capability"]) == ("00000000:00:1E.0", "7.5")
    # NVML's v1 nvmlMemory_t counts the driver's reserved memory as used: 388 + 1032 MiB of the capture
    assert (gpu["memory_total_mib"], gpu["memory_used_mib"]) == (15360, 1420)
    assert gpu["pcie"] == {"gen_current": 3, "gen_max": 3, "width_current": 8, "width_max": 16}
    assert gpu["mig_enabled"] is False  # NotSupported on a T4: probed, no MIG
    assert gpu["ecc_uncorrected_errors"] == 0
    assert [(p["pid"], p["used_mib"]) for p in gpu["processes"]] == [(5762, 1005), (675, 22)]
    health = gpu["health"]
    assert (health["persistence_mode"], health["display_active"]) == (False, False)
    assert health["utilization_gpu_percent"] == 0
    assert (health["power_limit_mw"], health["power_default_limit_mw"]) == (70000, 70000)
    assert (health["retired_pages_sbe"], health["retired_pages_dbe"], health["retired_pages_pending"]) == (0, 0, False)
    # a T4 has no row remapper, NVLink or fabric: unknown, never "all links down"
    assert health["remapped_rows_corrected"] is None and health["nvlink_active"] is None
    assert health["fabric_state"] is None and health["lost"] is None


def test_the_nvml_facts_agree_with_nvidia_smi_on_the_same_t4(fake_nvml):
    """The two probes gpudoctor falls between describe the same GPU the same way (memory used aside: nvidia-smi's
    figure leaves out the reserved part that NVML's v1 struct includes; the 515 driver's XML has no compute
    capability)."""
    (nvml_gpu,) = probe(fake_nvml)["gpus"]
    _, (smi_gpu,) = parse_nvidia_smi_xml((DATA / "nvidia-smi" / "tesla-t4.xml").read_text(encoding="utf-8"))
    for field in ("name", "uuid", "pci_bus_id", "memory_total_mib", "ecc_uncorrected_errors"):
        assert nvml_gpu[field] == getattr(smi_gpu, field), field
    assert nvml_gpu["pcie"]["width_current"] == smi_gpu.pcie.width_current


def test_a_function_the_515_driver_lacks_is_function_not_found_and_the_probe_falls_back(fake_nvml):
    code = ("import pynvml; pynvml.nvmlInit(); h = pynvml.nvmlDeviceGetHandleByIndex(0)\n"
            "try:\n    pynvml.nvmlDeviceGetCurrentClocksEventReasons(h)\n"
            "except pynvml.NVMLError_FunctionNotFound:\n    print('function-not-found')\n"
            "print(pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(h))")  # fmt: skip
    done = child(fake_nvml, ["-c", code])
    assert done.stdout.split() == ["function-not-found", "0"], done.stderr
    health = probe(fake_nvml)["gpus"][0]["health"]
    assert health["clocks_event_reasons"] == []  # read through the older ...ThrottleReasons name: no reason active


def test_the_library_has_every_function_the_probes_look_up_but_the_two_a_515_driver_lacks(fake_nvml):
    """If gpudoctor starts reading a new NVML function, this names it: add it to fake_nvml.c (or, if driver 515 had
    no such symbol, to the absent ones here), or the fake T4 silently reports that field as unknown."""
    code = ("import pynvml\nlooked_up = []\nreal = pynvml._nvmlGetFunctionPointer\n"
            "def spy(name):\n    try:\n        return real(name)\n"
            "    except pynvml.NVMLError_FunctionNotFound:\n        looked_up.append(name)\n        raise\n"
            "pynvml._nvmlGetFunctionPointer = spy\n"
            "from gpudoctor.probes.nvml import probe_nvml\nprobe_nvml()\n"
            "from gpudoctor.probes.nvml_state import sample_all\npynvml.nvmlInit()\nsample_all(pynvml)\n"
            "print(sorted(set(looked_up)))")  # fmt: skip
    done = child(fake_nvml, ["-c", code])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(["nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetGpuFabricInfo"])


def test_what_bench_samples_during_a_run_reads_the_t4_too(fake_nvml):
    code = ("import dataclasses, json\nfrom gpudoctor.probes.nvml import _import_pynvml\n"
            "from gpudoctor.probes.nvml_state import sample_all\nnvml = _import_pynvml()\nnvml.nvmlInit()\n"
            "print(json.dumps([dataclasses.asdict(s) for s in sample_all(nvml)]))")  # fmt: skip
    done = child(fake_nvml, ["-c", code])
    assert done.returncode == 0, done.stderr
    (sample,) = json.loads(done.stdout)
    assert sample == {"index": 0, "bus_id": "00000000:00:1E.0", "throttle_reasons": [], "sm_clock_mhz": 585,
                      "sm_clock_max_mhz": 1590, "pcie_gen": 3, "pcie_gen_max": 3, "pcie_width": 8, "pcie_width_max": 16,
                      "power_limit_w": 70.0, "power_default_limit_w": 70.0, "persistence_mode": False,
                      "temperature_c": 40, "processes": [[5762, 1005]]}  # fmt: skip


def test_not_supported_fields_become_unknown_and_the_gpu_is_still_reported(fake_nvml):
    # A GeForce board: no ECC, no power readings; the rest of what the driver says stays.
    out = probe(fake_nvml, FAKE_NVML_NOT_SUPPORTED="ecc,power,persistence,retired,processes")
    (gpu,) = out["gpus"]
    assert gpu["ecc_uncorrected_errors"] is None and gpu["processes"] is None
    health = gpu["health"]
    assert health["power_limit_mw"] is None and health["power_default_limit_mw"] is None
    assert health["persistence_mode"] is None and health["retired_pages_sbe"] is None
    assert health["retired_pages_pending"] is None
    assert (gpu["name"], gpu["memory_total_mib"], health["utilization_gpu_percent"]) == ("Tesla T4", 15360, 0)
    assert out["driver"]["version"] == "515.105.01"


def test_a_gpu_that_answers_nothing_but_its_index_is_still_one_gpu(fake_nvml):
    everything = "name,uuid,pci,cc,memory,pcie,ecc,processes,utilization,persistence,display,power,retired,clocks"
    (gpu,) = probe(fake_nvml, FAKE_NVML_NOT_SUPPORTED=everything)["gpus"]
    assert gpu["index"] == 0 and gpu["name"] is None and gpu["pcie"] is None and gpu["health"] is None
    assert gpu["mig_enabled"] is False


@pytest.mark.parametrize(("code", "text"), [("9", "Driver Not Loaded"), ("18", "Driver/library version mismatch")])
def test_a_failed_init_is_the_whole_answer_in_the_words_users_search_for(fake_nvml, code, text):
    assert probe(fake_nvml, FAKE_NVML_INIT_RETURN=code)["failed"] == text


# -- the whole `gpudoctor check` -----------------------------------------------------------------------------------


def check_json(lib: Path, *args: str, path_first: Path | None = None, **fake_env: str) -> tuple[int, dict]:
    done = child(lib, ["-m", "gpudoctor", "check", "--json", *args], path_first=path_first, **fake_env)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_check_on_the_fake_t4_reports_it_from_nvml_with_no_gpu_error(fake_nvml):
    _, report = check_json(fake_nvml, path_first=DATA / "fakebin")
    facts = report["facts"]
    assert [g["name"] for g in facts["gpus"]] == ["Tesla T4"]
    assert facts["driver"]["version"] == "515.105.01" and facts["driver"]["nvml_error"] is None
    assert not [e for e in facts["probe_errors"] if e["probe"] == "nvml"]
    assert report["crashes"] == []
    gpu_section = {f["id"]: f["severity"] for f in report["findings"] if f["section"] == "gpu"}
    assert gpu_section["gpus-found"] == "ok"
    # A healthy T4 gets notes at most (the capture's x8 link, persistence off), never a warning or an error. The
    # frameworks installed here may well be too new for driver 515: those findings are true and not the GPU's.
    assert set(gpu_section.values()) <= {"ok", "info"}, gpu_section


def test_check_with_the_driver_not_loaded_says_so(fake_nvml, tmp_path):
    # nvidia-smi from the same driver package fails too; its line as in tests/data/threads/env-wsl-5554.toml
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                   "Make sure that the latest NVIDIA driver is installed and running.\"\nexit 9\n")  # fmt: skip
    smi.chmod(0o755)
    snapshot = tmp_path / "snapshot.json"
    _, report = check_json(fake_nvml, "--save", str(snapshot), path_first=bin_dir, FAKE_NVML_INIT_RETURN="9")
    assert report["facts"]["driver"]["nvml_error"] == "Driver Not Loaded"
    if report["facts"]["pci_devices"] == []:  # this machine's bus has no NVIDIA device: nothing is missing a driver
        (finding,) = [f for f in report["findings"] if f["section"] == "gpu"]
        assert finding["id"] == "no-nvidia-gpu" and "NVML: Driver Not Loaded" in finding["evidence"]
    # Where the T4 is on the bus with no driver bound (the module is not loaded), the same facts are an error.
    # The kernel module is this host's own fact (the H200 host has nvidia loaded): it is set to "not loaded" here.
    saved = json.loads(snapshot.read_text())
    saved["pci_devices"] = [{"bus_id": "0000:00:1e.0", "vendor_id": "10de", "device_id": "1eb8", "driver": None}]
    saved["driver"] = {**saved["driver"], "kernel_module": None, "kernel_module_version": None}
    snapshot.write_text(json.dumps(saved))
    code, report = check_json(fake_nvml, "--from", str(snapshot))
    finding = {f["id"]: f for f in report["findings"]}["gpu-without-driver"]
    assert code == 1 and finding["severity"] == "error" and "NVML: Driver Not Loaded" in finding["evidence"]
    # With the module loaded, as the H200 host's snapshot says (tests/data/facts/h200-host.json), it is not that.
    h200 = json.loads((FACTS_DIR / "h200-host.json").read_text())
    saved["driver"] = {**saved["driver"], "kernel_module": h200["driver"]["kernel_module"],
                       "kernel_module_version": h200["driver"]["kernel_module_version"]}
    snapshot.write_text(json.dumps(saved))
    _, report = check_json(fake_nvml, "--from", str(snapshot))
    assert "gpu-without-driver" not in {f["id"] for f in report["findings"]}


def test_without_a_c_compiler_the_build_says_why_so_the_tests_skip(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no cc or gcc on it
    with pytest.raises(CannotBuild, match="no C compiler"):
        build(tmp_path / "lib")
    assert not (tmp_path / "lib").exists()
