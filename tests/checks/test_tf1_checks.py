"""TensorFlow 1.x / 2.0-2.3 machines are judged, not only reported as unknown: the CPU-only `tensorflow` package
of a release whose GPU build is `tensorflow-gpu`, system CUDA/cuDNN libraries before CUDA 11 (exact runtime
soname, cuDNN same major and equal-or-newer minor), the driver floor of a CUDA without minor-version
compatibility, and Python wheels per patch release."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.solver.solve import NoFit, Target, solve
from tests.checks.test_version_rules import machine, tf
from tests.conftest import load_facts

MATRIX = load_matrix()


def findings(facts):
    report = run_checks(facts, MATRIX)
    assert not report.crashes
    return {f.id: f for f in report.findings}


def test_tf114_cpu_package_on_a_gpu_machine_gets_the_same_releases_gpu_build():
    found = findings(load_facts("tf114-cpu-package-on-gpu"))
    assert set(found) == {"gpus-found", "tf-cpu-package-shadows-gpu"}
    f = found["tf-cpu-package-shadows-gpu"]
    assert f.severity.label == "error"
    assert f.fix.commands == ("pip uninstall -y tensorflow", "pip install tensorflow-gpu==1.14.0")
    assert "CUDA 10.0" in f.fix.summary and "cuDNN 7.4" in f.fix.summary
    assert "matrix-unknown-version" not in found


@pytest.mark.parametrize(
    ("version", "cpu_only"),
    [("1.13.1", True), ("1.15.0", False), ("1.15.2", True), ("1.15.5", True), ("2.0.0", True), ("2.0.4", True), ("2.1.0", False), ("2.3.4", False)],
)
def test_which_plain_tensorflow_wheels_are_cpu_only(version, cpu_only):
    facts = machine(driver="440.33.01", driver_cuda="10.2", gpus=(("GeForce GTX 1080 Ti", "6.1"),), python="3.6.9",
                    packages={"tensorflow": version})
    found = findings(facts)
    assert ("tf-cpu-package-shadows-gpu" in found) is cpu_only
    if cpu_only:
        assert f"pip install tensorflow-gpu=={version}" in found["tf-cpu-package-shadows-gpu"].fix.commands


def test_no_alarm_without_a_gpu_or_with_tensorflow_gpu_installed():
    assert "tf-cpu-package-shadows-gpu" not in findings(machine(python="3.6.9", packages={"tensorflow": "1.14.0"}, driver=None))
    both = machine(driver="418.87.00", driver_cuda="10.1", gpus=(("GeForce GTX 1080 Ti", "6.1"),), python="3.6.9",
                   packages={"tensorflow": "1.14.0", "tensorflow-gpu": "1.14.0"})
    assert "tf-cpu-package-shadows-gpu" not in findings(both)


def test_tf113_needs_the_cuda_100_runtime_a_101_toolkit_does_not_provide_it():
    found = findings(load_facts("tf113-gpu-cuda101-runtime-only"))
    assert set(found) == {"gpus-found", "tf-missing-gpu-libs"}  # cuDNN 7.6.5 for a 7.4 build: newer minor is fine
    f = found["tf-missing-gpu-libs"]
    assert any("libcudart.so.10.0" in e for e in f.evidence)
    assert any("10.1" in e and "does not stand in" in e for e in f.evidence)
    assert f.fix.commands == ("export LD_LIBRARY_PATH=/usr/local/cuda-10.0/lib64:$LD_LIBRARY_PATH",)


def test_tf113_with_tensorflow_gpu_only_in_the_package_list_is_a_cuda_build():
    """A pasted pip list with only tensorflow-gpu (no framework facts) is judged as the CUDA 10.0 build."""
    facts = machine(driver="430.50", driver_cuda="10.1", gpus=(("GeForce RTX 2080 Ti", "7.5"),), python="3.6.9",
                    packages={"tensorflow-gpu": "1.13.1"},
                    libcudart=[("/usr/local/cuda-10.0/lib64/libcudart.so.10.0", None)], libcudnn=[("/usr/local/cuda-10.0/lib64/libcudnn.so.7.3.1", None)])
    found = findings(facts)
    assert "matrix-unknown-version" not in found
    f = found["cudnn-version-mismatch"]  # 7.3.1 < 7.4: TF 1.x refuses an older cuDNN minor
    assert "cuDNN 7.3.1 is older than the cuDNN 7.4" in f.title
    assert "tf-missing-gpu-libs" not in found  # libcudart.so.10.0 (read from the file name) is there


@pytest.mark.parametrize(("cudnn", "mismatch"), [("7.4.1", False), ("7.4.2", False), ("7.6.5", False), ("7.3.1", True), ("8.0.5", True)])
def test_cudnn_minor_rule_for_tf1(cudnn, mismatch):
    """TF 1.x: "CuDNN library major and minor version needs to match or have higher minor version in case of CuDNN
    7.0 or later version" (tensorflow/stream_executor/cuda/cuda_dnn.cc, quoted in many reports)."""
    facts = machine(driver="410.78", driver_cuda="10.0", gpus=(("Tesla V100-SXM2-16GB", "7.0"),), python="3.7.5",
                    tf=tf("1.14.0", "10.0", "7"), packages={"tensorflow-gpu": "1.14.0"},
                    libcudart=[("/usr/local/cuda-10.0/lib64/libcudart.so.10.0", "10.0.130")],
                    libcudnn=[(f"/usr/local/cuda-10.0/lib64/libcudnn.so.{cudnn.split('.')[0]}", cudnn)])
    assert ("cudnn-version-mismatch" in findings(facts)) is mismatch



