"""checks/messages.py as issue 20 changed it, pinned for mutation testing: a program's cuDNN major against the ones
installed (cudnn-version-mismatch from a log line), where the installed majors are read from, the log findings read
from matrices/signatures.toml, and PyTorch's "Found no NVIDIA driver" line as gpu-without-driver.

Equivalent mutant: messages.cudnn_major_mismatch `re.fullmatch(r"(\\d+)", s.subject or "XXXX")` for `or ""`: neither
string is all digits, so a line without a subject names no major either way."""

from __future__ import annotations

import pytest

from gpudoctor.checks import messages as m
from gpudoctor.matrix import load_matrix
from gpudoctor.model import AmdGpu, Facts, Finding, Fix, Gpu, Host, Libraries, Library, Section, Severity, Symptom

GPU_0 = Gpu(index=0, name="NVIDIA GeForce RTX 4090")

MATRIX = load_matrix()
SUPPORT = "https://docs.nvidia.com/deeplearning/cudnn/latest/reference/support-matrix.html"
NOT_FOUND = Symptom("cudnn-not-found", "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file",
                    subject="libcudnn_ops_infer.so.8")
REQUIRES = Symptom("cudnn-major-required", "Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*", framework="onnxruntime",
                   subject="9")
CUDNN9 = Libraries(libcudnn=(Library(path="/usr/lib/x86_64-linux-gnu/libcudnn.so.9", version="9.1.0"),))


def test_a_program_needing_cudnn_8_beside_cudnn_9_on_the_loader():
    (f,) = m.cudnn_major_mismatch(Facts(symptoms=(NOT_FOUND,), libraries=CUDNN9), None)
    assert f == Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
        "The program needs cuDNN 8, but the cuDNN installed is of another major (cuDNN 9.1.0 at /usr/lib/x86_64-linux-gnu/libcudnn.so.9)",
        (f"log: {NOT_FOUND.text}", "installed: cuDNN 9.1.0 at /usr/lib/x86_64-linux-gnu/libcudnn.so.9",
         "a program built for one cuDNN major cannot load another"),
        Fix("Install cuDNN 8 beside the other (pip: nvidia-cudnn-cu11 8.*) and put it on the loader path, or install a build of the "
            "program for the cuDNN you have", ("pip install 'nvidia-cudnn-cu11==8.*'",), SUPPORT))


def test_a_program_requiring_cudnn_9_beside_pip_s_cudnn_8():
    (f,) = m.cudnn_major_mismatch(Facts(symptoms=(REQUIRES,), python_packages={"nvidia-cudnn-cu11": "8.9.2.26"}), MATRIX)
    assert f == Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
        "The program needs cuDNN 9, but the cuDNN installed is of another major (pip: nvidia-cudnn-cu11 8.9.2.26)",
        (f"log: {REQUIRES.text}", "installed: pip: nvidia-cudnn-cu11 8.9.2.26", "a program built for one cuDNN major cannot load another"),
        Fix("Install cuDNN 9 beside the other (pip: nvidia-cudnn-cu12 9.*) and put it on the loader path, or install a build of the "
            "program for the cuDNN you have", ("pip install 'nvidia-cudnn-cu12==9.*'",), SUPPORT))


def test_every_installed_major_is_named_and_a_missing_library_line_decides_first():
    libs = Libraries(libcudnn=(Library(path=None, version="7.6.5"),))
    facts = Facts(symptoms=(REQUIRES, NOT_FOUND), libraries=libs, python_packages={"nvidia-cudnn-cu12": "9.1.0.70"})
    (f,) = m.cudnn_major_mismatch(facts, None)
    assert f.title == "The program needs cuDNN 8, but the cuDNN installed is of another major (cuDNN 7.6.5; pip: nvidia-cudnn-cu12 9.1.0.70)"
    assert f.evidence == (f"log: {NOT_FOUND.text}", "installed: cuDNN 7.6.5; pip: nvidia-cudnn-cu12 9.1.0.70",
                          "a program built for one cuDNN major cannot load another")
    assert f.fix.commands == ("pip install 'nvidia-cudnn-cu11==8.*'",)


