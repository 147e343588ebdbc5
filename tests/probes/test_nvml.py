"""probe_nvml against a fake NVML that raises the real pynvml exception classes (tests/probes/fake_pynvml.py), and
once against the real pynvml on this GPU-less machine."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import psutil
import pynvml
import pytest

from gpudoctor.errors import ProbeFailed
from gpudoctor.model import Driver, Gpu, GpuHealth, GpuProcess, Pcie
from gpudoctor.probes.nvml import nvml_error_text, probe_nvml
from tests.probes.fake_pynvml import (
    INVISIBLE_PID,
    MIB,
    FakeGpu,
    FakeNvml,
    failing_init,
    healthy_rtx_4090,
    two_a100s_one_with_mig,
)

MY_NAME = psutil.Process(os.getpid()).name()


def test_healthy_rtx_4090() -> None:
    nvml = healthy_rtx_4090()
    driver, gpus = probe_nvml(nvml)
    assert driver == Driver(version="570.124.04", cuda_version="12.8")
    assert gpus == (
        Gpu(
            index=0,
            name="NVIDIA GeForce RTX 4090",
            uuid="GPU-5a1c2f0e-8d4b-4e39-9a51-0c3b7d2e9f41",
            pci_bus_id="00000000:01:00.0",
            compute_capability="8.9",
            memory_total_mib=24564,
            memory_used_mib=412,
            pcie=Pcie(gen_current=4, gen_max=4, width_current=16, width_max=16),
            mig_enabled=False,  # NotSupported: a GPU without MIG is probed and not in MIG mode
            mig_instances=(),  # and so has no MIG instances
            ecc_uncorrected_errors=None,  # NotSupported on GeForce: unknown, not zero
            processes=(
                # listed as compute and as graphics: one process; its name read from /proc through psutil
                GpuProcess(pid=os.getpid(), name=MY_NAME, used_mib=20000),
                GpuProcess(pid=INVISIBLE_PID, name=None, used_mib=1024),  # not visible here: name unknown
            ),
        ),
    )
    assert (nvml.init_calls, nvml.shutdown_calls) == (1, 1)


def test_two_a100s_one_in_mig_mode() -> None:
    nvml = two_a100s_one_with_mig()
    driver, (mig, plain) = probe_nvml(nvml)
    assert driver == Driver(version="535.54.03", cuda_version="12.2")
    assert (mig.index, mig.pci_bus_id, mig.compute_capability) == (0, "00000000:07:00.0", "8.0")
    assert (plain.index, plain.pci_bus_id, plain.compute_capability) == (1, "00000000:0F:00.0", "8.0")
    assert (mig.name, plain.name) == ("NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB")
    assert (mig.memory_total_mib, mig.memory_used_mib, plain.memory_used_mib) == (81920, 50, 0)
    assert (mig.mig_enabled, plain.mig_enabled) == (True, False)
    assert (mig.ecc_uncorrected_errors, plain.ecc_uncorrected_errors) == (0, 2)
    assert plain.pcie == Pcie(gen_current=4, gen_max=4, width_current=8, width_max=16)
    assert mig.processes == (GpuProcess(pid=INVISIBLE_PID, name=None, used_mib=None),)
    assert plain.processes == ()  # probed: nothing running
    assert nvml.shutdown_calls == 1


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH, "Driver/library version mismatch"),
        (pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, "NVML Shared Library Not Found"),
        (pynvml.NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded"),
        (pynvml.NVML_ERROR_NO_PERMISSION, "Insufficient Permissions"),
    ],
)
def test_init_failure_is_one_line_probe_failure_and_no_shutdown(code: int, message: str) -> None:
    nvml = failing_init(code)
    with pytest.raises(ProbeFailed) as caught:
        probe_nvml(nvml)
    assert str(caught.value) == message
    assert (nvml.init_calls, nvml.shutdown_calls) == (1, 0)


def test_init_failures_are_the_real_pynvml_classes() -> None:
    # pynvml's NVMLError.__new__ maps a code to its subclass; the fake builds them the same way.
    assert type(failing_init(18)._init_error) is pynvml.NVMLError_LibRmVersionMismatch
    assert type(failing_init(12)._init_error) is pynvml.NVMLError_LibraryNotFound
    assert type(failing_init(9)._init_error) is pynvml.NVMLError_DriverNotLoaded


def test_nvml_error_text(monkeypatch: pytest.MonkeyPatch) -> None:
    assert nvml_error_text(pynvml.NVMLError_LibRmVersionMismatch()) == "Driver/library version mismatch"
    assert nvml_error_text(pynvml.NVMLError(pynvml.NVML_ERROR_GPU_IS_LOST)) == "GPU is lost"
    # A code without a built-in text asks the library for one (pynvml keeps the answer); without a library, pynvml
    # falls back to the number. An earlier test may have loaded a library (a GPU host's, or the fake NVML on
    # LD_LIBRARY_PATH): this one states the no-library case, whatever ran before it.
    monkeypatch.setattr(pynvml, "nvmlLib", None)
    monkeypatch.setattr(pynvml, "_nvmlGetFunctionPointer_cache", {})
    known = {k: v for k, v in pynvml.NVMLError._errcode_to_string.items() if k != pynvml.NVML_ERROR_NOT_READY}
    monkeypatch.setattr(pynvml.NVMLError, "_errcode_to_string", known)
    assert nvml_error_text(pynvml.NVMLError(pynvml.NVML_ERROR_NOT_READY)) == "NVML Error with code 27"


def test_per_field_failures_set_only_that_field_to_none() -> None:
    gpu = FakeGpu(
        mig_mode=(0, 0),
        ecc_uncorrected=0,
        compute_processes=[(INVISIBLE_PID, 100 * MIB)],
        fail={
            "nvmlDeviceGetTotalEccErrors": pynvml.NVMLError_NotSupported(),
            "nvmlDeviceGetCudaComputeCapability": pynvml.NVMLError_FunctionNotFound(),
            "nvmlDeviceGetMigMode": pynvml.NVMLError_NoPermission(),  # not NotSupported: unknown, not False
            "nvmlDeviceGetCurrPcieLinkGeneration": pynvml.NVMLError_NotSupported(),
            "nvmlDeviceGetMemoryInfo": pynvml.NVMLError_NoPermission(),
            "nvmlDeviceGetUUID": pynvml.NVMLError_Unknown(),
            # pynvml wraps FunctionNotFound from the unversioned process calls into this non-NVMLError class
            "nvmlDeviceGetGraphicsRunningProcesses": pynvml.NVMLLibraryMismatchError("unversioned"),
        },
    )
    nvml = FakeNvml([gpu])
    _, (seen,) = probe_nvml(nvml)
    assert seen == Gpu(
        index=0,
        name="NVIDIA GeForce RTX 4090",
        uuid=None,
        pci_bus_id="00000000:01:00.0",
        compute_capability=None,
        memory_total_mib=None,
        memory_used_mib=None,
        pcie=Pcie(gen_current=None, gen_max=4, width_current=16, width_max=16),
        mig_enabled=None,
        ecc_uncorrected_errors=None,
        processes=(GpuProcess(pid=INVISIBLE_PID, name=None, used_mib=100),),  # the compute list still counts
    )
    assert nvml.shutdown_calls == 1


def test_everything_unavailable_still_keeps_the_gpu() -> None:
    every = [name for name in dir(FakeNvml) if name.startswith("nvmlDevice") and name != "nvmlDeviceGetHandleByIndex"]
    gpu = FakeGpu(fail={name: pynvml.NVMLError_NoPermission() for name in every})
    _, gpus = probe_nvml(FakeNvml([gpu]))
    assert gpus == (Gpu(index=0, mig_enabled=None, pcie=None, processes=None),)


def test_lost_gpu_is_reported_by_index_and_the_others_in_full() -> None:
    lost = FakeGpu(fail={"nvmlDeviceGetHandleByIndex": pynvml.NVMLError_GpuIsLost()})
    nvml = FakeNvml([FakeGpu(), lost])
    _, gpus = probe_nvml(nvml)
    assert gpus[0].name == "NVIDIA GeForce RTX 4090"
    # nothing else is known about it, except that NVML said it is lost (it fell off the bus): a health fact
    assert gpus[1] == Gpu(index=1, health=GpuHealth(lost=True))


def test_driver_version_and_cuda_failures_are_unknown() -> None:
    nvml = FakeNvml(
        fail={
            "nvmlSystemGetDriverVersion": pynvml.NVMLError_Unknown(),
            "nvmlSystemGetCudaDriverVersion_v2": pynvml.NVMLError_FunctionNotFound(),
            "nvmlSystemGetCudaDriverVersion": pynvml.NVMLError_FunctionNotFound(),
        }
    )
    assert probe_nvml(nvml) == (Driver(version=None, cuda_version=None), ())


def test_old_binding_bytes_and_missing_functions() -> None:
    # nvidia-ml-py < 11.515.48: bytes from string getters; a binding older still lacks _v2 and MIG.
    nvml = FakeNvml(
        [FakeGpu(mig_mode=(1, 0))],
        cuda_version=13000,
        bytes_strings=True,
        missing=("nvmlSystemGetCudaDriverVersion_v2", "nvmlDeviceGetMigMode"),
    )
    driver, (gpu,) = probe_nvml(nvml)
    assert driver == Driver(version="570.124.04", cuda_version="13.0")
    assert (gpu.name, gpu.uuid, gpu.pci_bus_id) == (
        "NVIDIA GeForce RTX 4090",
        "GPU-5a1c2f0e-8d4b-4e39-9a51-0c3b7d2e9f41",
        "00000000:01:00.0",
    )
    assert gpu.mig_enabled is None


def test_no_gpus() -> None:
    nvml = FakeNvml([])
    assert probe_nvml(nvml) == (Driver(version="570.124.04", cuda_version="12.8"), ())
    assert nvml.shutdown_calls == 1


def test_count_failure_is_probe_failure_and_still_shuts_down() -> None:
    nvml = FakeNvml([FakeGpu()], fail={"nvmlDeviceGetCount": pynvml.NVMLError_Unknown()})
    with pytest.raises(ProbeFailed, match="could not count the GPUs"):
        probe_nvml(nvml)
    assert nvml.shutdown_calls == 1


def test_failing_shutdown_does_not_lose_the_facts() -> None:
    nvml = FakeNvml([FakeGpu()], fail={"nvmlShutdown": pynvml.NVMLError_Unknown()})
    _, gpus = probe_nvml(nvml)
    assert len(gpus) == 1


def test_pynvml_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctypes, "CDLL", lambda *a, **k: None)  # a driver is there; only the binding is missing
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` raise ImportError
    with pytest.raises(ProbeFailed) as caught:
        probe_nvml()
    assert str(caught.value) == "nvidia-ml-py (pynvml) is not installed"


def nvml_library_loads() -> bool:
    """Whether dlopen("libnvidia-ml.so.1") succeeds here, as the probe asks it (asked in a child, so the test process
    maps nothing). ctypes.util.find_library misses a library found only through LD_LIBRARY_PATH, like the fake NVML's
    (tests/fake_nvml_lib.py), which has no unversioned libnvidia-ml.so for it to find."""
    code = "import ctypes; ctypes.CDLL('libnvidia-ml.so.1')"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60).returncode == 0


@pytest.mark.skipif(nvml_library_loads(), reason="libnvidia-ml.so.1 loads here: an NVIDIA driver, or the fake NVML")
def test_real_pynvml_without_a_driver() -> None:
    with pytest.raises(ProbeFailed) as caught:
        probe_nvml()
    assert str(caught.value) == "NVML Shared Library Not Found"


def test_importing_the_probe_loads_neither_pynvml_nor_psutil() -> None:
    code = "import sys, gpudoctor.probes.nvml; print(sorted({'pynvml', 'psutil'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_mig_instances_are_recorded_by_uuid_and_empty_slots_skipped() -> None:
    """Issue 20, class 8: MIG instances are facts, so 'several instances visible' can fire on the machine itself."""
    from gpudoctor.checks import run_checks
    from gpudoctor.matrix import load_matrix
    from gpudoctor.model import Facts

    a100 = FakeGpu(name="NVIDIA A100-SXM4-40GB", compute_capability=(8, 0), mig_mode=(1, 1),
                   mig_slots=["MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f", None, "MIG-cba663e8-9bed-5b7b-b0ad-f6e4e4f2f9c1"])
    geforce = FakeGpu()
    driver, (mig, plain) = probe_nvml(FakeNvml([a100, geforce]))
    assert mig.mig_instances == ("MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f", "MIG-cba663e8-9bed-5b7b-b0ad-f6e4e4f2f9c1")
    assert plain.mig_instances == ()  # MIG not supported: probed, none
    report = run_checks(Facts(driver=driver, gpus=(mig, plain)), load_matrix())
    (finding,) = [f for f in report.findings if f.id == "mig-several-instances-visible"]
    assert finding.evidence[0].startswith("2 MIG instances: GPU 0: MIG-c6d4f1ef")


def test_mig_instances_unknown_when_nvml_cannot_list_them() -> None:
    a100 = FakeGpu(mig_mode=(1, 1), mig_slots=["MIG-a"], fail={"nvmlDeviceGetMigDeviceHandleByIndex": pynvml.NVMLError_Unknown()})
    _, (gpu,) = probe_nvml(FakeNvml([a100]))
    assert gpu.mig_enabled is True and gpu.mig_instances is None  # unknown, never "none"