def test_cuda_100_build_on_a_r396_driver_has_no_minor_version_compatibility():
    found = findings(load_facts("tf114-gpu-driver-396"))
    assert set(found) == {"gpus-found", "driver-too-old-for-cuda-build"}
    f = found["driver-too-old-for-cuda-build"]
    assert any("410.48" in e and "no minor-version compatibility" in e for e in f.evidence)
    assert "410.48" in f.fix.summary
    # the newest TF this driver (CUDA 9.2) runs is a CUDA 9.0 build
    assert f.fix.commands == ("pip install tensorflow-gpu==1.12.3",)


@pytest.mark.parametrize("name", ["healthy-tf114-gpu", "seed-windows-tf114-quadro"])
def test_healthy_tf114_machines_have_no_findings(name):
    assert set(findings(load_facts(name))) == {"gpus-found"}


@pytest.mark.parametrize(("version", "python", "error"), [("2.11.1", "3.7.9", True), ("2.11.0", "3.7.9", False), ("1.15.0", "2.7.17", False),
                                                          ("1.15.5", "2.7.17", True), ("1.14.0", "3.4.10", False), ("1.15.2", "3.4.10", True)])
def test_python_wheels_per_patch_release(version, python, error):
    facts = machine(python=python, packages={"tensorflow-gpu" if version.startswith("1.") else "tensorflow": version})
    found = findings(facts)
    assert ("python-version-no-wheel" in found) is error
    if version == "1.15.2" and error:
        assert any("tested-build table lists Python 2.7, 3.3–3.7" in e for e in found["python-version-no-wheel"].evidence)



def test_the_solver_handles_every_old_row():
    """gpudoctor env's solver (owned elsewhere) on the new rows: a pinned release for a GPU target either fits or
    says NoFit; nothing crashes."""
    gpu = Target(os="linux", python="3.6", driver_version="410.48", driver_cuda=None, compute_capabilities=("6.1",))
    for r in MATRIX.tensorflow:
        try:
            choice = solve(MATRIX, gpu, "tensorflow", r.series)
        except NoFit:
            continue
        assert choice.version == r.latest
    choice = solve(MATRIX, gpu, "tensorflow", "1.14")
    assert choice.packages == ("tensorflow-gpu==1.14.0",) and choice.cuda == "10.0"
    with pytest.raises(NoFit):  # CUDA 10.1 needs 418.39
        solve(MATRIX, gpu, "tensorflow", "2.3")


@pytest.mark.parametrize(("version", "cudnn", "mismatch"), [
    ("1.2.1", "5.1.10", False),  # built with cuDNN 5.1: loads libcudnn.so.5
    ("1.2.1", "5.0.5", True),  # "Loaded runtime CuDNN library: 5005 (compatibility version 5000) but source was
    #                             compiled with 5110 (compatibility version 5100)" (tensorflow#3225, DCGAN-tensorflow#242)
    ("1.2.1", "6.0.21", True),  # libcudnn.so.6 is not the libcudnn.so.5 it opens
    ("1.3.0", "6.0.21", False),  # built with cuDNN 6: loads libcudnn.so.6
    ("1.3.0", "5.1.10", True),  # "ImportError: libcudnn.so.6: cannot open shared object file" (tensorflow#12416, #12521)
    ("1.4.1", "7.0.5", True),
])
def test_tf_before_cudnn7_needs_its_exact_cudnn_major(version, cudnn, mismatch):
    facts = machine(driver="384.130", driver_cuda="9.0", gpus=(("GeForce GTX 1080", "6.1"),), python="3.6.9",
                    packages={"tensorflow-gpu": version},
                    libcudart=[("/usr/local/cuda-8.0/lib64/libcudart.so.8.0", "8.0.61")],
                    libcudnn=[(f"/usr/local/cuda-8.0/lib64/libcudnn.so.{cudnn.split('.')[0]}", cudnn)])
    found = findings(facts)
    assert "matrix-unknown-version" not in found
    assert ("cudnn-version-mismatch" in found) is mismatch
    if mismatch and cudnn[0] != "7":
        assert "before cuDNN 7, TensorFlow loads only the major.minor it was built with" in found["cudnn-version-mismatch"].evidence[1]
