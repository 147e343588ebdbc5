"""Findings proved by a pasted log line (issue 11: mutation score of checks/messages.py): each rule pinned as the
user reads it, with and without the facts around the line, and the lines it must not take for its own."""

from __future__ import annotations

import pytest

from gpudoctor.checks import messages as m
from gpudoctor.matrix.tables.signatures import load_signatures
from gpudoctor.matrix import load_matrix
from gpudoctor.model import (CudaToolkit, Driver, Facts, Fix, Frameworks, Gpu, Host, Section, Severity, Symptom, TensorflowBuild,
                             TorchBuild)

MATRIX = load_matrix()
RTX5090 = (Gpu(index=0, name="NVIDIA GeForce RTX 5090", compute_capability="12.0"),)
R470 = Driver(version="470.82.01", cuda_version="11.4", kernel_module="nvidia")


def log(*symptoms: Symptom, **facts) -> Facts:
    return Facts(symptoms=symptoms, **facts)


def run(rule, facts, matrix=None):
    return list(rule(facts, matrix))


def one(rule, facts, matrix=None):
    (finding,) = run(rule, facts, matrix)
    return finding


TOO_OLD = Symptom("driver-too-old", "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).", framework="torch")


def test_lines_are_deduplicated_and_at_most_four():
    lines = [Symptom("out-of-memory", f"torch.OutOfMemoryError: CUDA out of memory. ({i})") for i in (1, 1, 2, 3, 4, 5)]
    f = one(m.log_rules, log(*lines), load_matrix())
    assert f.evidence == tuple(f"log: torch.OutOfMemoryError: CUDA out of memory. ({i})" for i in (1, 2, 3, 4))


def test_driver_too_old_line_pinned():
    facts = log(TOO_OLD, TOO_OLD, driver=Driver(cuda_version="11.4"),
                frameworks=Frameworks(torch=TorchBuild(version="2.1.2+cu121", cuda="12.1")))
    f = one(m.driver_too_old_from_message, facts)
    assert (f.id, f.severity, f.section) == ("driver-too-old-for-cuda-build", Severity.ERROR, Section.TORCH)
    assert f.title == "The NVIDIA driver is too old for torch 2.1.2+cu121 (CUDA 12.1): torch says so when it starts CUDA"
    assert f.evidence == (f"log: {TOO_OLD.text}", "torch reports the driver supporting CUDA 11.4")
    assert (f.fix.summary, f.fix.commands, f.fix.url) == ("Upgrade the NVIDIA driver, or install a torch build for an older CUDA", (),
                                                          "https://pytorch.org/get-started/previous-versions/")
    bare = one(m.driver_too_old_from_message, log(TOO_OLD, frameworks=Frameworks(torch=TorchBuild(version="2.1.2"))))
    assert bare.title == "The NVIDIA driver is too old for torch 2.1.2: torch says so when it starts CUDA"
    assert bare.evidence[-1] == "torch reports the installed driver"
    assert one(m.driver_too_old_from_message, log(TOO_OLD)).title.startswith("The NVIDIA driver is too old for this torch build:")
    with_matrix = one(m.driver_too_old_from_message, facts, MATRIX)
    assert with_matrix.fix.summary.startswith("Install a torch build for the driver's CUDA")
    assert with_matrix.fix.summary.endswith("; or upgrade the NVIDIA driver")
    assert run(m.driver_too_old_from_message, Facts()) == []


INSUFFICIENT = Symptom("driver-insufficient", "CUDA driver version is insufficient for CUDA runtime version")


