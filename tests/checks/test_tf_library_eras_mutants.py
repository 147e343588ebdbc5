"""TensorFlow's library rules as issue 20 changed them, finding by finding for mutation testing: the exact-minor cuDNN
era (tensorflow <= 1.7, matrices/tensorflow.toml), a cuDNN range pin (2.20+), the wheel known absent from a whole list,
the GPU unknown, and one unknown library that no longer hides another proven missing.

Equivalent mutants (nothing observable can tell them apart):
- tensorflow_libs._exact_minor_era `have[:2] <= through[:3]`: ``through`` has two parts ("1.7"); a two-part prefix
  compared with a longer tuple whose first two parts are the same compares as with the two parts alone.
- tensorflow_libs.cudnn_version_mismatch, the second `elif ... _exact_minor_era(...)` (after "finds only cuDNN ... no
  cuDNN N"): unreachable. It runs only when no library has the build's cuDNN major (``shadowing`` is None), so a
  ``have`` read from libs[0] is either None or of another major, which the branch before it takes.
- tensorflow_libs._cudnn_finding and tf_missing_gpu_libs (tensorflow < 2.14 built for CUDA 11+)
  `install_fix(facts, matrix, "tensorflow", "upgrade")` with another summary: only the
  fix's commands are used, which do not depend on the summary; with "TENSORFLOW" for the framework: the solver reads
  the framework's name case-insensitively, so the commands are the same.
- tensorflow_libs.tf_missing_gpu_libs `break` for the `continue` after "a cuDNN of another major": libcudnn is the last
  library the loop looks at, so leaving the loop there and going on to the next item end it alike.
- tensorflow_libs._cudnn_finding `... if (build.torch_variant) or True else ""`: a torch build reaches the rule only
  with a cuDNN the matrix knows, i.e. a known release, whose variant is always known (from the local tag or the CUDA).
"""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import tensorflow_libs as t
from gpudoctor.checks._builds import builds
from gpudoctor.model import Finding, Fix, Section, Severity
from tests.checks.test_version_rules import MATRIX, machine, tf

T4 = (("Tesla T4", "7.5"),)
A100 = (("NVIDIA A100-SXM4-40GB", "8.0"),)
PIP_URL = "https://www.tensorflow.org/install/pip"
CUDNN_URL = "https://docs.nvidia.com/deeplearning/cudnn/latest/support-matrix/index.html"
UPGRADE = ("pip install 'tensorflow[and-cuda]==2.21.0'",)


def old_tf(version: str, cuda: str, cudnn: str, loaded: str, path: str = "/usr/lib/x86_64-linux-gnu/libcudnn.so.7"):
    return machine(gpus=T4, tf=tf(version, cuda, cudnn), packages={"tensorflow-gpu": version}, libcudnn=[(path, loaded)])


def run(rule, facts, matrix=MATRIX):
    return list(rule(facts, matrix))


# -- the exact-minor era ---------------------------------------------------------------------------------------------


def test_a_newer_minor_in_the_exact_minor_era_is_of_another_minor():
    (f,) = run(t.cudnn_version_mismatch, old_tf("1.4.0", "8.0", "6.0", "6.1.2", "/usr/lib/x86_64-linux-gnu/libcudnn.so.6"))
    assert f == Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
        "cuDNN 6.1.2 is of another minor than the cuDNN 6.0 tensorflow 1.4.0 was built with",
        ("the loader finds cuDNN 6.1.2 first (/usr/lib/x86_64-linux-gnu/libcudnn.so.6); tensorflow up to 1.7 accepts only the cuDNN 6.0 it was built with",
         "tensorflow 1.4.0 needs cuDNN 6.0 exactly (this release checks the major.minor)"),
        Fix("Install cuDNN 6.0 for CUDA 8.0 and put it first on the loader path, or move to a TensorFlow 2.14+ with `and-cuda`", UPGRADE, CUDNN_URL))


@pytest.mark.parametrize("version", ["1.7.0", "1.7.1", "1.6.0"])
def test_the_era_runs_through_1_7(version):
    (f,) = run(t.cudnn_version_mismatch, old_tf(version, "9.0", "7.0", "7.1.2"))
    assert f.title == f"cuDNN 7.1.2 is of another minor than the cuDNN 7.0 tensorflow {version} was built with"
    assert f.evidence[1] == f"tensorflow {version} needs cuDNN 7.0 exactly (this release checks the major.minor)"


def test_the_exact_minor_named_is_the_build_s_major_minor_even_with_a_patch():
    (f,) = run(t.cudnn_version_mismatch, old_tf("1.6.0", "9.0", "7.0.4", "7.1.2"))
    assert f.title == "cuDNN 7.1.2 is of another minor than the cuDNN 7.0.4 tensorflow 1.6.0 was built with"
    assert f.evidence == ("the loader finds cuDNN 7.1.2 first (/usr/lib/x86_64-linux-gnu/libcudnn.so.7); tensorflow up to 1.7 accepts only the cuDNN 7.0 it was built with",
                          "tensorflow 1.6.0 needs cuDNN 7.0 exactly (this release checks the major.minor)")


