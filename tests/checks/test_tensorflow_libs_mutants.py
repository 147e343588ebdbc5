"""The loader rules finding by finding (issue 11: mutation score of checks/tensorflow_libs.py).

test_version_rules.py asserts which ids each situation gives; this file pins what the user reads (title, evidence,
fix) for each branch of tf-missing-gpu-libs, tf-windows-native-gpu-unsupported, cudnn-version-mismatch and
ld-library-path-wrong-cuda-libs, and the edges the rules decide on: sonames read from file names, the CUDA 11 soname
change, the cuDNN minor comparison and the loader path."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import tensorflow_libs as t
from gpudoctor.checks import tensorflow_windows as tw
from gpudoctor.model import Facts, Finding, Fix, Host, Library, Section, Severity
from tests.checks.test_version_rules import CASES, MATRIX, machine, tf

A100 = (("NVIDIA A100-SXM4-40GB", "8.0"),)
T4 = (("Tesla T4", "7.5"),)
PIP_URL = "https://www.tensorflow.org/install/pip"
SOURCE_URL = "https://www.tensorflow.org/install/source#gpu"


def run(rule, facts):
    return list(rule(facts, MATRIX))


def tf216(**kw):
    args = dict(driver="550.54.15", driver_cuda="12.4", gpus=A100, tf=tf("2.16.1", "12.3", "8"), packages={"tensorflow": "2.16.1"},
                libcudnn=[], libcudart=[])
    return machine(**{**args, **kw})


def tf113(libcudart, libcudnn=(("/usr/lib/x86_64-linux-gnu/libcudnn.so.7", "7.6.5"),), **kw):
    return machine(driver="418.67", driver_cuda="10.1", gpus=T4, tf=tf("1.13.1", "10.0", "7.4"), packages={"tensorflow-gpu": "1.13.1"},
                   python="3.6.9", libcudnn=list(libcudnn), libcudart=list(libcudart), **kw)


# -- helpers with a rule of their own ------------------------------------------------------------------------------


@pytest.mark.parametrize(("lib", "version"), [
    (Library(path="/usr/lib/libcudnn.so.8.9.7", version="8.9.6"), (8, 9, 6)),  # the reported version wins
    (Library(path="/usr/lib/x86_64-linux-gnu/libcudnn.so.8"), (8,)),
    (Library(path="/usr/local/cuda-10.0/lib64/libcudart.so.10.0"), (10, 0)),
    (Library(path="/opt/libcudart.so.11.8.89", version="n/a"), (11, 8, 89)),
    (Library(path="/usr/lib/libcudnn.so"), None),
    (Library(), None),
])
def test_a_library_version_comes_from_the_report_or_the_soname(lib, version):
    assert t.lib_version(lib) == version


@pytest.mark.parametrize(("cuda", "soname"), [("10.0", (10, 0)), ("10.2.89", (10, 2)), ("9", (9,)), ("11.0", (11,)), ("11.8", (11,)), ("12.3", (12,)),
                                              ("unknown", (0,))])
def test_the_cuda_runtime_soname_carries_the_minor_only_before_cuda_11(cuda, soname):
    assert t.cudart_need(cuda) == soname


@pytest.mark.parametrize(("have", "need", "older"), [
    ((8, 0, 5), (8, 3, 2), True), ((8, 9, 7), (8, 9, 2), False), ((8, 9), (8, 9, 7), False), ((7, 6), (8, 1), True),
    ((9, 1), (8, 9), False), ((8, 9, 2), (8, 9, 7), False), ((8,), (8, 9), None), ((8, 9), (8,), None), ((7,), (8,), True), ((9,), (8, 9), False),
])
def test_older_compares_major_then_minor_and_knows_when_it_cannot_tell(have, need, older):
    assert t._older(have, need) is older


def test_the_loader_path_is_read_without_empty_or_trailing_slashed_parts():
    facts = Facts(host=Host(env={"LD_LIBRARY_PATH": "/opt/cudnn/lib64/::/usr/local/cuda/lib64:/opt/TensorRT-X/"}))
    assert t.ld_dirs(facts) == ["/opt/cudnn/lib64", "/usr/local/cuda/lib64", "/opt/TensorRT-X"]
    assert t.ld_dirs(Facts(host=Host(env={}))) == []
    assert t.ld_dirs(Facts(host=Host())) == []
    assert t.ld_dirs(Facts()) == []
    assert t._dir("/opt/cudnn/lib64/libcudnn.so.8") == "/opt/cudnn/lib64"
    assert t._dir("/opt/cudnn/lib64//libcudnn.so.8") == "/opt/cudnn/lib64"
    assert t._dir("libcudnn.so.8") == ""


# -- tf-missing-gpu-libs ---------------------------------------------------------------------------------------------


def test_tf216_without_its_wheels_misses_both_libraries():
    (f,) = run(t.tf_missing_gpu_libs, tf216())
    assert f == Finding(
        "tf-missing-gpu-libs", Severity.ERROR, Section.TENSORFLOW,
        "tensorflow 2.16.1 cannot use the GPU: its CUDA and cuDNN libraries are not installed",
        ("tensorflow 2.16.1 is a CUDA 12.3 build (cuDNN 8.9)",
         "no libcudart.so.12 found by the loader and no nvidia-cuda-runtime-cu12 wheel installed",
         "no libcudnn.so.8 found by the loader and no nvidia-cudnn-cu12 wheel installed"),
        Fix("Install TensorFlow with its CUDA libraries (the `and-cuda` extra): install tensorflow 2.16.1 (and-cuda)",
            ("pip install 'tensorflow[and-cuda]==2.16.1'",), PIP_URL),
    )


def test_only_cudnn_missing_names_cudnn_in_the_title():
    (f,) = run(t.tf_missing_gpu_libs, tf216(packages={"tensorflow": "2.16.1", "nvidia-cuda-runtime-cu12": "12.3.101"}))
    assert f.title == "tensorflow 2.16.1 cannot use the GPU: cuDNN 8.9 is not installed"
    assert f.evidence == ("tensorflow 2.16.1 is a CUDA 12.3 build (cuDNN 8.9)",
                          "no libcudnn.so.8 found by the loader and no nvidia-cudnn-cu12 wheel installed")


def test_libraries_found_by_the_loader_or_installed_as_wheels_are_not_missing():
    assert run(t.tf_missing_gpu_libs, tf216(libcudart=[("/usr/local/cuda-12.3/lib64/libcudart.so.12", "12.3.101")],
                                             libcudnn=[("/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "8.9.7")])) == []
    wheels = {"tensorflow": "2.16.1", "nvidia-cuda-runtime-cu12": "12.3.101", "nvidia-cudnn-cu12": "8.9.7.29"}
    assert run(t.tf_missing_gpu_libs, tf216(packages=wheels)) == []
    # a cuDNN of another major is there: cudnn-version-mismatch judges it, this rule does not call it missing
    assert run(t.tf_missing_gpu_libs, tf216(libcudart=[("/usr/local/cuda-12.3/lib64/libcudart.so.12", None)],
                                             libcudnn=[("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", None)])) == []


def test_unknown_libraries_or_packages_never_raise_it():
    assert run(t.tf_missing_gpu_libs, tf216(libcudnn=None, libcudart=None)) == []
    assert run(t.tf_missing_gpu_libs, dataclasses.replace(tf216(), python_packages=None)) == []
    assert run(t.tf_missing_gpu_libs, tf216(gpus=())) == []
    assert run(t.tf_missing_gpu_libs, tf216(os="windows")) == []
    assert run(t.tf_missing_gpu_libs, tf216(tf=tf("2.16.1", None, None, is_cuda_build=False))) == []
    assert list(t.tf_missing_gpu_libs(tf216(), None)) == []


def test_an_unreadable_cudnn_version_asks_for_any_cudnn():
    (f,) = run(t.tf_missing_gpu_libs, tf216(tf=tf("2.16.1", "12.3", "unknown")))
    assert f.evidence == ("tensorflow 2.16.1 is a CUDA 12.3 build (cuDNN unknown)",
                          "no libcudart.so.12 found by the loader and no nvidia-cuda-runtime-cu12 wheel installed",
                          "no libcudnn.so.* found by the loader and no nvidia-cudnn-cu12 wheel installed")


def test_only_a_full_release_is_kept_by_the_and_cuda_fix():
    (f,) = run(t.tf_missing_gpu_libs, tf216(tf=tf("2.16", "12.3", "8"), packages={"tensorflow": "2.16"}))
    assert f.fix.commands == ("pip install 'tensorflow[and-cuda]==2.21.0'",)  # "2.16" names no release: the newest that fits


def test_tf211_has_no_and_cuda_extra_so_the_fix_installs_the_system_libraries_or_upgrades():
    facts = machine(driver="525.85.12", driver_cuda="12.0", gpus=T4, tf=tf("2.11.1", "11.2", "8"), packages={"tensorflow": "2.11.1"},
                    python="3.10.12", libcudnn=[], libcudart=[])
    (f,) = run(t.tf_missing_gpu_libs, facts)
    assert f.evidence[1:] == ("no libcudart.so.11 found by the loader and no nvidia-cuda-runtime-cu11 wheel installed",
                              "no libcudnn.so.8 found by the loader and no nvidia-cudnn-cu11 wheel installed")
    assert f.fix == Fix(
        "tensorflow 2.11 has no `and-cuda` extra: install CUDA 11.2 and cuDNN 8.1 and put their lib64 on LD_LIBRARY_PATH, "
        "or upgrade to a TensorFlow 2.14+ with `pip install 'tensorflow[and-cuda]'`",
        ("pip install 'tensorflow[and-cuda]==2.21.0'",), SOURCE_URL)


def test_tf113_needs_the_cuda_100_runtime_and_says_a_101_one_does_not_stand_in():
    (f,) = run(t.tf_missing_gpu_libs, tf113([("/usr/local/cuda-10.1/lib64/libcudart.so.10.1", "10.1.243")]))
    assert f.title == "tensorflow 1.13.1 cannot use the GPU: its CUDA libraries are not installed"
    assert f.evidence == (
        "tensorflow 1.13.1 is a CUDA 10.0 build (cuDNN 7.4)",
        "no libcudart.so.10.0 found by the loader",
        "the loader finds CUDA runtime 10.1: before CUDA 11 each minor has its own soname, so it does not stand in for 10.0",
    )
    assert f.fix == Fix(
        "tensorflow 1.13.1 loads the CUDA 10.0 runtime (libcudart.so.10.0) and cuDNN 7.x >= 7.4 (libcudnn.so.7) from the system: "
        "install the CUDA 10.0 toolkit (no other 10.x provides that runtime) and cuDNN 7.4 or a newer 7.x for CUDA 10.0, then put "
        "their lib64 on LD_LIBRARY_PATH; or upgrade to a TensorFlow 2.14+ with `pip install 'tensorflow[and-cuda]'`",
        ("export LD_LIBRARY_PATH=/usr/local/cuda-10.0/lib64:$LD_LIBRARY_PATH",), SOURCE_URL)


def test_tf113_runtime_edges():
    assert run(t.tf_missing_gpu_libs, tf113([("/usr/local/cuda-10.0/lib64/libcudart.so.10.0", None)])) == []
    # only the major is known (libcudart.so.10): whether it is 10.0 cannot be told
    assert run(t.tf_missing_gpu_libs, tf113([("/usr/lib/libcudart.so.10", None)])) == []
    (f,) = run(t.tf_missing_gpu_libs, tf113([]))
    assert f.evidence == ("tensorflow 1.13.1 is a CUDA 10.0 build (cuDNN 7.4)", "no libcudart.so.10.0 found by the loader")
    (f,) = run(t.tf_missing_gpu_libs, tf113([("/usr/local/cuda-9.0/lib64/libcudart.so.9.0", "9.0.176")]))
    assert len(f.evidence) == 2  # a CUDA 9 runtime is another major: nothing to say about minors
    (f,) = run(t.tf_missing_gpu_libs, tf113([], libcudnn=[]))
    assert f.title == "tensorflow 1.13.1 cannot use the GPU: its CUDA and cuDNN libraries are not installed"
    assert f.evidence[-1] == "no libcudnn.so.7 found by the loader"


# -- tf-windows-native-gpu-unsupported -------------------------------------------------------------------------------


def test_tf212_on_native_windows_with_a_gpu_is_an_error_with_both_routes():
    (f,) = run(tw.tf_windows_native_gpu_unsupported, CASES["tf212-native-windows"][0])
    assert (f.id, f.severity, f.section) == ("tf-windows-native-gpu-unsupported", Severity.ERROR, Section.TENSORFLOW)
    assert f.title == "tensorflow 2.12.0 has no GPU support on native Windows: it runs on the CPU only"
    assert f.evidence == ("native Windows with 1 NVIDIA GPU(s)",
                          "GPU support on native Windows ended with TensorFlow 2.10; tensorflow 2.12.0 is newer")
    assert f.fix == Fix(
        "To train on the GPU, use WSL2 (Windows 10 19044 (21H2) or later) and install tensorflow 2.21.0 (and-cuda) there; or the last "
        "native route: native-Windows GPU needs tensorflow 2.10.1 with Python 3.7–3.10 (this is Python 3.11), CUDA 11.2 and cuDNN 8.1 "
        "from conda (cudatoolkit=11.2 cudnn=8.1.0)",
        ("wsl --install", "pip install 'tensorflow[and-cuda]==2.21.0'   # inside WSL2"), "https://www.tensorflow.org/install/pip#windows-wsl2")


def test_windows_without_a_known_python_names_only_the_range():
    facts = CASES["tf212-native-windows"][0]
    (f,) = run(tw.tf_windows_native_gpu_unsupported, dataclasses.replace(facts, host=dataclasses.replace(facts.host, python=None)))
    assert "needs tensorflow 2.10.1 with Python 3.7–3.10, CUDA 11.2" in f.fix.summary


def test_windows_gpu_unknown_is_a_warning_and_the_release_is_named():
    facts = CASES["tf212-native-windows"][0]
    facts = dataclasses.replace(facts, gpus=None, driver=None, host=dataclasses.replace(facts.host, os_release="10.0.19045"))
    (f,) = run(tw.tf_windows_native_gpu_unsupported, facts)
    assert f.severity == Severity.WARNING
    assert f.evidence[0] == "native Windows 10.0.19045 (whether it has an NVIDIA GPU is not known)"


def test_windows_rule_is_silent_where_it_does_not_apply():
    facts = CASES["tf212-native-windows"][0]
    assert run(tw.tf_windows_native_gpu_unsupported, CASES["tf210-native-windows"][0]) == []  # the last native-GPU series
    assert run(tw.tf_windows_native_gpu_unsupported, dataclasses.replace(facts, gpus=(), pci_devices=(), driver=None)) == []  # no GPU
    assert run(tw.tf_windows_native_gpu_unsupported, dataclasses.replace(facts, host=dataclasses.replace(facts.host, wsl=2))) == []
    assert run(tw.tf_windows_native_gpu_unsupported, dataclasses.replace(facts, host=dataclasses.replace(facts.host, os="linux"))) == []
    assert run(tw.tf_windows_native_gpu_unsupported, dataclasses.replace(facts, frameworks=None, python_packages={})) == []
    assert list(tw.tf_windows_native_gpu_unsupported(facts, None)) == []


# -- cudnn-version-mismatch --------------------------------------------------------------------------------------------


def test_a_cudnn_wheel_of_another_major_pins_the_tested_cudnn():
    (f,) = run(t.cudnn_version_mismatch, CASES["tf216-with-torch-cudnn9"][0])
    assert f == Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
        "cuDNN 9.1.0.70 is of another major than the cuDNN 8.9 tensorflow 2.16.1 was built with",
        ("nvidia-cudnn-cu12 9.1.0.70 is installed", "tensorflow 2.16.1 needs cuDNN 8.x >= 8.9 (same major, equal or newer minor)"),
        Fix("Install the cuDNN tensorflow 2.16.1 was built with", ("pip install 'nvidia-cudnn-cu12==8.9.7.29'",), PIP_URL),
    )


def test_an_older_cudnn_wheel_of_the_same_major_is_older_and_a_newer_one_is_fine():
    packages = {"tensorflow": "2.16.1", "nvidia-cudnn-cu12": "8.6.0.163", "nvidia-cuda-runtime-cu12": "12.3.101"}
    (f,) = run(t.cudnn_version_mismatch, tf216(packages=packages))
    assert f.title == "cuDNN 8.6.0.163 is older than the cuDNN 8.9 tensorflow 2.16.1 was built with"
    assert run(t.cudnn_version_mismatch, tf216(packages={**packages, "nvidia-cudnn-cu12": "8.9.7.29"})) == []
    assert run(t.cudnn_version_mismatch, tf216(packages={**packages, "nvidia-cudnn-cu12": "8.9.0.131"})) == []


def test_a_cudnn_wheel_that_replaced_torchs_own_is_fixed_by_reinstalling_torch():
    facts = machine(driver="550.54.15", driver_cuda="12.4", gpus=A100, torch={"version": "2.4.1+cu121", "cuda": "12.1"},
                    packages={"torch": "2.4.1", "nvidia-cudnn-cu12": "8.9.2.26"}, libcudnn=[], libcudart=[])
    (f,) = run(t.cudnn_version_mismatch, facts)
    assert f.title == "cuDNN 8.9.2.26 is of another major than the cuDNN 9.1.0.70 torch 2.4.1+cu121 was built with"
    assert f.fix == Fix("Reinstall torch 2.4.1+cu121 so that pip puts back the cuDNN it pins (another package replaced it)",
                        ("pip install --force-reinstall 'torch==2.4.1' --index-url https://download.pytorch.org/whl/cu121",),
                        "https://pytorch.org/get-started/previous-versions/")


def test_a_system_cudnn_of_another_major_on_tf211():
    (f,) = run(t.cudnn_version_mismatch, CASES["tf211-system-cudnn7"][0])
    assert f.title == "cuDNN 7.6.5 is of another major than the cuDNN 8.1 tensorflow 2.11.1 was built with"
    assert f.evidence == ("the loader finds only cuDNN 7.6.5 (/usr/lib/x86_64-linux-gnu/libcudnn.so.7), no cuDNN 8",
                          "tensorflow 2.11.1 needs cuDNN 8.x >= 8.1 (same major, equal or newer minor)")
    assert f.fix == Fix("Install cuDNN 8.1 for CUDA 11.2 and put it first on the loader path, or move to a TensorFlow 2.14+ with `and-cuda`",
                        ("pip install 'tensorflow[and-cuda]==2.21.0'",), "https://docs.nvidia.com/deeplearning/cudnn/latest/support-matrix/index.html")


def test_a_system_cudnn_of_the_same_major_found_first():
    older = [("/usr/lib/x86_64-linux-gnu/libcudnn.so.7", "7.3.1")]
    (f,) = run(t.cudnn_version_mismatch, tf113([("/usr/local/cuda-10.0/lib64/libcudart.so.10.0", None)], libcudnn=older))
    assert f.title == "cuDNN 7.3.1 is older than the cuDNN 7.4 tensorflow 1.13.1 was built with"
    assert f.evidence[0] == "the loader finds cuDNN 7.3.1 first (/usr/lib/x86_64-linux-gnu/libcudnn.so.7)"
    newer_minor = [("/usr/lib/x86_64-linux-gnu/libcudnn.so.7", "7.6.5")]
    assert run(t.cudnn_version_mismatch, tf113([], libcudnn=newer_minor)) == []


def test_cudnn_rule_is_silent_without_facts_to_judge():
    assert run(t.cudnn_version_mismatch, tf216(libcudnn=None)) == []  # no library facts, no wheel
    assert run(t.cudnn_version_mismatch, tf216()) == []  # no cuDNN at all: tf-missing-gpu-libs says so
    assert run(t.cudnn_version_mismatch, dataclasses.replace(CASES["tf211-system-cudnn7"][0],
                                                              host=Host(os="windows", python="3.10.12"))) == []
    assert list(t.cudnn_version_mismatch(CASES["tf211-system-cudnn7"][0], None)) == []


def test_a_cudnn_on_ld_library_path_is_left_to_the_ld_rule():
    facts = tf113([("/usr/local/cuda-10.0/lib64/libcudart.so.10.0", None)], libcudnn=[("/opt/cudnn-7.3/lib64/libcudnn.so.7", "7.3.1")],
                  env={"LD_LIBRARY_PATH": "/opt/cudnn-7.3/lib64/"})
    assert run(t.cudnn_version_mismatch, facts) == []
    (f,) = run(t.ld_library_path_wrong_cuda_libs, facts)
    assert f.title == "LD_LIBRARY_PATH puts cuDNN 7.3.1 before the cuDNN 7.4+ that tensorflow 1.13.1 needs"