def test_driver_insufficient_pinned():
    f = one(m.driver_insufficient_from_message, log(INSUFFICIENT, driver=R470))
    assert (f.id, f.severity, f.section) == ("driver-too-old-for-cuda-build", Severity.ERROR, Section.GPU)
    assert f.title == "The NVIDIA driver is older than the CUDA runtime the program was built with"
    assert f.evidence == (f"log: {INSUFFICIENT.text}", "driver 470.82.01 cannot run that CUDA runtime")
    assert f.fix.commands == ("nvidia-smi   # 'CUDA Version' is the newest CUDA this driver runs",)
    # no NVIDIA GPU known: CUDA says the same where no driver is installed at all (salesforce/awd-lstm-lm#80, a CPU machine)
    unknown = one(m.driver_insufficient_from_message, log(INSUFFICIENT))
    assert unknown.severity == Severity.WARNING
    assert unknown.title == "The NVIDIA driver is older than the CUDA runtime the program was built with, or no NVIDIA driver (or GPU) is here at all"
    assert unknown.evidence == (f"log: {INSUFFICIENT.text}", "CUDA reports a missing driver with the same error; nothing here shows an NVIDIA GPU")
    assert unknown.fix == f.fix


def test_driver_insufficient_is_left_to_the_toolkit_rule_when_nvcc_is_too_new():
    nvcc = (CudaToolkit(version="12.4", path="/usr/local/cuda-12.4", on_path=True),)
    assert run(m.driver_insufficient_from_message, log(INSUFFICIENT, driver=R470, cuda_toolkits=nvcc), MATRIX) == []
    old_nvcc = (CudaToolkit(version="11.4", path="/usr/local/cuda-11.4", on_path=True),)
    assert len(run(m.driver_insufficient_from_message, log(INSUFFICIENT, driver=R470, cuda_toolkits=old_nvcc), MATRIX)) == 1
    assert len(run(m.driver_insufficient_from_message, log(INSUFFICIENT, driver=R470, cuda_toolkits=nvcc), None)) == 1
    assert len(run(m.driver_insufficient_from_message, log(INSUFFICIENT, cuda_toolkits=nvcc), MATRIX)) == 1  # driver unknown


def test_toolkit_mismatch_line_pinned():
    line = Symptom("toolkit-mismatch", "RuntimeError: The detected CUDA version (11.8) mismatches the version that was used to compile PyTorch (12.1).",
                   subject="11.8 vs 12.1")
    f = one(m.toolkit_mismatch_from_message, log(line))
    assert (f.id, f.severity, f.section) == ("cuda-toolkit-major-mismatch-for-extensions", Severity.WARNING, Section.CUDA)
    assert f.title == "The CUDA toolkit that compiles extensions is 11.8, but torch was built with CUDA 12.1"
    assert f.fix.summary == "Point CUDA_HOME at a CUDA 12.x toolkit, or install the torch build for CUDA 11.8"
    assert f.fix.commands == ("export CUDA_HOME=/usr/local/cuda-12.1",)


def test_arch_not_in_build_line_per_framework():
    torch_line = Symptom("arch-not-in-build", "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible", framework="torch")
    tf_line = Symptom("arch-not-in-build", "TensorFlow was not built with CUDA kernel binaries compatible with compute capability 12.0", framework="tensorflow")
    found = run(m.arch_not_in_build_from_message, log(tf_line, torch_line, gpus=RTX5090))
    assert [(f.id, f.severity, f.section) for f in found] == [("gpu-arch-not-in-build", Severity.ERROR, Section.TORCH),
                                                              ("gpu-arch-not-in-build", Severity.ERROR, Section.TENSORFLOW)]
    assert found[0].title == "The installed PyTorch build has no code for NVIDIA GeForce RTX 5090 (compute capability 12.0): it says so itself"
    assert found[0].evidence == (f"log: {torch_line.text}",)
    assert (found[0].fix.summary, found[0].fix.url) == ("Install a PyTorch build compiled for this GPU", "https://pytorch.org/get-started/locally/")
    assert (found[1].fix.summary, found[1].fix.url) == ("Install a TensorFlow build compiled for this GPU", "https://www.tensorflow.org/install/pip")
    (bare,) = run(m.arch_not_in_build_from_message, log(torch_line))
    assert bare.title == "The installed PyTorch build has no code for the GPU: it says so itself"
    (solved,) = run(m.arch_not_in_build_from_message, log(torch_line, gpus=RTX5090), MATRIX)
    assert solved.fix.summary.startswith("Install a PyTorch build compiled for compute capability 12.0")


