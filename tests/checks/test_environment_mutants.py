"""Environment rules, finding by finding (issue 11: mutation score of checks/environment.py): CUDA_VISIBLE_DEVICES
as CUDA reads it, WSL 1 and WSL 2's libcuda, containers without the NVIDIA runtime, CUDA_FORCE_PTX_JIT, MIG
enumeration and NVIDIA_VISIBLE_DEVICES outside a container; CUDA_VISIBLE_DEVICES set where no GPU list is known but
CUDA found no GPU, and a pasted `docker run` without --gpus (which log line each quotes, and where either alone says
nothing)."""

from __future__ import annotations

import pytest

from gpudoctor.checks import environment as e
from gpudoctor.model import (Driver, Facts, Finding, Fix, Frameworks, Gpu, Host, Libraries, Library, PciDevice, Section, Severity,
                             Symptom, TorchBuild)

U0, U1 = "GPU-1b2c3d4e-0000-1111-2222-333344445555", "GPU-9f8e7d6c-aaaa-bbbb-cccc-ddddeeeeffff"
TWO = (Gpu(index=0, name="NVIDIA A100-SXM4-80GB", uuid=U0), Gpu(index=1, name="NVIDIA A100-SXM4-80GB", uuid=U1))
R535 = Driver(version="535.104.05", cuda_version="12.2", kernel_module="nvidia")


def linux(**env_vars: str) -> Host:
    return Host(os="linux", kernel="5.15.0-105-generic", python="3.10.12", env=dict(env_vars))


# -- CUDA_VISIBLE_DEVICES -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "count"), [
    ("0", 1), ("1", 1), ("0,1", 2), ("1,0", 2), (" 0 , 1 ", 2), ("2", 0), ("0,7,1", 1), ("0,0,1", 1), ("-1", 0), ("", 0),
    ("GPU-1b2c", 1), (U1 + "," + U0, 2), ("GPU-ffff", 0), ("MIG-0d4b", 0), ("nvidia0", 0),
])
def test_visible_gpu_count_reads_the_list_as_cuda_does(value, count):
    assert e.visible_gpu_count(value, TWO) == count


def test_uuids_cannot_be_refuted_without_the_gpus_uuids_and_mig_instances_count_on_mig_gpus():
    assert e.visible_gpu_count("GPU-anything", (Gpu(index=0), Gpu(index=1, uuid=U1))) == 1
    mig = (Gpu(index=0, uuid=U0, mig_enabled=True),)
    assert e.visible_gpu_count("MIG-0d4b1234", mig) == 1
    assert e.visible_gpu_count("MIG-0d4b1234,MIG-0d4b1234", mig) == 1  # the same instance twice is one
    assert e.visible_gpu_count("GPU-0d4b1234", mig) == 0


def test_hidden_gpus_pinned():
    (f,) = e.cuda_visible_devices_hides_all_gpus(Facts(host=linux(CUDA_VISIBLE_DEVICES="2"), gpus=TWO), None)
    assert (f.id, f.severity, f.section) == ("cuda-visible-devices-hides-all-gpus", Severity.ERROR, Section.ENVIRONMENT)
    assert f.title == "CUDA_VISIBLE_DEVICES hides every GPU from CUDA"
    assert f.evidence == ("CUDA_VISIBLE_DEVICES='2'", "this machine has 2 GPUs: indices 0..1")
    assert f.fix.commands == ("unset CUDA_VISIBLE_DEVICES", "export CUDA_VISIBLE_DEVICES=0   # or GPU-<uuid> from nvidia-smi -L")
    assert f.fix.url == "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables"
    (one,) = e.cuda_visible_devices_hides_all_gpus(Facts(host=linux(CUDA_VISIBLE_DEVICES="-1"), gpus=TWO[:1]), None)
    assert one.evidence[1] == "this machine has 1 GPU: indices 0..0"