@pytest.mark.parametrize(("version", "cudnn", "loaded"), [
    ("1.8.0", "7.0", "7.1.2"),  # after the era a newer minor is accepted
    ("1.4.0", "6.0", "6.0.21"),  # the minor it was built with
    ("1.4.0", "6", "6.1.2"),  # the build's minor is unknown: nothing to compare
])
def test_no_finding_outside_the_era_or_with_the_minor_it_was_built_with(version, cudnn, loaded):
    assert run(t.cudnn_version_mismatch, old_tf(version, "9.0", cudnn, loaded, "/usr/lib/libcudnn.so.7" if cudnn[0] == "7" else "/usr/lib/libcudnn.so.6")) == []


def test_a_loaded_cudnn_known_by_its_major_only_is_not_judged():
    assert run(t.cudnn_version_mismatch, old_tf("1.6.0", "9.0", "7.0", None)) == []


def test_an_older_minor_in_the_era_stays_older():
    (f,) = run(t.cudnn_version_mismatch, old_tf("1.6.0", "9.0", "7.1", "7.0.5"))
    assert f.title == "cuDNN 7.0.5 is older than the cuDNN 7.1 tensorflow 1.6.0 was built with"
    assert f.evidence == ("the loader finds cuDNN 7.0.5 first (/usr/lib/x86_64-linux-gnu/libcudnn.so.7)",
                          "tensorflow 1.6.0 needs cuDNN 7.x >= 7.1 (same major, equal or newer minor)")
    assert f.fix.commands == UPGRADE


def test_the_era_is_the_matrix_s():
    outside = dataclasses.replace(MATRIX, tf_cudnn_same_minor_through="1.5")
    assert run(t.cudnn_version_mismatch, old_tf("1.6.0", "9.0", "7.0", "7.1.2"), outside) == []
    assert run(t.cudnn_version_mismatch, old_tf("1.6.0", "9.0", "7.0", "7.1.2"), dataclasses.replace(MATRIX, tf_cudnn_same_minor_through=None)) == []


def _build(facts):
    return next(x for x in builds(facts, MATRIX) if x.framework == "tensorflow")


def test_exact_minor_era_directly():
    era = _build(old_tf("1.7.0", "9.0", "7.0", "7.1.2"))
    assert t._exact_minor_era(MATRIX, era) is True
    assert t._exact_minor_era(MATRIX, era._replace(version="1.7")) is True
    assert t._exact_minor_era(MATRIX, era._replace(version="1.8.0")) is False
    assert t._exact_minor_era(MATRIX, era._replace(version="2.1.0")) is False
    assert t._exact_minor_era(MATRIX, era._replace(version="unknown")) is False
    assert t._exact_minor_era(MATRIX, era._replace(framework="torch")) is False
    assert t._exact_minor_era(dataclasses.replace(MATRIX, tf_cudnn_same_minor_through=None), era) is False


# -- _cudnn_finding's kinds and fixes ----------------------------------------------------------------------------------


def tf220(cudnn_wheel: str):
    return machine(driver="550.54.15", driver_cuda="12.4", gpus=A100, tf=tf("2.20.0", "12.5", "9.3"),
                   packages={"tensorflow": "2.20.0", "nvidia-cudnn-cu12": cudnn_wheel})


def test_a_release_that_pins_a_cudnn_range_gets_a_range_fix():
    (f,) = run(t.cudnn_version_mismatch, tf220("8.9.7.29"))
    assert f == Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
        "cuDNN 8.9.7.29 is of another major than the cuDNN 9.3 tensorflow 2.20.0 was built with",
        ("nvidia-cudnn-cu12 8.9.7.29 is installed", "tensorflow 2.20.0 needs cuDNN 9.x >= 9.3 (same major, equal or newer minor)"),
        Fix("Install a cuDNN 9.x at least 9.3", ("pip install 'nvidia-cudnn-cu12>=9.3,<10'",), PIP_URL))
    (older,) = run(t.cudnn_version_mismatch, tf220("9.1.0.70"))
    assert older.title == "cuDNN 9.1.0.70 is older than the cuDNN 9.3 tensorflow 2.20.0 was built with"
    assert older.fix == f.fix
    assert run(t.cudnn_version_mismatch, tf220("9.3.0.75")) == [] and run(t.cudnn_version_mismatch, tf220("9.8.0.87")) == []