NO_KERNEL = Symptom("no-kernel-image", "RuntimeError: CUDA error: no kernel image is available for execution on the device")


def test_no_kernel_image_pinned():
    f = one(m.no_kernel_image_from_message, log(NO_KERNEL))
    assert (f.id, f.severity, f.section) == ("gpu-arch-not-in-build", Severity.ERROR, Section.TORCH)
    assert f.title == "\"no kernel image is available\": the build (or an extension) has no code for this GPU's architecture"
    assert f.evidence == (f"log: {NO_KERNEL.text}", "CUDA raises this when neither SASS for the GPU nor usable PTX is in the binary")
    assert f.fix.url == "https://pytorch.org/get-started/locally/" and f.fix.commands == ()
    assert one(m.no_kernel_image_from_message, log(NO_KERNEL), MATRIX).fix.summary.startswith("Install a build compiled for this GPU's compute capability")
    arch = Symptom("arch-not-in-build", "sm_120 is not compatible", framework="torch")
    assert run(m.no_kernel_image_from_message, log(NO_KERNEL, arch)) == []  # the arch line says more


def _not_loadable(subject: str, framework: str | None = "tensorflow") -> Symptom:
    return Symptom("library-not-loadable", f"Could not load dynamic library '{subject}'; dlerror: {subject}: cannot open shared object file",
                   framework=framework, subject=subject)


def test_tensorflow_missing_cuda_libraries_pinned():
    lines = (_not_loadable("libcudart.so.11.0"), _not_loadable("libcudnn.so.8"), _not_loadable("libcublas.so.11"), _not_loadable("libfoo.so.1"))
    tf = Frameworks(tensorflow=TensorflowBuild(version="2.11.0", is_cuda_build=True))
    f = one(m.cuda_libraries_not_loadable, log(*lines, gpus=RTX5090, frameworks=tf), MATRIX)
    assert (f.id, f.severity, f.section) == ("tf-missing-gpu-libs", Severity.ERROR, Section.TENSORFLOW)
    assert f.title == "TensorFlow cannot load the CUDA libraries it was built for, so it runs on the CPU"
    assert f.evidence[:3] == tuple(f"log: {s.text}" for s in lines[:3])
    assert f.evidence[3] == "the build looks for CUDA 11.0 and cuDNN 8 and CUDA 11 (libcudart.so.11.0, libcudnn.so.8, libcublas.so.11)"
    assert f.fix.summary == "Install what tensorflow 2.11 was built with: CUDA 11.2 and cuDNN 8.1"
    assert f.fix.commands == ("conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1",)
    assert f.fix.url == "https://www.tensorflow.org/install/source#gpu"


def test_tensorflow_missing_libraries_by_what_is_known():
    lines = (_not_loadable("libcudart.so.12"),)
    unknown_gpu = one(m.cuda_libraries_not_loadable, log(*lines))
    assert unknown_gpu.severity is Severity.WARNING
    assert unknown_gpu.title.endswith("so it runs on the CPU (if this machine has an NVIDIA GPU)")
    assert unknown_gpu.fix.summary == "Install the CUDA libraries this TensorFlow was built with (CUDA 12), or a TensorFlow built for the CUDA you have"
    assert unknown_gpu.fix.commands == ("pip install 'tensorflow[and-cuda]'   # TensorFlow 2.14+ on Linux",)
    assert run(m.cuda_libraries_not_loadable, log(*lines, gpus=(), pci_devices=())) == []  # no GPU: CPU is right
    tf216 = Frameworks(tensorflow=TensorflowBuild(version="2.16.1", is_cuda_build=True))
    f = one(m.cuda_libraries_not_loadable, log(Symptom("tf-gpu-libs-missing", "Cannot dlopen some GPU libraries."), gpus=RTX5090, frameworks=tf216), MATRIX)
    assert f.fix.commands == ("pip install 'tensorflow[and-cuda]'   # TensorFlow 2.14+ on Linux: pip brings CUDA and cuDNN",)
    assert len(f.evidence) == 1  # no soname to read