def test_visible_devices_unset_or_no_gpus_known_is_quiet():
    assert list(e.cuda_visible_devices_hides_all_gpus(Facts(host=linux(), gpus=TWO), None)) == []
    assert list(e.cuda_visible_devices_hides_all_gpus(Facts(host=linux(CUDA_VISIBLE_DEVICES="-1")), None)) == []
    assert list(e.cuda_visible_devices_hides_all_gpus(Facts(host=linux(CUDA_VISIBLE_DEVICES="1"), gpus=TWO), None)) == []


# -- WSL ----------------------------------------------------------------------------------------------------------


def test_wsl1_pinned():
    host = Host(os="linux", kernel="4.4.0-19041-Microsoft", wsl=1, env={})
    (f,) = e.wsl1_no_gpu_support(Facts(host=host), None)
    assert (f.id, f.severity, f.section) == ("wsl1-no-gpu-support", Severity.ERROR, Section.ENVIRONMENT)
    assert f.title == "This is WSL 1, which has no GPU support: CUDA needs WSL 2"
    assert f.evidence == ("kernel 4.4.0-19041-Microsoft (WSL 1)",)
    assert f.fix.commands == ("wsl --list --verbose", "wsl --set-version <distribution> 2")
    assert f.fix.url == e.WSL_CUDA_GUIDE
    assert list(e.wsl1_no_gpu_support(Facts(host=Host(os="linux", wsl=2)), None)) == []
    assert list(e.wsl1_no_gpu_support(Facts(), None)) == []


def _wsl2(libcuda=None, *logs: Symptom) -> Facts:
    return Facts(host=Host(os="linux", kernel="5.15.153.1-microsoft-standard-WSL2", wsl=2, env={}),
                 libraries=Libraries(libcuda=libcuda) if libcuda is not None else None, symptoms=logs or None)


def test_wsl2_without_libcuda_pinned():
    (f,) = e.wsl_libcuda_not_on_loader_path(_wsl2(()), None)
    assert (f.id, f.severity, f.section) == ("wsl-libcuda-not-on-loader-path", Severity.ERROR, Section.ENVIRONMENT)
    assert f.title == "WSL 2 cannot find the Windows driver's libcuda.so"
    assert f.evidence == ("libcuda.so.1 is neither in /usr/lib/wsl/lib nor in the loader cache",)
    assert f.fix.commands == ("echo /usr/lib/wsl/lib | sudo tee /etc/ld.so.conf.d/ld.wsl.conf", "sudo ldconfig",
                              "wsl --shutdown   # from PowerShell, then reopen the distribution")
    assert f.fix.url == e.WSL_CUDA_GUIDE


def test_wsl2_logs_are_the_evidence_two_at_most():
    not_loadable = Symptom("library-not-loadable", "libcuda.so.1: cannot open shared object file", subject="libcuda.so.1")
    other_lib = Symptom("library-not-loadable", "libcudnn.so.8: cannot open shared object file", subject="libcudnn.so.8")
    no_device = Symptom("cuda-no-device", "CUDA driver initialization failed, you might not have a CUDA gpu.")
    (f,) = e.wsl_libcuda_not_on_loader_path(_wsl2(None, other_lib, not_loadable, no_device, no_device), None)
    assert f.evidence == (f"log: {not_loadable.text}", f"log: {no_device.text}")
    assert list(e.wsl_libcuda_not_on_loader_path(_wsl2(None, other_lib), None)) == []  # another library
    found = (Library("/usr/lib/wsl/lib/libcuda.so.1", None),)
    assert list(e.wsl_libcuda_not_on_loader_path(_wsl2(found), None)) == []
    assert list(e.wsl_libcuda_not_on_loader_path(_wsl2(None), None)) == []  # libraries unknown, no log
    assert list(e.wsl_libcuda_not_on_loader_path(Facts(host=Host(os="linux", wsl=1), libraries=Libraries(libcuda=())), None)) == []


# -- containers ---------------------------------------------------------------------------------------------------


