"""Line families added as signatures in issue 20's third round, judged end to end from a pasted line: each names the
finding a maintainer would, at the severity its evidence allows."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix


def findings(text: str) -> dict[str, str]:
    report = run_checks(read_evidence(text, "paste"), load_matrix(), "paste")
    return {f.id: f.severity.label for f in report.findings if f.id != "evidence-not-recognised"}


@pytest.mark.parametrize(("line", "severity"), [
    ("XGBoost version not compiled with GPU support.", "error"),  # stefan-jansen/machine-learning-for-trading#190
    ("dgl._ffi.base.DGLError: Check failed: allow_missing: Device API gpu is not enabled. Please install the cuda version of dgl.", "error"),  # dmlc/dgl#3932
    ("E0714 16:34:40.972663 31948 pybind.cc:1277] Cannot use GPU because you have installed CPU version PaddlePaddle.", "error"),
    ("UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers are unavailable.", "error"),
    ("[LightGBM] [Fatal] GPU Tree Learner was not enabled in this build.", "error"),
    ("mxnet.base.MXNetError: [16:24:29] src/storage/storage.cc:119: Compile with USE_CUDA=1 to enable GPU usage", "error"),
    ("AttributeError: module 'faiss' has no attribute 'StandardGpuResources'", "error"),
    ("ValueError: This CTranslate2 package was not compiled with CUDA support", "warning"),  # on a Mac the setup is fine
    ("warning: not compiled with GPU offload support, --gpu-layers option will be ignored", "warning"),
    ("OpenCV Error: No GPU support (The library is compiled without CUDA support) in setDevice", "error"),
    ("RuntimeError: Not compiled with GPU support", "error"),
    ("⚠️  CUDAExecutionProvider not available — ONNX will fall back to CPU.", "error"),
])
def test_a_library_that_says_it_is_its_cpu_build_names_gpu_package_cpu_variant(line, severity):
    assert findings(line) == {"gpu-package-cpu-variant": severity}


def test_torch_not_compiled_with_cuda_is_not_read_as_an_extension():
    assert "gpu-package-cpu-variant" not in findings("AssertionError: Torch not compiled with CUDA enabled")


def test_cudnn_that_cannot_find_libcuda_is_the_driver_library_not_cudnn():
    line = "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file or directory"
    assert findings(line) == {"gpu-without-driver": "warning"}  # whether an NVIDIA GPU is here is not known
    assert findings("Hi, I am using WSL2 with Python 3.11.\n" + line).get("wsl-libcuda-not-on-loader-path") == "error"


def test_the_kernel_logs_api_mismatch_is_the_driver_library_mismatch():
    log = ("[   12.014918] NVRM: API mismatch: the client has the version 570.153.02, but\n"
           "               NVRM: this kernel module has the version 570.144.  Please\n")
    assert findings(log).get("nvml-driver-library-mismatch") == "error"


def test_deepspeeds_op_builder_mismatch_is_the_toolkit_major_for_extensions():
    line = ("deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.2 "
            "does not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions")
    assert "cuda-toolkit-major-mismatch-for-extensions" in findings(line)


def test_an_ngc_banner_alone_is_a_warning_and_dockers_own_refusal_an_error():
    banner = "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available."
    assert findings(banner) == {"container-without-gpu-runtime": "warning"}
    refusal = 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].'
    assert findings(refusal) == {"container-without-gpu-runtime": "error"}


@pytest.mark.parametrize(("line", "expected"), [
    ("Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU",
     {"gpu-fallen-off-bus": "error"}),
    ("Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error", {"gpu-fallen-off-bus": "warning"}),
    ("Error: Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion at (/paddle/paddle/fluid/platform/dynload/cudnn.cc:63)",
     {"cudnn-not-on-loader-path": "error"}),
    ("Failed to start nvml with error:  could not load NVML library", {"container-without-gpu-runtime": "warning"}),
])
def test_lost_gpus_paddles_cudnn_and_the_device_plugins_nvml(line, expected):
    assert findings(line) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() "
     "that might have already set an error? Error 804: forward compatibility was attempted on non supported HW",
     "cuda-forward-compat-unsupported-gpu"),
    ('ERROR    Could not load torch: [WinError 126] The specified module could not be found. Error loading\n'
     '"C:\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.', "windows-msvc-runtime-missing"),
    ("TypeError: Descriptors cannot not be created directly.", "protobuf-too-new-for-generated-code"),
    ("NotFoundError: tensorflow_addons/custom_ops/activations/_activation_ops.so: undefined symbol: _ZN10tensorflow12OpDefBuilder4AttrESs",
     "tf-extension-built-for-other-tf"),
])
def test_the_four_ids_documented_in_round_three_are_named_from_their_lines(text, expected):
    assert findings(text).get(expected) == "error"


def test_another_dll_or_library_is_not_the_msvc_runtime_or_a_tensorflow_add_on():
    cudnn_dll = ('OSError: [WinError 126] The specified module could not be found. Error loading '
                 '"C:\\Python311\\Lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.')
    assert "windows-msvc-runtime-missing" not in findings(cudnn_dll)
    torch_symbol = "ImportError: /usr/lib/python3/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: _ZN3c104cuda9allocatorE"
    assert "tf-extension-built-for-other-tf" not in findings(torch_symbol)


def test_cudnn_that_cannot_find_cublas_is_the_cuda_library_not_cudnn():
    # https://github.com/jax-ml/jax/issues/16625: the cuDNN sub-library loads, its libcublas.so.11 dependency does not
    line = "Could not load library libcudnn_ops_infer.so.8. Error: libcublas.so.11: cannot open shared object file: No such file or directory"
    assert findings(line) == {"cuda-library-not-on-loader-path": "error"}


def test_a_gpu_seen_in_one_process_and_hidden_in_the_run_points_at_cuda_visible_devices():
    # https://github.com/thuml/Anomaly-Transformer/issues/74: the scripts export CUDA_VISIBLE_DEVICES with a GPU id the
    # single-GPU machine does not have
    text = "installed: python3.6.13  cuda10.2 pytorch1.8.0\ntorch.cuda.is_available(): True\nRuntimeError: No CUDA GPUs are available\n"
    assert findings(text) == {"cuda-visible-devices-hides-all-gpus": "warning"}
    # the message alone: torch reached the driver and was told of no device; in all 7 threads of the development corpus
    # that carry it the cause was CUDA_VISIBLE_DEVICES (e.g. https://github.com/jiaw-z/CoR-GS/issues/23), so it is the
    # likeliest cause, a warning; in a container the container's own checks speak instead
    assert findings("torch.cuda.is_available(): False\nRuntimeError: No CUDA GPUs are available\n") == {"cuda-visible-devices-hides-all-gpus": "warning"}
    assert findings("RuntimeError: No CUDA GPUs are available\n") == {"cuda-visible-devices-hides-all-gpus": "warning"}


@pytest.mark.parametrize(("line", "first"), [
    ("nvcc fatal   : Unsupported gpu architecture 'compute_89'", "11.8"),  # mlc-ai/mlc-llm#710
    ("Unsupported gpu architecture 'compute_75'", "10.0"),  # facebookresearch/detectron2#272: "you need at least cuda 10"
    ("nvcc fatal : Unsupported gpu architecture 'compute_120'", "12.8"),
])
def test_nvcc_that_cannot_target_the_gpu_names_the_first_toolkit_that_can(line, first):
    from gpudoctor.checks import run_checks
    from gpudoctor.matrix import load_matrix

    report = run_checks(read_evidence(line, "paste"), load_matrix(), "paste")
    (finding,) = [f for f in report.findings if f.id == "cuda-toolkit-too-old-for-gpu"]
    assert finding.severity.label == "error" and finding.fix.summary.startswith(f"Install CUDA {first} or newer")


def test_invalid_device_function_is_the_older_word_for_a_missing_architecture():
    # https://github.com/pytorch/tutorials/issues/8 (torch 0.1.6, GTX 950M) and dmlc/xgboost#3947 (thrust)
    assert findings("RuntimeError: cuda runtime error (8) : invalid device function at THCTensorMathPointwise.cu:246\n") == {
        "gpu-arch-not-in-build": "error"}
    assert findings("  what():  function_attributes(): after cudaFuncGetAttributes: invalid device function\n") == {
        "gpu-arch-not-in-build": "error"}
    # on an AMD GPU the words are HIP's: the ROCm rules speak, not the CUDA one
    amd = findings("I have an AMD Radeon RX 6700 XT on Ubuntu\nRuntimeError: invalid device function\n")
    assert amd.get("gpu-arch-not-in-build") is None


@pytest.mark.parametrize("text", [
    # oobabooga/textgen#1931: bitsandbytes' CPU library on an M1 Pro; the failure was elsewhere
    "bin /Users/siming/anaconda3/envs/textgen/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so\n"
    "/Users/siming/anaconda3/envs/textgen/lib/python3.10/site-packages/bitsandbytes/cextension.py:33: UserWarning: "
    "The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit multiplication\n"
    "Mac M1 Pro\n",
    "XGBoost version not compiled with GPU support.\nI'm on a MacBook Pro M2 Max\nMacBook Pro M2 Max\n",
    "AttributeError: module 'faiss' has no attribute 'StandardGpuResources'\nI don't have an NVIDIA GPU on this machine.\n",
])
def test_a_cpu_only_build_where_no_nvidia_gpu_can_be_is_information(text):
    report = run_checks(read_evidence(text, "paste"), load_matrix(), "paste")
    (f,) = [f for f in report.findings if f.id == "gpu-package-cpu-variant"]
    assert f.severity.label == "info" and f.evidence[-1].endswith("a CPU-only build is what can run, so this is expected")


def test_the_same_line_on_a_linux_machine_stays_an_error():
    text = ("/home/me/.venv/lib/python3.10/site-packages/bitsandbytes/cextension.py:33: UserWarning: "
            "The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers are unavailable.\n")
    assert findings(text)["gpu-package-cpu-variant"] == "error"


def test_a_cuda_library_beside_tensorflows_own_import_error_is_tensorflows():
    # jetsonhacks/installTensorFlowJetsonTX#5 and takabow/cdsw-demo-env#25: TensorFlow names itself after the library
    line = "ImportError: libcusolver.so.8.0: cannot open shared object file: No such file or directory\n"
    assert "tf-missing-gpu-libs" in findings(line + "Failed to load the native TensorFlow runtime.\n")
    assert "tf-missing-gpu-libs" not in findings(line) and "cuda-library-not-on-loader-path" in findings(line)


def test_cudas_invalid_kernel_image_is_the_arch_missing_from_the_build_but_hips_is_not():
    # tensorflow/tensorflow#43718: TensorFlow 2.3 (CUDA 10.1) on an RTX 3090 (compute capability 8.6)
    line = ("tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:0 "
            "failed. Status: device kernel image is invalid")
    assert findings(line)["gpu-arch-not-in-build"] == "error"
    assert "gpu-arch-not-in-build" not in findings("RuntimeError: HIP error: device kernel image is invalid")
