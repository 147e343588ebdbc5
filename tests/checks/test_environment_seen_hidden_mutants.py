"""environment.gpu_seen_then_hidden finding by finding (issue 11: mutation score of checks/environment.py): torch that
saw the GPU in one process while the failing run says "No CUDA GPUs are available" is the run's CUDA_VISIBLE_DEVICES;
the message alone, outside a container, WSL or a notebook, makes it the likeliest cause.
test_signature_classes.py judges the pasted lines end to end; this file pins the whole warning and each fact without
which it is not this warning (one set CUDA_VISIBLE_DEVICES is _set_and_no_device's, test_environment_mutants.py)."""

from __future__ import annotations

from gpudoctor.checks import environment as e
from gpudoctor.model import Facts, Finding, Fix, Frameworks, Host, Section, Severity, Symptom, TorchBuild

NONE_AVAILABLE = Symptom("cuda-unavailable", "RuntimeError: No CUDA GPUs are available", "torch")
SEEN = Frameworks(torch=TorchBuild(version="1.8.0", cuda="10.2", build="cuda", cuda_available=True))


def run(facts: Facts) -> list[Finding]:
    return list(e.gpu_seen_then_hidden(facts, None))


def test_torch_that_saw_the_gpu_and_a_run_that_sees_none_pinned():
    other = Symptom("cuda-unavailable", "UserWarning: CUDA initialization: CUDA unknown error", "torch")
    second = Symptom("cuda-unavailable", "No CUDA GPUs are available (second run)")
    facts = Facts(frameworks=SEEN, symptoms=(other, NONE_AVAILABLE, second), host=Host(os="linux", env={"LD_LIBRARY_PATH": "/usr/lib"}))
    assert run(facts) == [Finding(
        "cuda-visible-devices-hides-all-gpus", Severity.WARNING, Section.ENVIRONMENT,
        "torch sees the GPU in one process and none in the failing run: the run's environment most likely hides it (CUDA_VISIBLE_DEVICES)",
        ("torch.cuda.is_available() printed True", f"log: {NONE_AVAILABLE.text}",
         "the driver works, so what differs is the failing run's environment: a script or launcher that sets "
         "CUDA_VISIBLE_DEVICES to a GPU this machine does not have hides every GPU"),
        Fix("Find where the run sets CUDA_VISIBLE_DEVICES (its shell script, launcher or code) and unset it or name a GPU that exists",
            ("grep -rn CUDA_VISIBLE_DEVICES .   # the project's scripts and code", "nvidia-smi -L   # the GPUs that exist"),
            "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables"))]
    assert len(run(Facts(frameworks=SEEN, symptoms=(NONE_AVAILABLE,)))) == 1  # no host known: nothing says the variable is set


def test_without_torch_seeing_the_gpu_the_message_alone_is_the_likeliest_cause():
    # https://github.com/jiaw-z/CoR-GS/issues/23: a run script, then only "No CUDA GPUs are available"
    for frameworks in (None, Frameworks(), Frameworks(torch=TorchBuild(version="1.8.0", build="cuda", cuda_available=False))):
        found = run(Facts(frameworks=frameworks, symptoms=(NONE_AVAILABLE,)))
        assert [(f.id, f.severity) for f in found] == [("cuda-visible-devices-hides-all-gpus", Severity.WARNING)]
        assert found[0].title == ("torch reached the NVIDIA driver but sees no GPU: most often CUDA_VISIBLE_DEVICES hides "
                                  "them (set by a script, launcher or the code)")
        assert found[0].evidence == (f"log: {NONE_AVAILABLE.text}", "torch says this when the driver answers with no "
                                     "device; without a driver it says \"Found no NVIDIA driver\" instead")
        assert found[0].fix == run(Facts(frameworks=SEEN, symptoms=(NONE_AVAILABLE,)))[0].fix


def test_each_fact_it_needs():
    assert run(Facts(frameworks=SEEN)) == []
    # another cuda-unavailable line is not the run that found none; the words on another kind of line are not either
    assert run(Facts(frameworks=SEEN, symptoms=(Symptom("cuda-unavailable", "CUDA unknown error"),
                                                 Symptom("cuda-no-device", "No CUDA GPUs are available")))) == []