HOST_GPU = (PciDevice(bus_id="0000:3b:00.0", vendor_id="10de", driver="nvidia"),)


def _container(driver=None, libcuda=None, pci=HOST_GPU) -> Facts:
    return Facts(host=Host(os="linux", container="docker", env={}), driver=driver, pci_devices=pci,
                 libraries=Libraries(libcuda=libcuda) if libcuda is not None else None)


def test_container_with_nvml_missing_pinned():
    (f,) = e.container_without_gpu_runtime(_container(driver=Driver(nvml_error="NVML Shared Library Not Found")), None)
    assert (f.id, f.severity, f.section) == ("container-without-gpu-runtime", Severity.ERROR, Section.ENVIRONMENT)
    assert f.title == "This docker container was started without GPU access"
    assert f.evidence == ("the host's GPU 0000:3b:00.0 is bound to the nvidia driver",
                          "inside the container NVML says: NVML Shared Library Not Found")
    assert f.fix.commands == ("docker run --gpus all ...",
                              "sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker")
    assert f.fix.url == e.CONTAINER_TOOLKIT


def test_container_with_neither_nvml_nor_libcuda():
    (f,) = e.container_without_gpu_runtime(_container(libcuda=()), None)
    assert f.evidence[1] == "inside the container neither NVML nor libcuda is found"
    (f,) = e.container_without_gpu_runtime(_container(driver=Driver(kernel_module="nvidia"), libcuda=()), None)
    assert f.evidence[1] == "inside the container neither NVML nor libcuda is found"