@pytest.mark.parametrize(("subject", "major"), [
    ("libcudnn_ops_infer.so.8", "8"), ("cudnn_ops_infer64_8.dll", "8"), ("libcudnn_cnn.so.9.1.0", "9"), ("7", "7"),
])
def test_the_major_is_read_from_a_soname_a_dll_or_a_bare_number(subject, major):
    other = "8" if major != "8" else "9"
    facts = Facts(symptoms=(Symptom("cudnn-not-found", "L", subject=subject),), python_packages={"nvidia-cudnn-cu12": f"{other}.1.0"})
    (f,) = m.cudnn_major_mismatch(facts, None)
    assert f.title.startswith(f"The program needs cuDNN {major}, ")


@pytest.mark.parametrize("facts", [
    Facts(symptoms=(NOT_FOUND,), python_packages={"nvidia-cudnn-cu11": "8.9.2.26"}),  # the major it needs is installed
    Facts(symptoms=(NOT_FOUND,), libraries=Libraries(libcudnn=(Library(path="/x", version="8.9.7"),))),
    Facts(symptoms=(NOT_FOUND,)),  # nothing known installed
    Facts(symptoms=(NOT_FOUND,), libraries=Libraries(libcudnn=None), python_packages={"nvidia-cudnn-cu12": None}),
    Facts(libraries=CUDNN9),  # no program line
    Facts(symptoms=(Symptom("cudnn-not-found", "L", subject="libcudnn.so"),), libraries=CUDNN9),  # no major in the line
    Facts(symptoms=(Symptom("cudnn-not-found", "L", subject=None),), libraries=CUDNN9),
    Facts(symptoms=(Symptom("cudnn-major-required", "L", subject="x9"),), libraries=CUDNN9),
    Facts(symptoms=(Symptom("library-not-loadable", "L", subject="libcudnn.so.8"),), libraries=CUDNN9),  # another rule's line
])
def test_no_finding_without_a_major_asked_for_and_another_installed(facts):
    assert list(m.cudnn_major_mismatch(facts, None)) == []


def test_installed_majors_first_source_wins():
    libs = Libraries(libcudnn=(Library(path=None, version="8.9.7"), Library(path="/a", version="8.1"), Library(path="/b", version="x.1"),
                               Library(path="/c"), Library(path="/d", version="9.0.0")))
    facts = Facts(libraries=libs, python_packages={"nvidia-cudnn-cu12": "9.1", "nvidia-cudnn-cu11": "7.5", "cudnn": "6.0",
                                                   "nvidia-cudnn-cu13": None, "nvidia-cudnn-cu10": "v7"})
    assert m._installed_cudnn_majors(facts) == {"8": "cuDNN 8.9.7", "9": "cuDNN 9.0.0 at /d", "7": "pip: nvidia-cudnn-cu11 7.5"}
    assert m._installed_cudnn_majors(Facts()) == {}
    assert m._installed_cudnn_majors(Facts(libraries=Libraries())) == {}


def test_log_findings_come_from_the_matrix():
    oom = Symptom("out-of-memory", "torch.OutOfMemoryError: CUDA out of memory.")
    (f,) = m.log_rules(Facts(symptoms=(oom,)), MATRIX)
    rule = next(r for r in MATRIX.log_findings if r.symptom == "out-of-memory")
    assert f == Finding(rule.id, rule.severity, rule.section, rule.title, (f"log: {oom.text}", *rule.explanation), rule.fix)
    assert (f.id, f.severity, f.section) == ("cuda-out-of-memory", Severity.INFO, Section.GPU)
    assert list(m.log_rules(Facts(symptoms=()), MATRIX)) == [] and list(m.log_rules(Facts(symptoms=(oom,)), None)) == []
    no_device = Symptom("cuda-no-device", "CUDA_ERROR_NO_DEVICE")
    found = list(m.log_rules(Facts(symptoms=(no_device, oom)), MATRIX))
    assert [x.id for x in found] == [r.id for r in MATRIX.log_findings if r.symptom in ("cuda-no-device", "out-of-memory")]
    assert found[[r.symptom for r in MATRIX.log_findings if r.symptom in ("cuda-no-device", "out-of-memory")].index("cuda-no-device")].evidence[1:] \
        == next(r for r in MATRIX.log_findings if r.symptom == "cuda-no-device").explanation


DRIVER_FIX = Fix("Install the NVIDIA driver (580 or newer runs every current PyTorch and TensorFlow build), then reboot",
                 ("nvidia-smi   # must list the GPU", "sudo ubuntu-drivers install   # Ubuntu; other distributions: the vendor's package"),
                 "https://www.nvidia.com/en-us/drivers/")