def test_torch_missing_cuda_library_is_a_library_not_on_the_loader_path():
    f = one(m.cuda_libraries_not_loadable, log(_not_loadable("libcudnn.so.9", "torch")))
    assert (f.id, f.severity, f.section) == ("cuda-library-not-on-loader-path", Severity.ERROR, Section.TORCH)
    assert f.title == "PyTorch cannot load a CUDA library it needs"
    assert f.evidence[-1] == "the build looks for cuDNN 9 (libcudnn.so.9)"
    assert (f.fix.summary, f.fix.url) == ("Reinstall torch from the PyTorch index for your CUDA", "https://pytorch.org/get-started/locally/")
    assert run(m.cuda_libraries_not_loadable, log(_not_loadable("libgomp.so.1", "torch"))) == []


LIBCUDA = Symptom("library-not-loadable", "libcuda.so.1: cannot open shared object file", subject="libcuda.so.1")


def test_driver_library_not_loadable_pinned():
    f = one(m.driver_library_not_loadable, log(LIBCUDA, Symptom("no-driver-found", "Found no NVIDIA driver on your system."), gpus=RTX5090))
    assert (f.id, f.severity, f.section) == ("gpu-without-driver", Severity.ERROR, Section.GPU)
    assert f.title == "The NVIDIA driver's user-space library (libcuda) is not installed or not found"
    assert f.evidence == (f"log: {LIBCUDA.text}", "log: Found no NVIDIA driver on your system.",
                          "libcuda comes with the NVIDIA driver; the CUDA toolkit or pip wheels do not provide it")
    assert f.fix.commands == ("nvidia-smi   # must list the GPU", "sudo ubuntu-drivers install   # Ubuntu; other distributions: the vendor's package")
    for host in (Host(os="linux", wsl=2), Host(os="linux", container="docker")):
        assert run(m.driver_library_not_loadable, log(LIBCUDA, host=host)) == []
    assert len(run(m.driver_library_not_loadable, log(LIBCUDA, host=Host(os="linux")))) == 1
    assert run(m.driver_library_not_loadable, log(_not_loadable("libcudart.so.12"))) == []


def test_cudnn_mismatch_lines_pinned():
    tf = Symptom("cudnn-loaded-mismatch", "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.", framework="tensorflow", subject="8.0.5 vs 8.1.0")
    torch = Symptom("cudnn-loaded-mismatch", "cuDNN version incompatibility", framework="torch", subject="")
    found = run(m.cudnn_mismatch_from_message, log(torch, tf))
    assert [(f.id, f.severity, f.section) for f in found] == [("cudnn-version-mismatch", Severity.ERROR, Section.CUDNN)] * 2
    assert found[0].title == "TensorFlow was built with cuDNN 8.1.0 but loads cuDNN 8.0.5, and refuses it"
    assert found[0].evidence == (f"log: {tf.text}", "older TensorFlow releases need the exact cuDNN major.minor they were built with")
    assert found[0].fix.summary == "Install cuDNN 8.1.0 (first on the loader path), or a TensorFlow release built with cuDNN 8.0.5"
    assert found[0].fix.commands == ("conda install cudnn=8.1.0   # in a conda environment",)
    assert found[0].fix.url == "https://www.tensorflow.org/install/source#gpu"
    assert found[1].title == "PyTorch was built with cuDNN ? but loads cuDNN ?, and refuses it"
    assert found[1].evidence == (f"log: {torch.text}",)
    assert (found[1].fix.summary, found[1].fix.commands) == ("Install the cuDNN PyTorch was built with", ())
    assert found[1].fix.url == "https://pytorch.org/get-started/previous-versions/"