def test_cudnn_7_gets_the_same_major_rule_and_cudnn_6_the_exact_one():
    facts = machine(gpus=T4, tf=tf("1.13.1", "10.0", "7.4"), packages={"tensorflow-gpu": "1.13.1"}, python="3.6.9",
                    libcudnn=[("/usr/lib/x86_64-linux-gnu/libcudnn.so.7", "7.1.4")])
    (f,) = run(t.cudnn_version_mismatch, facts)
    assert f == Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN, "cuDNN 7.1.4 is older than the cuDNN 7.4 tensorflow 1.13.1 was built with",
        ("the loader finds cuDNN 7.1.4 first (/usr/lib/x86_64-linux-gnu/libcudnn.so.7)",
         "tensorflow 1.13.1 needs cuDNN 7.x >= 7.4 (same major, equal or newer minor)"),
        Fix("Install cuDNN 7.4 for CUDA 10.0 and put it first on the loader path, or move to a TensorFlow 2.14+ with `and-cuda`",
            ("conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0", "pip install tensorflow==2.6.0"), CUDNN_URL))
    (six,) = run(t.cudnn_version_mismatch, old_tf("1.3.0", "8.0", "6.0", "5.1.10", "/usr/lib/x86_64-linux-gnu/libcudnn.so.5"))
    assert six.title == "cuDNN 5.1.10 is of another major than the cuDNN 6.0 tensorflow 1.3.0 was built with"
    assert six.evidence[1] == "tensorflow 1.3.0 needs cuDNN 6.0 (libcudnn.so.6): before cuDNN 7, TensorFlow loads only the major.minor it was built with"


# -- tf-missing-gpu-libs -------------------------------------------------------------------------------------------------


def tf216(**kw):
    args = dict(driver="550.54.15", driver_cuda="12.4", gpus=A100, tf=tf("2.16.1", "12.3", "8"), libcudnn=None, libcudart=None,
                packages={"tensorflow": "2.16.1", "nvidia-cudnn-cu12": None, "nvidia-cuda-runtime-cu12": None})
    return machine(**{**args, **kw})


ABSENT_CUDART = "no nvidia-cuda-runtime-cu12 wheel in the whole package list (whether a system libcudart is on the loader path is not known)"
ABSENT_CUDNN = "no nvidia-cudnn-cu12 wheel in the whole package list (whether a system libcudnn is on the loader path is not known)"


def test_wheels_known_absent_with_a_gpu_is_a_warning():
    (f,) = run(t.tf_missing_gpu_libs, tf216())
    assert f == Finding(
        "tf-missing-gpu-libs", Severity.WARNING, Section.TENSORFLOW,
        "tensorflow 2.16.1 has no CUDA libraries from pip (`tensorflow[and-cuda]`): unless a system CUDA 12.3 and cuDNN are on the "
        "loader path, it runs on the CPU",
        ("tensorflow 2.16.1 is a CUDA 12.3 build (cuDNN 8.9)", ABSENT_CUDART, ABSENT_CUDNN),
        Fix("Install TensorFlow with its CUDA libraries (the `and-cuda` extra): install tensorflow 2.16.1 (and-cuda)",
            ("pip install 'tensorflow[and-cuda]==2.16.1'",), PIP_URL))


def test_one_wheel_absent_beside_one_proven_missing_stays_a_warning():
    (f,) = run(t.tf_missing_gpu_libs, tf216(libcudnn=[]))
    assert f.severity is Severity.WARNING
    assert f.evidence == ("tensorflow 2.16.1 is a CUDA 12.3 build (cuDNN 8.9)", ABSENT_CUDART,
                          "no libcudnn.so.8 found by the loader and no nvidia-cudnn-cu12 wheel installed")
    (cudnn_only,) = run(t.tf_missing_gpu_libs, tf216(packages={"tensorflow": "2.16.1", "nvidia-cuda-runtime-cu12": "12.3.101", "nvidia-cudnn-cu12": None}))
    assert cudnn_only.evidence == ("tensorflow 2.16.1 is a CUDA 12.3 build (cuDNN 8.9)", ABSENT_CUDNN)


def test_a_wheel_absent_from_a_list_is_absent_only_for_releases_installed_from_pip():
    tf211 = tf216(tf=tf("2.11.0", "11.2", "8.1"), packages={"tensorflow": "2.11.0", "nvidia-cudnn-cu11": None, "nvidia-cuda-runtime-cu11": None})
    assert run(t.tf_missing_gpu_libs, tf211) == []  # 2.11 has no and-cuda extra: system libraries are its way
    assert run(t.tf_missing_gpu_libs, tf216(packages={"tensorflow": "2.16.1"})) == []  # a list that does not record absence
    assert run(t.tf_missing_gpu_libs, tf216(libcudart=[], libcudnn=[], packages=None)) == []  # no package list: cannot tell


