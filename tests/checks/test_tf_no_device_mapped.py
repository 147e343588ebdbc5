"""TensorFlow's device placement log maps no device, and nothing shows it trying a CUDA library: a CPU-only
TensorFlow package is the likeliest cause (frameworks.py, _no_device_and_no_cuda_library_tried)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

# google-deepmind/dnc#5, the reporter's later comment
DNC = "this is my Output:\nDevice mapping: no known devices.\n\nany advice please?\n"
# tensorflow/tensorflow#12388: tensorflow-gpu was installed, a CPU `tensorflow` came with it
TF_12388 = ("- **TensorFlow installed from **: `pip3 install tensorflow-gpu`\n"
            "- **TensorFlow version**: ('v1.1.0-rc0-61-g1ec6ed5', '1.1.0')\n"
            "`Device mapping: no known devices.`\n"
            "`2017-08-18 16:44:44.654177: I tensorflow/core/common_runtime/direct_session.cc:300] Device mapping:`\n")


def _found(text: str):
    return [f for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings if f.id == "tf-cpu-package-shadows-gpu"]


def test_no_device_mapped_and_no_cuda_library_tried_names_a_cpu_package_as_a_warning():
    (f,) = _found(DNC)
    assert f.severity.label == "warning" and f.evidence[0] == "log: Device mapping: no known devices."
    assert f.fix.commands[0] == "pip uninstall -y tensorflow tensorflow-cpu"


def test_the_same_class_in_another_thread_where_tensorflow_gpu_was_installed_too():
    (f,) = _found(TF_12388)
    assert "CPU-only package" in f.title


def test_a_cuda_library_that_failed_to_load_is_the_other_cause():
    failed = "ImportError: libcudart.so.8.0: cannot open shared object file: No such file or directory\n"
    assert _found(DNC + failed) == []
    assert _found(DNC + "E tensorflow/stream_executor/cuda/cuda_driver.cc:491] failed call to cuInit: CUDA_ERROR_NO_DEVICE\n") == []


def test_without_an_nvidia_gpu_no_device_is_expected():
    assert _found(DNC + "I don't have an NVIDIA GPU, only the CPU.\n") == []
