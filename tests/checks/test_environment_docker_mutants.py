"""CUDA_VISIBLE_DEVICES with no GPU list and a pasted `docker run` without --gpus, finding by finding (issue 11:
mutation score of checks/environment.py's _set_and_no_device and container_started_without_gpus): the whole finding
each raises, which log line it quotes, and the machines where either alone says nothing."""

from __future__ import annotations

import pytest

from gpudoctor.checks import environment as e
from gpudoctor.model import Facts, Finding, Fix, Frameworks, Gpu, Host, Section, Severity, Symptom, TorchBuild

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