def test_mixed_cudnn_sublibraries_pinned():
    lines = (Symptom("cudnn-sublibrary-not-loadable", "Could not load library libcudnn_cnn_infer.so.8"),
             Symptom("cudnn-undefined-symbol", "libcudnn_ops_infer.so.8: undefined symbol: _ZN5cudnn3ops"))
    f = one(m.cudnn_sublibraries_mixed, log(*lines, host=Host(os="linux", env={"LD_LIBRARY_PATH": "/usr/local/cuda/lib64"})))
    assert (f.id, f.severity, f.section) == ("loader-cudnn-shadows-framework-cudnn", Severity.ERROR, Section.CUDNN)
    assert f.evidence == (f"log: {lines[0].text}", f"log: {lines[1].text}", "LD_LIBRARY_PATH=/usr/local/cuda/lib64",
                          "cuDNN's sub-libraries (cnn, ops, adv) must all come from one release; mixing two fails even when the other is newer")
    assert f.fix.url == "https://github.com/pytorch/pytorch/issues/119989"
    assert len(one(m.cudnn_sublibraries_mixed, log(lines[1])).evidence) == 2


RULES = load_signatures().findings


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.symptom)
def test_each_log_rule_gives_its_finding(rule):
    line = Symptom(rule.symptom, f"a {rule.symptom} line")
    (f,) = m.log_rules(log(line, Symptom("other", "x")), load_matrix())
    assert (f.id, f.severity, f.section, f.title, f.fix) == (rule.id, rule.severity, rule.section, rule.title, rule.fix)
    assert f.evidence == (f"log: a {rule.symptom} line", *rule.explanation)