def test_a_container_wsl_a_notebook_or_no_gpu_leave_it_to_their_own_checks():
    from gpudoctor.model.platform_facts import Notebook
    for host in (Host(os="linux", container="docker"), Host(os="linux", wsl=2), Host(os="linux", notebook=Notebook(kind="colab"))):
        assert run(Facts(frameworks=SEEN, symptoms=(NONE_AVAILABLE,), host=host)) == [], host
    assert run(Facts(frameworks=SEEN, symptoms=(NONE_AVAILABLE,), gpus=(), pci_devices=())) == []
    assert len(run(Facts(frameworks=SEEN, symptoms=(NONE_AVAILABLE,), host=Host(os="linux", wsl=None, container=None)))) == 1


def test_a_set_cuda_visible_devices_is_left_to_the_rule_that_quotes_it():
    for value in ("3", ""):
        assert run(Facts(frameworks=SEEN, symptoms=(NONE_AVAILABLE,), host=Host(os="linux", env={"CUDA_VISIBLE_DEVICES": value}))) == []
    assert len(run(Facts(frameworks=SEEN, symptoms=(NONE_AVAILABLE,), host=Host(os="linux", env={"NVIDIA_VISIBLE_DEVICES": "3"})))) == 1


def test_a_gpu_the_driver_lists_and_a_run_that_finds_no_device():
    # https://github.com/pytorch/examples/issues/115: nvidia-smi lists the GPU, the run says error=38 (no device)
    from gpudoctor.model import Gpu
    no_device = Symptom("cuda-no-device", "THCudaCheck FAIL file=torch/csrc/cuda/Module.cpp line=109 error=38 : no CUDA-capable device is detected")
    gpus = (Gpu(index=0, name="GeForce GTX 1080"),)
    (found,) = run(Facts(gpus=gpus, symptoms=(no_device,)))
    assert (found.id, found.severity) == ("cuda-visible-devices-hides-all-gpus", Severity.WARNING)
    assert found.title.startswith("The driver lists the GPU but CUDA in the failing run finds no device")
    assert found.evidence[:2] == ("the driver lists 1 GPU(s)", f"log: {no_device.text}")
    assert run(Facts(symptoms=(no_device,))) == []  # no GPU listed: the message alone has several likely causes
    assert run(Facts(gpus=gpus, symptoms=(no_device,), host=Host(os="linux", wsl=2))) == []
    assert run(Facts(gpus=gpus, symptoms=(no_device,), host=Host(os="linux", env={"CUDA_VISIBLE_DEVICES": "1"}))) == []


NO_DEVICE = Symptom("cuda-no-device", "THCudaCheck FAIL file=torch/csrc/cuda/Module.cpp line=109 error=38 : no CUDA-capable device is detected")


def test_a_gpu_the_driver_lists_and_a_run_that_finds_no_device_pinned():
    # https://github.com/pytorch/examples/issues/115: nvidia-smi lists the GPU, the run says error=38 (no device)
    from gpudoctor.model import Gpu

    gpus = (Gpu(index=0, name="GeForce GTX 1080"), Gpu(index=1, name="GeForce GTX 1080"))
    assert run(Facts(gpus=gpus, symptoms=(NO_DEVICE,))) == [Finding(
        "cuda-visible-devices-hides-all-gpus", Severity.WARNING, Section.ENVIRONMENT,
        "The driver lists the GPU but CUDA in the failing run finds no device: the run's environment most likely hides it (CUDA_VISIBLE_DEVICES)",
        ("the driver lists 2 GPU(s)", f"log: {NO_DEVICE.text}",
         "a GPU the driver lists is invisible to CUDA only when the process is told to look elsewhere: "
         "CUDA_VISIBLE_DEVICES naming a GPU this machine does not have hides every GPU"),
        run(Facts(frameworks=SEEN, symptoms=(NONE_AVAILABLE,)))[0].fix)]


def test_torch_s_own_words_or_torch_that_saw_the_gpu_keep_their_finding_beside_a_listed_gpu():
    from gpudoctor.model import Gpu

    gpus = (Gpu(index=0, name="GeForce GTX 1080"),)
    # torch's "No CUDA GPUs are available" with the GPU listed: the driver answered, torch's finding says so
    (words,) = run(Facts(gpus=gpus, symptoms=(NONE_AVAILABLE, NO_DEVICE)))
    assert words.title.startswith("torch reached the NVIDIA driver but sees no GPU")
    # torch saw the GPU in another process: that is the finding, whichever line came first
    for found in ((NONE_AVAILABLE,), (NO_DEVICE,)):
        (seen,) = run(Facts(frameworks=SEEN, gpus=gpus, symptoms=found))
        assert seen.title.startswith("torch sees the GPU in one process and none in the failing run"), found
        assert seen.evidence[:2] == ("torch.cuda.is_available() printed True", f"log: {found[0].text}")