def test_a_missing_driver_where_no_nvidia_gpu_is_known_says_so_whole():
    line = Symptom("library-not-loadable", "OSError: libcuda.so.1: cannot open shared object file: No such file or directory", subject="libcuda.so.1")
    assert list(m.driver_library_not_loadable(Facts(symptoms=(line,)), None)) == [Finding(
        "gpu-without-driver", Severity.WARNING, Section.GPU,
        "The NVIDIA driver's user-space library (libcuda) is not installed or not found (if this machine has an NVIDIA GPU)",
        (f"log: {line.text}", "libcuda comes with the NVIDIA driver; the CUDA toolkit or pip wheels do not provide it",
         "nothing here shows an NVIDIA GPU: the same words come from a machine without one (a Mac, an AMD GPU, "
         "a notebook's CPU runtime) and from a container started without GPUs"),
        DRIVER_FIX)]


def test_the_driver_library_name_is_read_in_any_case():
    # Windows names files without regard to case: a loader message may spell nvcuda.dll in capitals
    line = Symptom("library-not-loadable", "Could not load dynamic library 'NVCUDA.DLL'", subject="NVCUDA.DLL")
    (f,) = m.driver_library_not_loadable(Facts(symptoms=(line,), gpus=(GPU_0,)), None)
    assert (f.id, f.severity, f.evidence[0]) == ("gpu-without-driver", Severity.ERROR, f"log: {line.text}")


def test_an_amd_machine_expects_no_nvidia_driver_unless_an_nvidia_gpu_is_there_too():
    line = Symptom("nvidia-driver-not-loaded", "RuntimeError: Found no NVIDIA driver on your system.")
    amd = (AmdGpu(index=0, name="AMD Radeon RX 7900 XTX", gfx_target="gfx1100"),)
    assert list(m.driver_library_not_loadable(Facts(symptoms=(line,), amd_gpus=amd), None)) == []  # NVIDIA not known
    assert list(m.driver_library_not_loadable(Facts(symptoms=(line,), amd_gpus=amd, gpus=(), pci_devices=()), None)) == []  # none
    (f,) = m.driver_library_not_loadable(Facts(symptoms=(line,), amd_gpus=amd, gpus=(GPU_0,)), None)  # both kinds of GPU
    assert (f.id, f.severity) == ("gpu-without-driver", Severity.ERROR)


def test_found_no_nvidia_driver_is_a_missing_driver():
    line = Symptom("nvidia-driver-not-loaded", "RuntimeError: Found no NVIDIA driver on your system.")
    (f,) = m.driver_library_not_loadable(Facts(symptoms=(line,), gpus=(GPU_0,)), None)
    assert f == Finding("gpu-without-driver", Severity.ERROR, Section.GPU,
                        "The NVIDIA driver's user-space library (libcuda) is not installed or not found",
                        (f"log: {line.text}", "libcuda comes with the NVIDIA driver; the CUDA toolkit or pip wheels do not provide it"),
                        DRIVER_FIX)
    # whether an NVIDIA GPU is here is not known from these words alone: a warning that says so
    (unknown,) = m.driver_library_not_loadable(Facts(symptoms=(line,)), None)
    assert unknown.severity == Severity.WARNING
    assert unknown.title == "The NVIDIA driver's user-space library (libcuda) is not installed or not found (if this machine has an NVIDIA GPU)"
    assert unknown.evidence[-1].startswith("nothing here shows an NVIDIA GPU: the same words come from a machine without one")
    libcuda = Symptom("library-not-loadable", "OSError: libcuda.so.1: cannot open shared object file", subject="libcuda.so.1")
    no_driver = Symptom("no-driver-found", "No CUDA GPUs are available")
    (both,) = m.driver_library_not_loadable(Facts(symptoms=(line, Symptom("library-not-loadable", "x", subject="libcudart.so.12"), libcuda, no_driver)), None)
    assert both.evidence[:3] == (f"log: {libcuda.text}", f"log: {no_driver.text}", f"log: {line.text}")
    assert list(m.driver_library_not_loadable(Facts(symptoms=(line,), host=Host(os="linux", wsl=2)), None)) == []
    assert list(m.driver_library_not_loadable(Facts(symptoms=(line,), host=Host(os="linux", container="docker")), None)) == []
    assert len(list(m.driver_library_not_loadable(Facts(symptoms=(line,), host=Host(os="linux")), None))) == 1
