"""A CUDA or CPU-only torch on a machine whose GPUs are AMD's, where no NVIDIA GPU list is known but torch's CUDA
build itself said it found no NVIDIA driver (issue 11: mutation score of rocm_builds.torch_cuda_build_on_amd_gpu);
tests/amd/test_rocm_builds_pinned.py pins the machines with an NVIDIA GPU list. Without those words a CPU-only build
beside the AMD GPU is still the likeliest cause, a warning."""

from __future__ import annotations

from gpudoctor.checks import rocm_builds as rb
from gpudoctor.model import AmdGpu, Facts, Finding, Fix, Frameworks, Section, Severity, Symptom, TorchBuild

NO_DRIVER = Symptom("no-driver-found", "RuntimeError: Found no NVIDIA driver on your system.", "torch")
RX6800 = AmdGpu(0, "AMD Radeon RX 6800", "gfx1030")


def pasted(torch: TorchBuild | None, *found: Symptom, gpus=(RX6800,)) -> list[Finding]:
    """A paste: no GPU list nor PCI list, so whether an NVIDIA GPU is there is known only from the words."""
    return list(rb.torch_cuda_build_on_amd_gpu(Facts(amd_gpus=gpus, frameworks=Frameworks(torch=torch), symptoms=found or None), None))


def test_torch_s_no_nvidia_driver_words_beside_an_amd_gpu_pinned():
    assert pasted(TorchBuild(version="2.3.1+cu121"), NO_DRIVER) == [Finding(
        "torch-not-rocm-on-amd-gpu", Severity.ERROR, Section.TORCH,
        "torch 2.3.1+cu121 is a CUDA build on a machine whose GPUs are AMD's: it runs on the CPU",
        ("AMD GPU 0: AMD Radeon RX 6800 (gfx1030)", "PyTorch reaches AMD GPUs only through its ROCm build (torch.version.hip)"),
        Fix("Install PyTorch's ROCm build", (), "https://pytorch.org/get-started/locally/"))]


def test_a_cpu_build_and_an_amd_gpu_without_a_target():
    (f,) = pasted(TorchBuild(version="2.3.1+cpu"), NO_DRIVER, gpus=(AmdGpu(None, None),))
    assert f.title == "torch 2.3.1+cpu is a CPU-only build on a machine whose GPUs are AMD's: it runs on the CPU"
    assert f.evidence[0] == "AMD GPU ?: model unknown"


def test_without_the_words_nvidia_presence_is_unknown_and_it_is_silent():
    assert pasted(TorchBuild(version="2.3.1+cu121")) == []
    assert pasted(TorchBuild(version="2.3.1+cu121"), Symptom("cuda-unavailable", "torch.cuda.is_available() False", "torch")) == []
    assert pasted(TorchBuild(version="2.3.1+rocm6.0"), NO_DRIVER) == []
    assert pasted(TorchBuild(version="2.3.1"), NO_DRIVER) == []  # the build is not known
    assert pasted(None, NO_DRIVER) == []
    assert pasted(TorchBuild(version="2.3.1+cu121"), NO_DRIVER, gpus=()) == []


def test_without_the_words_a_cpu_only_build_beside_the_amd_gpu_is_still_the_likeliest_cause():
    # https://github.com/ProGamerGov/dream-creator/issues/21: "I have AMD GPU I get this error "Torch not compiled
    # with CUDA enabled"": the AMD GPU is the one the reporter has; an NVIDIA GPU beside it is not ruled out
    (f,) = pasted(TorchBuild(version="2.3.1+cpu"))
    assert (f.id, f.severity) == ("torch-not-rocm-on-amd-gpu", Severity.WARNING)
    assert f.title == ("torch 2.3.1+cpu is a CPU-only build on a machine whose GPUs are AMD's: it runs on the CPU "
                       "(whether it also has an NVIDIA GPU is not known)")
    (sure,) = pasted(TorchBuild(version="2.3.1+cpu"), NO_DRIVER)
    assert sure.severity == Severity.ERROR and "not known" not in sure.title