def test_log_rule_severities_and_sections():
    assert {r.symptom: (r.id, r.severity, r.section) for r in RULES} == {
        "container-no-gpu-runtime": ("container-without-gpu-runtime", Severity.ERROR, Section.ENVIRONMENT),
        "cdi-spec-missing": ("container-without-gpu-runtime", Severity.WARNING, Section.ENVIRONMENT),
        "container-banner-no-driver": ("container-without-gpu-runtime", Severity.WARNING, Section.ENVIRONMENT),
        "cuda-system-not-ready": ("fabric-manager-not-running", Severity.ERROR, Section.GPU),
        "driver-module-rejected-by-secure-boot": ("gpu-without-driver", Severity.ERROR, Section.GPU),
        "llama-cpp-cmake-args-not-set": ("gpu-package-cpu-variant", Severity.WARNING, Section.ENVIRONMENT),
        "tf-plugin-not-loadable": ("tf-extension-built-for-other-tf", Severity.WARNING, Section.TENSORFLOW),
        "cudnn-zlib-missing": ("cudnn-zlib-missing", Severity.ERROR, Section.CUDNN),
        "dgl-cpu-build": ("gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT),
        "nccl-shm-failed": ("shm-too-small", Severity.ERROR, Section.ENVIRONMENT),
        "dataloader-shm-exhausted": ("shm-too-small", Severity.WARNING, Section.ENVIRONMENT),
        "ngc-shm-default": ("shm-too-small", Severity.INFO, Section.ENVIRONMENT),
        "xformers-kernels-not-loaded": ("torch-extension-built-for-other-torch", Severity.WARNING, Section.TORCH),
        "mps-macos-too-old": ("apple-macos-too-old-for-mps", Severity.ERROR, Section.GPU),
        "gpu-lost": ("gpu-fallen-off-bus", Severity.ERROR, Section.GPU),
        "forward-compat-unsupported": ("cuda-forward-compat-unsupported-gpu", Severity.ERROR, Section.GPU),
        "torch-dll-dependencies-missing": ("windows-msvc-runtime-missing", Severity.ERROR, Section.TORCH),
        "protobuf-too-new": ("protobuf-too-new-for-generated-code", Severity.ERROR, Section.ENVIRONMENT),
        "tf-extension-mismatch": ("tf-extension-built-for-other-tf", Severity.ERROR, Section.TENSORFLOW),
        "k8s-plugin-no-nvml": ("container-without-gpu-runtime", Severity.WARNING, Section.ENVIRONMENT),
        "container-toolkit-no-nvml": ("container-without-gpu-runtime", Severity.WARNING, Section.ENVIRONMENT),
        "gpu-handle-unknown-error": ("gpu-fallen-off-bus", Severity.WARNING, Section.GPU),
        "cuda-no-device": ("cuda-init-no-device", Severity.WARNING, Section.ENVIRONMENT),
        "out-of-memory": ("cuda-out-of-memory", Severity.INFO, Section.GPU),
        "cudnn-init-failed": ("cudnn-failed-to-initialize", Severity.INFO, Section.CUDNN),
        "cudnn-not-found": ("cudnn-not-on-loader-path", Severity.ERROR, Section.CUDNN),
        "pip-dependency-conflict": ("pip-dependency-conflict", Severity.WARNING, Section.ENVIRONMENT),
        "numpy-older-than-module": ("numpy-older-than-module", Severity.ERROR, Section.ENVIRONMENT),
        "keras3-with-keras2-code": ("keras3-with-tf-keras-code", Severity.ERROR, Section.TENSORFLOW),
        "kfd-permission-denied": ("user-not-in-render-group", Severity.ERROR, Section.GPU),
        "jax-jaxlib-mismatch": ("jax-version-mismatch", Severity.ERROR, Section.JAX),
        "keras-tf-minor-mismatch": ("keras-tf-version-mismatch", Severity.ERROR, Section.TENSORFLOW),
        "keras-newer-than-tf": ("keras-tf-version-mismatch", Severity.ERROR, Section.TENSORFLOW),
        "context-out-of-memory": ("gpu-memory-in-use", Severity.WARNING, Section.GPU),
        "ecc-uncorrectable": ("gpu-ecc-uncorrected-errors", Severity.WARNING, Section.GPU),
        "framework-ptx-newer-than-driver": ("driver-too-old-for-cuda-build", Severity.ERROR, Section.GPU),
        "invalid-ptx": ("cuda-toolkit-newer-than-driver", Severity.ERROR, Section.CUDA),
        "program-minimum-cc": ("gpu-arch-not-in-build", Severity.ERROR, Section.GPU),
        "jax-plugin-init-failed": ("jax-version-mismatch", Severity.WARNING, Section.JAX),
        "keras-needs-newer-tf": ("keras-standalone-tf-mismatch", Severity.ERROR, Section.TENSORFLOW),
        "cuda-library-not-found": ("cuda-library-not-on-loader-path", Severity.ERROR, Section.CUDA),
        "onnxruntime-provider-libraries": ("cuda-library-not-on-loader-path", Severity.WARNING, Section.CUDA),
        "mmcv-without-ops": ("gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT),
        "onnxruntime-cpu-package": ("gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT),
        "wheel-not-supported": ("python-version-no-wheel", Severity.ERROR, Section.ENVIRONMENT),
        "uv-no-wheel-for-python": ("python-version-no-wheel", Severity.ERROR, Section.ENVIRONMENT),
        "python-too-old-for-package": ("python-version-no-wheel", Severity.ERROR, Section.ENVIRONMENT),
        "cudnn-header-lib-mismatch": ("cudnn-version-mismatch", Severity.ERROR, Section.CUDNN),
        "torch-extension-mismatch": ("torch-extension-built-for-other-torch", Severity.ERROR, Section.TORCH),
        "llama-cpp-cpu-build": ("gpu-package-cpu-variant", Severity.WARNING, Section.ENVIRONMENT),
        "xgboost-cpu-build": ("gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT),
        "paddle-cpu-package": ("gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT),
        "bitsandbytes-cpu-build": ("gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT),
        "lightgbm-cpu-build": ("gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT),
        "mxnet-cpu-build": ("gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT),
        "faiss-cpu-build": ("gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT),
        "ctranslate2-cpu-build": ("gpu-package-cpu-variant", Severity.WARNING, Section.ENVIRONMENT),
        "llama-cpp-no-offload": ("gpu-package-cpu-variant", Severity.WARNING, Section.ENVIRONMENT),
        "opencv-cpu-build": ("gpu-package-cpu-variant", Severity.ERROR, Section.ENVIRONMENT),
        "torch-extension-cpu-build": ("gpu-package-cpu-variant", Severity.ERROR, Section.TORCH),
        "cudnn-not-usable": ("cudnn-version-mismatch", Severity.WARNING, Section.CUDNN),
        "tensorflow-gpu-removed": ("tensorflow-gpu-package-removed", Severity.ERROR, Section.TENSORFLOW),
        "requirements-conflict": ("requirements-cannot-be-resolved", Severity.ERROR, Section.ENVIRONMENT),
        "driver-combination-unsupported": ("nvml-driver-library-mismatch", Severity.WARNING, Section.GPU),
        "container-cuda-above-driver": ("driver-too-old-for-cuda-build", Severity.ERROR, Section.GPU),
    }


def test_no_symptoms_no_log_findings():
    assert list(m.log_rules(Facts(), load_matrix())) == []
    assert list(m.log_rules(log(Symptom("out-of-memory", "CUDA out of memory")), None)) == []


@pytest.mark.parametrize(("subject", "needs"), [
    ("libcudart.so.11.0", "CUDA 11.0"), ("libcublas.so.11", "CUDA 11"), ("libcusparse.so.12.1.0.106", "CUDA 12.1"),
    ("cudart64_110.dll", "CUDA 11.0"), ("cudart64_101.dll", "CUDA 10.1"), ("cudart64_90.dll", "CUDA 9.0"), ("cublas64_12.dll", "CUDA 12"),
    ("libcudnn.so.8", "cuDNN 8"), ("cudnn64_8.dll", "cuDNN 8"),
])
def test_the_cuda_a_library_name_asks_for(subject, needs):
    """Regression: libcublas.so.11 read as "CUDA 1.1" (the pattern backtracked into the major's digits)."""
    f = one(m.cuda_libraries_not_loadable, log(_not_loadable(subject), gpus=RTX5090))
    assert f.evidence[-1] == f"the build looks for {needs} ({subject})"


INVALID_FUNCTION = Symptom("invalid-device-function", "RuntimeError: cuda runtime error (8) : invalid device function at THCTensorMathPointwise.cu:246")


def test_invalid_device_function_is_hip_s_under_a_rocm_torch():
    # https://github.com/pytorch/tutorials/issues/8: the older CUDA words for a missing architecture (torch 0.1.6)
    cuda_torch = Frameworks(torch=TorchBuild(version="0.1.6", cuda="8.0", build="cuda"))
    (f,) = run(m.no_kernel_image_from_message, log(INVALID_FUNCTION, frameworks=cuda_torch))
    assert f.evidence[0] == f"log: {INVALID_FUNCTION.text}"
    # a ROCm torch (no AMD GPU list known): the same words are HIP's, for checks/rocm_builds.py
    rocm_torch = Frameworks(torch=TorchBuild(version="2.3.1+rocm6.0", hip="6.0", build="rocm"))
    assert run(m.no_kernel_image_from_message, log(INVALID_FUNCTION, frameworks=rocm_torch)) == []
    # CUDA's own "no kernel image" words stay CUDA's whatever the torch
    assert len(run(m.no_kernel_image_from_message, log(NO_KERNEL, frameworks=rocm_torch))) == 1


def test_no_kernel_image_fix_with_and_without_the_matrix():
    # without a matrix: the bare advice, extensions included
    assert one(m.no_kernel_image_from_message, log(NO_KERNEL)).fix == Fix(
        "Install a build compiled for this GPU's compute capability (and rebuild CUDA extensions with TORCH_CUDA_ARCH_LIST set)",
        (), "https://pytorch.org/get-started/locally/")
    # with one: a torch build solved for this machine (an RTX 5090 on a CUDA 12.8 driver needs a cu128 wheel)
    from gpudoctor.checks import _builds as b

    facts = log(NO_KERNEL, gpus=RTX5090, driver=Driver(version="570.86.10", cuda_version="12.8", kernel_module="nvidia"),
                host=Host(os="linux", arch="x86_64", python="3.11.9"))
    fix = one(m.no_kernel_image_from_message, facts, MATRIX).fix
    assert fix == b.install_fix(facts, MATRIX, "torch", "Install a build compiled for this GPU's compute capability")
    assert fix.summary.startswith("Install a build compiled for this GPU's compute capability: install torch ")
    assert fix.commands[0].startswith("pip install torch==") and "/whl/cu128" in fix.commands[0]
    assert fix.url == "https://pytorch.org/get-started/previous-versions/"


def test_driver_insufficient_with_a_gpu_listed_but_no_driver_version():
    f = one(m.driver_insufficient_from_message, log(INSUFFICIENT, gpus=(Gpu(index=0, name="NVIDIA GeForce RTX 3060"),)))
    assert f.severity == Severity.ERROR
    assert f.evidence == (f"log: {INSUFFICIENT.text}", "the installed NVIDIA driver cannot run that CUDA runtime")


def test_cuda_library_names_are_matched_whatever_their_case():
    # the loader prints what it was asked for: Windows names and some programs use other cases (cuDNN64_8.dll, libnvjitlink)
    f = one(m.cuda_libraries_not_loadable, log(_not_loadable("libnvjitlink.so.12", "torch")))
    assert f.id == "cuda-library-not-on-loader-path"


def test_a_library_line_without_a_framework_belongs_to_the_torch_the_facts_know():
    f = one(m.cuda_libraries_not_loadable, log(_not_loadable("libcudnn.so.9", None), frameworks=Frameworks(torch=TorchBuild(version="2.4.0"))))
    assert (f.section, f.title) == (Section.TORCH, "PyTorch cannot load a CUDA library it needs")


def test_with_the_matrix_torch_s_fix_is_a_cuda_build():
    f = one(m.cuda_libraries_not_loadable, log(_not_loadable("libcudnn.so.9", "torch")), MATRIX)
    assert f.fix.commands[0].startswith("nvidia-smi") and "download.pytorch.org/whl/cu" in f.fix.commands[1]


def test_tensorflow_of_an_unknown_release_names_what_its_libraries_ask_for():
    tf = Frameworks(tensorflow=TensorflowBuild(is_cuda_build=True))
    facts = log(_not_loadable("libcudart.so.11.0"), _not_loadable("libcudnn.so.8"), frameworks=tf, gpus=(Gpu(index=0),))
    f = one(m.cuda_libraries_not_loadable, facts, MATRIX)
    assert f.fix.summary == ("Install the CUDA libraries this TensorFlow was built with (CUDA 11.0, cuDNN 8), or a TensorFlow "
                             "built for the CUDA you have")
    g = one(m.cuda_libraries_not_loadable, log(_not_loadable("libcublasLt.so"), frameworks=tf, gpus=(Gpu(index=0),)), MATRIX)
    assert g.fix.summary == "Install the CUDA libraries this TensorFlow was built with, or a TensorFlow built for the CUDA you have"
