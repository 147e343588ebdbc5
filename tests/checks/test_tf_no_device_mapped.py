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


def test_the_finding_pinned_and_each_line_of_a_cuda_build_s_attempt_silences_it():
    import pytest  # noqa: F401

    from gpudoctor.checks.frameworks import _no_device_and_no_cuda_library_tried
    from gpudoctor.model import Facts, Finding, Fix, Section, Severity, Symptom

    mapped = Symptom("tf-no-device-mapped", "Device mapping: no known devices.", "tensorflow")
    assert list(_no_device_and_no_cuda_library_tried(Facts(symptoms=(mapped,)), load_matrix())) == [Finding(
        "tf-cpu-package-shadows-gpu", Severity.WARNING, Section.TENSORFLOW,
        "TensorFlow mapped no GPU device and tried to load no CUDA library: most often the TensorFlow installed is a CPU-only package",
        ("log: Device mapping: no known devices.",
         "a CUDA build that cannot use the GPU logs which CUDA library or driver call failed; no such line is in the evidence",
         "`pip list | grep -i tensorflow` settles it (before 1.15 the GPU build was the tensorflow-gpu package)"),
        Fix("Remove the CPU-only TensorFlow and install TensorFlow's GPU build of your release",
            ("pip uninstall -y tensorflow tensorflow-cpu",
             "pip install tensorflow-gpu==<release>   # 1.x; 2.1-2.14: tensorflow; 2.15+ on Linux: 'tensorflow[and-cuda]'"),
            "https://www.tensorflow.org/install/pip"))]
    for kind in ("library-not-loadable", "tf-gpu-libs-missing", "cuinit-failed", "no-driver-found", "nvidia-driver-not-loaded",
                 "cuda-no-device"):
        attempt = Symptom(kind, "a line of the CUDA build's attempt", "tensorflow")
        assert list(_no_device_and_no_cuda_library_tried(Facts(symptoms=(mapped, attempt)), load_matrix())) == [], kind
    assert list(_no_device_and_no_cuda_library_tried(Facts(symptoms=(Symptom("tf-gpu-libs-missing", "x", None),)), None)) == []