def test_container_with_gpu_access_or_without_a_host_gpu_is_quiet():
    assert list(e.container_without_gpu_runtime(_container(driver=R535, libcuda=()), None)) == []  # the driver answers
    assert list(e.container_without_gpu_runtime(_container(libcuda=(Library("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "535.104.05"),)), None)) == []
    assert list(e.container_without_gpu_runtime(_container(), None)) == []  # libraries unknown
    assert list(e.container_without_gpu_runtime(_container(libcuda=(), pci=(PciDevice(bus_id="0000:3b:00.0", driver="vfio-pci"),)), None)) == []
    assert list(e.container_without_gpu_runtime(_container(libcuda=(), pci=None), None)) == []
    not_container = Facts(host=Host(os="linux", env={}), pci_devices=HOST_GPU, libraries=Libraries(libcuda=()))
    assert list(e.container_without_gpu_runtime(not_container, None)) == []


# -- CUDA_FORCE_PTX_JIT -------------------------------------------------------------------------------------------


def test_force_ptx_jit_pinned():
    (f,) = e.cuda_force_ptx_jit(Facts(host=linux(CUDA_FORCE_PTX_JIT="1"), gpus=TWO), None)
    assert (f.id, f.severity, f.section) == ("cuda-force-ptx-jit-set", Severity.WARNING, Section.ENVIRONMENT)
    assert f.evidence == ("CUDA_FORCE_PTX_JIT=1",)
    assert f.fix.commands == ("unset CUDA_FORCE_PTX_JIT",)
    assert list(e.cuda_force_ptx_jit(Facts(host=linux(CUDA_FORCE_PTX_JIT="0"), gpus=TWO), None)) == []
    assert list(e.cuda_force_ptx_jit(Facts(host=linux(CUDA_FORCE_PTX_JIT="1")), None)) == []  # no GPU known


# -- MIG ----------------------------------------------------------------------------------------------------------


def test_several_mig_instances_listed_by_nvidia_smi_pinned():
    listing = Symptom("mig-instances", "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-...) with 3 MIG devices", subject="3")
    (f,) = e.mig_several_instances_visible(Facts(host=linux(), symptoms=(listing,)), None)
    assert (f.id, f.severity, f.section) == ("mig-several-instances-visible", Severity.WARNING, Section.ENVIRONMENT)
    assert f.title == "Several MIG instances are visible to one process: CUDA enumerates only one of them"
    assert f.evidence == (listing.text, "CUDA_VISIBLE_DEVICES is not set")
    assert f.fix.commands == ("nvidia-smi -L   # lists the MIG-... UUIDs", "CUDA_VISIBLE_DEVICES=MIG-<uuid> python train.py")
    one = Symptom("mig-instances", "1 MIG device", subject="1")
    assert list(e.mig_several_instances_visible(Facts(host=linux(), symptoms=(one,)), None)) == []


def test_a_mig_gpu_among_several_gpus():
    gpus = (Gpu(index=0, uuid=U0, mig_enabled=True), Gpu(index=1, uuid=U1, mig_enabled=False))
    (f,) = e.mig_several_instances_visible(Facts(host=linux(CUDA_VISIBLE_DEVICES="0,1"), gpus=gpus), None)
    assert f.evidence == ("2 GPUs, in MIG mode: GPU 0", "CUDA_VISIBLE_DEVICES=0,1")
    assert list(e.mig_several_instances_visible(Facts(host=linux(), gpus=gpus[:1]), None)) == []  # one GPU: fine
    # one instance selected by its UUID is what CUDA supports; two are not
    assert list(e.mig_several_instances_visible(Facts(host=linux(CUDA_VISIBLE_DEVICES=" MIG-0d4b"), gpus=gpus), None)) == []
    assert len(list(e.mig_several_instances_visible(Facts(host=linux(CUDA_VISIBLE_DEVICES="MIG-0d4b,MIG-77aa"), gpus=gpus), None))) == 1


# -- NVIDIA_VISIBLE_DEVICES ---------------------------------------------------------------------------------------


def test_nvidia_visible_devices_outside_a_container_pinned():
    (f,) = e.nvidia_visible_devices_outside_container(Facts(host=linux(NVIDIA_VISIBLE_DEVICES="1")), None)
    assert (f.id, f.severity, f.section) == ("nvidia-visible-devices-outside-container", Severity.WARNING, Section.ENVIRONMENT)
    assert f.title == "NVIDIA_VISIBLE_DEVICES is set outside a container, where it has no effect"
    assert f.evidence == ("NVIDIA_VISIBLE_DEVICES=1", "only the NVIDIA container runtime reads it; CUDA itself reads CUDA_VISIBLE_DEVICES")
    assert f.fix.commands == ("export CUDA_VISIBLE_DEVICES=1", "unset NVIDIA_VISIBLE_DEVICES")
    inside = Host(os="linux", container="docker", env={"NVIDIA_VISIBLE_DEVICES": "1"})
    assert list(e.nvidia_visible_devices_outside_container(Facts(host=inside), None)) == []
    pasted = Facts(host=linux(NVIDIA_VISIBLE_DEVICES="1"), provenance={"host.env": "collect_env, line 3"})
    assert list(e.nvidia_visible_devices_outside_container(pasted, None)) == []
    assert list(e.nvidia_visible_devices_outside_container(Facts(host=linux()), None)) == []


def test_a_cuda_visible_devices_index_of_thousands_of_digits_names_no_device_and_crashes_nothing():
    # found by the hostile-snapshot property test: int() of 5,000 digits raises ValueError
    from gpudoctor.checks import environment
    from gpudoctor.model import Gpu

    assert environment._match_entry("9" * 5000, (Gpu(index=0),)) is None
    assert environment._match_entry("0", (Gpu(index=0),)) == 0


# -- CUDA_VISIBLE_DEVICES without a GPU list ----------------------------------------------------------------------

CUDA_ENV = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables"
UNAVAILABLE = Symptom("cuda-unavailable", "torch.cuda.is_available() returned False", "torch")
NO_DEVICE = Symptom("cuda-no-device", "RuntimeError: CUDA error: no CUDA-capable device is detected", "torch")


def hides(value: str | None, *found: Symptom, gpus=None) -> list[Finding]:
    env = {} if value is None else {"CUDA_VISIBLE_DEVICES": value}
    return list(e.cuda_visible_devices_hides_all_gpus(Facts(host=Host(os="linux", env=env), gpus=gpus, symptoms=found or None), None))


def test_cuda_found_no_gpu_while_the_variable_was_set_pinned():
    assert hides("1", NO_DEVICE, UNAVAILABLE, NO_DEVICE) == [Finding(
        "cuda-visible-devices-hides-all-gpus", Severity.WARNING, Section.ENVIRONMENT,
        "CUDA found no GPU while CUDA_VISIBLE_DEVICES='1' was set: it most likely names no GPU of this machine",
        ("CUDA_VISIBLE_DEVICES='1'", f"log: {UNAVAILABLE.text}",
         "CUDA sees only the GPUs the variable lists, and stops at the first entry that names none"),
        Fix("Unset it, or list indices or UUIDs that exist (nvidia-smi -L lists them)",
            ("unset CUDA_VISIBLE_DEVICES   # or remove os.environ['CUDA_VISIBLE_DEVICES'] = ... from the script", "nvidia-smi -L"),
            CUDA_ENV))]


def test_no_device_alone_and_an_empty_value_with_an_empty_gpu_list():
    (f,) = hides("", NO_DEVICE, gpus=())
    assert f.title == "CUDA found no GPU while CUDA_VISIBLE_DEVICES='' was set: it most likely names no GPU of this machine"
    assert f.evidence[:2] == ("CUDA_VISIBLE_DEVICES=''", f"log: {NO_DEVICE.text}")


def test_without_cuda_s_word_or_the_variable_or_with_a_gpu_list_it_is_not_this_warning():
    assert hides("1") == []
    assert hides("1", Symptom("no-driver-found", "Found no NVIDIA driver on your system", "torch")) == []
    assert hides(None, UNAVAILABLE, NO_DEVICE) == []
    assert list(e._set_and_no_device(Facts(), "0")) == []
    assert hides("1", NO_DEVICE, gpus=(Gpu(index=0), Gpu(index=1))) == []  # the list exists: the index is checked instead


WITHOUT_CUDA = Symptom("torch-without-cuda", "This was caused, because torch.cuda.is_available() returned FALSE;", "torch")


def test_torch_without_cuda_counts_only_where_the_value_does_not_start_with_gpu_0():
    # XuelianCheng/LEAStereo#10: search.sh sets CUDA_VISIBLE_DEVICES=1 on a one-GPU machine
    (f,) = hides("1", WITHOUT_CUDA)
    assert f.evidence[:2] == ("CUDA_VISIBLE_DEVICES='1'", f"log: {WITHOUT_CUDA.text}")
    # GPU 0 exists wherever a GPU does; a pasted "0" is as often the reporter's fix
    assert hides("0", WITHOUT_CUDA) == [] and hides(" 0 ,1", WITHOUT_CUDA) == [] and hides("0,1", WITHOUT_CUDA) == []
    (g,) = hides("0", NO_DEVICE)  # CUDA's own "no device" still counts with "0"
    assert g.evidence[1] == f"log: {NO_DEVICE.text}"


def test_torch_s_is_available_false_stands_for_torch_without_cuda():
    # syorami/DDC-transfer-learning#3: os.environ["CUDA_VISIBLE_DEVICES"] = "2", torch.cuda.is_available() is false
    facts = Facts(host=Host(os="linux", env={"CUDA_VISIBLE_DEVICES": "2"}), frameworks=Frameworks(torch=TorchBuild(cuda_available=False)))
    (f,) = e.cuda_visible_devices_hides_all_gpus(facts, None)
    assert f.evidence[:2] == ("CUDA_VISIBLE_DEVICES='2'", "torch.cuda.is_available() is False")
    seen = Facts(host=Host(os="linux", env={"CUDA_VISIBLE_DEVICES": "2"}), frameworks=Frameworks(torch=TorchBuild(cuda_available=True)))
    assert list(e.cuda_visible_devices_hides_all_gpus(seen, None)) == []


# -- docker run without --gpus ------------------------------------------------------------------------------------

RUN = Symptom("container-run-without-gpus", "$ docker run -it --rm -v $PWD:/work pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime bash")
RUN2 = Symptom("container-run-without-gpus", "docker run --rm nvcr.io/nvidia/pytorch:24.05-py3")


def started(*found: Symptom, torch: TorchBuild | None = None) -> list[Finding]:
    frameworks = Frameworks(torch=torch) if torch else None
    return list(e.container_started_without_gpus(Facts(symptoms=found, frameworks=frameworks), None))


def test_a_container_run_without_gpus_where_cuda_then_failed_pinned():
    no_driver = Symptom("no-driver-found", "RuntimeError: Found no NVIDIA driver on your system.", "torch")
    assert started(RUN, NO_DEVICE, RUN2, no_driver) == [Finding(
        "container-without-gpu-runtime", Severity.ERROR, Section.ENVIRONMENT,
        "The container was started without GPU access: its `docker run` has no --gpus",
        (f"log: {RUN.text}", f"log: {no_driver.text}",
         "without --gpus (or --runtime=nvidia) Docker passes no GPU and no driver library into the container"),
        Fix("Start the container with GPUs (the host needs the NVIDIA Container Toolkit)",
            ("docker run --gpus all ...", "sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker"),
            e.CONTAINER_TOOLKIT))]
    assert e.CONTAINER_TOOLKIT == "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html"


@pytest.mark.parametrize("failed", [
    Symptom("nvidia-driver-not-loaded", "NVIDIA driver not loaded"), UNAVAILABLE, NO_DEVICE,
])
def test_each_way_cuda_fails_inside_is_quoted(failed):
    (f,) = started(RUN, failed, torch=TorchBuild(version="2.3.1", cuda_available=True))
    assert f.evidence[:2] == (f"log: {RUN.text}", f"log: {failed.text}")


def test_torch_s_own_is_available_false_stands_for_the_failure():
    (f,) = started(RUN2, torch=TorchBuild(version="2.3.1+cu121", cuda_available=False))
    assert f.evidence[:2] == (f"log: {RUN2.text}", "torch.cuda.is_available() is False inside it")


def test_either_alone_says_nothing():
    assert started(RUN) == []
    assert started(RUN, torch=TorchBuild(version="2.3.1", cuda_available=True)) == []
    assert started(RUN, torch=TorchBuild(version="2.3.1")) == []  # not measured
    assert started(NO_DEVICE, UNAVAILABLE, torch=TorchBuild(cuda_available=False)) == []
    assert started(Symptom("illegal-instruction", "Illegal instruction"), RUN) == []


def test_a_singularity_run_without_nv_pinned():
    run = Symptom("container-run-without-gpus", "singularity shell nemo.sif", subject="singularity")
    lightning = Symptom("torch-without-cuda", " But your machine only has: []", "torch")
    assert started(run, lightning) == [Finding(
        "container-without-gpu-runtime", Severity.ERROR, Section.ENVIRONMENT,
        "The container was started without GPU access: its `singularity`/`apptainer` command has no --nv",
        (f"log: {run.text}", f"log: {lightning.text}",
         "without --nv Singularity and Apptainer bind neither the host's driver libraries nor its /dev/nvidia* devices into the container"),
        Fix("Start the container with --nv", ("singularity exec --nv IMAGE.sif ...   # or: apptainer exec --nv",
                                              "singularity exec --nv IMAGE.sif nvidia-smi   # the GPU table shows it worked"),
            "https://apptainer.org/docs/user/main/gpu.html"))]


def test_a_library_line_without_a_subject_is_no_missing_libcuda():
    assert started(RUN, Symptom("library-not-loadable", "cannot open shared object file")) == []