def test_one_unknown_library_does_not_hide_another_proven_missing():
    facts = machine(driver="418.67", driver_cuda="10.1", gpus=T4, tf=tf("1.13.1", "10.0", "7.4"), packages={"tensorflow-gpu": "1.13.1"},
                    python="3.6.9", libcudnn=None, libcudart=[])
    (f,) = run(t.tf_missing_gpu_libs, facts)
    assert (f.severity, f.title) == (Severity.ERROR, "tensorflow 1.13.1 cannot use the GPU: its CUDA libraries are not installed")
    assert f.evidence == ("tensorflow 1.13.1 is a CUDA 10.0 build (cuDNN 7.4)", "no libcudart.so.10.0 found by the loader")
    only_major = dataclasses.replace(facts, libraries=dataclasses.replace(facts.libraries, libcudart=(), libcudnn=()))
    (both,) = run(t.tf_missing_gpu_libs, only_major)
    assert both.title == "tensorflow 1.13.1 cannot use the GPU: its CUDA and cuDNN libraries are not installed"


def test_a_cuda_runtime_known_by_its_major_only_does_not_hide_a_missing_cudnn():
    facts = machine(driver="418.67", driver_cuda="10.1", gpus=T4, tf=tf("1.13.1", "10.0", "7.4"), packages={"tensorflow-gpu": "1.13.1"},
                    python="3.6.9", libcudnn=[], libcudart=[("/usr/lib/libcudart.so.10", None)])
    (f,) = run(t.tf_missing_gpu_libs, facts)
    assert f.title == "tensorflow 1.13.1 cannot use the GPU: cuDNN 7.4 is not installed"


def test_gpu_presence_decides_whether_and_how_it_is_said():
    proven = dict(libcudnn=[], libcudart=[], packages={"tensorflow": "2.16.1"})
    assert run(t.tf_missing_gpu_libs, tf216(driver=None, driver_cuda=None, gpus=(), **proven)) == []  # probed: no GPU
    unknown = dataclasses.replace(tf216(driver=None, driver_cuda=None, **proven), gpus=None)
    (f,) = run(t.tf_missing_gpu_libs, unknown)
    assert (f.severity, f.title) == (Severity.WARNING, "tensorflow 2.16.1 cannot use a GPU: the CUDA libraries it was built for are not "
                                                       "installed (if this machine has an NVIDIA GPU)")
    implied = dataclasses.replace(tf216(**proven), gpus=None)  # the driver implies a GPU
    (g,) = run(t.tf_missing_gpu_libs, implied)
    assert (g.severity, g.title) == (Severity.ERROR, "tensorflow 2.16.1 cannot use the GPU: its CUDA and cuDNN libraries are not installed")
    assert run(t.tf_missing_gpu_libs, dataclasses.replace(implied, gpus=())) == []  # a GPU list that names none


def test_a_release_the_matrix_does_not_know_names_no_cudnn():
    facts = machine(driver="550.54.15", driver_cuda="12.4", gpus=A100, tf=tf("2.99.0", "12.3", None), packages={"tensorflow": "2.99.0"},
                    libcudnn=[], libcudart=[])
    (f,) = run(t.tf_missing_gpu_libs, facts)
    assert f == Finding(
        "tf-missing-gpu-libs", Severity.ERROR, Section.TENSORFLOW, "tensorflow 2.99.0 cannot use the GPU: its CUDA and cuDNN libraries are not installed",
        ("tensorflow 2.99.0 is a CUDA 12.3 build", "no libcudart.so.12 found by the loader and no nvidia-cuda-runtime-cu12 wheel installed",
         "no libcudnn.so.* found by the loader and no nvidia-cudnn-cu12 wheel installed"),
        Fix("Install the CUDA libraries with `pip install 'tensorflow[and-cuda]'`", ("pip install 'tensorflow[and-cuda]'",), PIP_URL))


def test_every_other_cuda_runtime_minor_the_loader_finds_is_named():
    facts = machine(driver="418.67", driver_cuda="10.1", gpus=T4, tf=tf("1.13.1", "10.0", "7.4"), packages={"tensorflow-gpu": "1.13.1"},
                    python="3.6.9", libcudnn=[("/usr/lib/x86_64-linux-gnu/libcudnn.so.7", "7.6.5")],
                    libcudart=[("/usr/local/cuda-10.2/lib64/libcudart.so.10.2", "10.2.89"), ("/usr/local/cuda-10.1/lib64/libcudart.so.10.1", "10.1.243")])
    (f,) = run(t.tf_missing_gpu_libs, facts)
    assert f.evidence[1:] == ("no libcudart.so.10.0 found by the loader",
                              "the loader finds CUDA runtime 10.1, 10.2: before CUDA 11 each minor has its own soname, so it does not stand in for 10.0")
