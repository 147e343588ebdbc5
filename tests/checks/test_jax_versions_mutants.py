"""JAX's version, wheel, Python and backend rules, finding by finding (issue 11: mutation score of checks/jax.py):
the whole finding of each branch, each version boundary (one below / at / above a floor) and the silent cases."""

from __future__ import annotations

import pytest

from gpudoctor.checks import jax as j
from gpudoctor.model import Driver, Facts, Finding, Fix, Frameworks, Gpu, Host, JaxBuild, Section, Severity, Symptom
from tests.checks.test_jax_mutants import GUIDE, MATRIX, NO_JAX_TABLE, machine, run

ONE_RELEASE = "Install jax, jaxlib and the plugin of one release"


def versions(jax: str | None, jaxlib: str | None, build: str | None = "cpu", plugin: str | None = None) -> Facts:
    return Facts(frameworks=Frameworks(jax=JaxBuild(version=jax, jaxlib=jaxlib, build=build, plugin=plugin)))


def test_jaxlib_newer_than_jax_pinned():
    assert run(j.jax_version_mismatch, versions("0.4.13", "0.4.30")) == [
        Finding("jax-version-mismatch", Severity.ERROR, Section.JAX, "jaxlib 0.4.30 is newer than jax 0.4.13: importing jax fails",
                ("jax raises: \"jaxlib version X is newer than and incompatible with jax version Y\"",),
                Fix(ONE_RELEASE, ("pip install -U jax jaxlib",), GUIDE))]


@pytest.mark.parametrize("build, command", [
    ("cuda12", 'pip install -U "jax[cuda12]"'), ("cuda13", 'pip install -U "jax[cuda13]"'),
    ("cpu", "pip install -U jax jaxlib"), (None, "pip install -U jax jaxlib"),
])  # fmt: skip
def test_the_fix_reinstalls_the_same_build(build, command):
    (finding,) = run(j.jax_version_mismatch, versions("0.8.0", "0.8.1", build=build))
    assert finding.fix.commands == (command,)


def test_jax_older_than_the_jaxlib_floor_of_its_metadata_pinned():
    assert run(j.jax_version_mismatch, versions("0.10.2", "0.10.0", build="cuda13")) == [
        Finding("jax-version-mismatch", Severity.ERROR, Section.JAX, "jax 0.10.2 needs jaxlib 0.10.1 or newer (installed: 0.10.0)",
                ("jax 0.10.2 requires jaxlib >= 0.10.1 (its METADATA)",), Fix(ONE_RELEASE, ('pip install -U "jax[cuda13]"',), GUIDE))]
    (finding,) = run(j.jax_version_mismatch, versions("0.10.2+local", "0.10.0+local"))  # local tags are dropped
    assert finding.title == "jax 0.10.2+local needs jaxlib 0.10.1 or newer (installed: 0.10.0+local)"


@pytest.mark.parametrize("jax, jaxlib, matrix", [
    ("0.10.2", "0.10.1", MATRIX),  # at the floor
    ("0.10.2", "0.10.2", MATRIX),
    ("0.8.3", "0.8.2", MATRIX),  # 0.8.3 accepts the jaxlib before it
    ("0.8.0", "0.7.2", MATRIX),  # a release whose floor was not read: not judged
    ("0.3.25", "0.3.20", MATRIX),  # not in the table
    ("0.10.2", "0.10.0", NO_JAX_TABLE),
    ("0.10.2", None, MATRIX),
    (None, "0.10.2", MATRIX),
    ("0.10.2", "dev", MATRIX),  # not a version
])  # fmt: skip
def test_versions_that_go_together_or_cannot_be_told(jax, jaxlib, matrix):
    assert run(j.jax_version_mismatch, versions(jax, jaxlib), matrix) == []


def test_a_plugin_of_another_release_pinned():
    assert run(j.jax_version_mismatch, versions("0.7.2", "0.7.2", "cuda12", "0.8.1")) == [
        Finding("jax-version-mismatch", Severity.ERROR, Section.JAX,
                "jax-cuda12-plugin 0.8.1 differs from jaxlib 0.7.2: the plugin is not loaded",
                ("jax[cuda12]==0.7.2 pins jaxlib and the plugin to the same version",),
                Fix(ONE_RELEASE, ('pip install -U "jax[cuda12]"',), GUIDE))]


@pytest.mark.parametrize("jaxlib, plugin", [("0.7.2", "0.7.2"), ("0.7.2", None), (None, "0.7.2")])
def test_a_plugin_of_the_same_release_or_unknown_is_silent(jaxlib, plugin):
    assert run(j.jax_version_mismatch, versions("0.7.2", jaxlib, "cuda12", plugin)) == []


def test_an_older_plugin_is_a_mismatch_too_and_each_mismatch_is_said():
    found = run(j.jax_version_mismatch, versions("0.4.13", "0.7.2", "cuda12", "0.7.1"))
    assert [f.title for f in found] == ["jaxlib 0.7.2 is newer than jax 0.4.13: importing jax fails",
                                        "jax-cuda12-plugin 0.7.1 differs from jaxlib 0.7.2: the plugin is not loaded"]


def test_no_jax_no_version_finding():
    assert run(j.jax_version_mismatch, Facts()) == [] == run(j.jax_version_mismatch, machine(None))


def wheels(build: str, packages: dict | None, jaxlib: str | None = "0.7.2") -> Facts:
    return Facts(python_packages=packages, frameworks=Frameworks(jax=JaxBuild(version="0.7.1", jaxlib=jaxlib, build=build, plugin="0.7.2")))


def test_a_cuda12_plugin_beside_cuda13_wheels_pinned():
    assert run(j.jax_plugin_cuda_wheels_mismatch, wheels("cuda12", {"nvidia-cudnn-cu12": None, "nvidia-cudnn-cu13": "9.13.0.50"})) == [
        Finding("jax-plugin-cuda-wheels-mismatch", Severity.WARNING, Section.JAX,
                "jax-cuda12-plugin needs the CUDA 12 libraries, but the nvidia-* wheels are for CUDA 13",
                ("nvidia-cudnn-cu13 9.13.0.50 installed, nvidia-cudnn-cu12 not installed",),
                Fix("Install the plugin with the CUDA wheels it was built for", ('pip install -U "jax[cuda12]==0.7.2"',), GUIDE))]


def test_a_cuda13_plugin_beside_cuda12_wheels():
    (finding,) = run(j.jax_plugin_cuda_wheels_mismatch, wheels("cuda13", {"nvidia-cudnn-cu13": None, "nvidia-cudnn-cu12": "9.10.2.21"}, None))
    assert finding.title == "jax-cuda13-plugin needs the CUDA 13 libraries, but the nvidia-* wheels are for CUDA 12"
    assert finding.evidence == ("nvidia-cudnn-cu12 9.10.2.21 installed, nvidia-cudnn-cu13 not installed",)
    assert finding.fix.commands == ('pip install -U "jax[cuda13]==0.7.1"',)  # jaxlib unknown: jax's version


@pytest.mark.parametrize("build, packages", [
    ("cuda12", None),  # packages not read
    ("cuda12", {"nvidia-cudnn-cu13": "9.13.0.50"}),  # cu12 not looked for: unknown, not absent
    ("cuda12", {"nvidia-cudnn-cu12": "9.10.2.21", "nvidia-cudnn-cu13": "9.13.0.50"}),  # its own wheels are there
    ("cuda12", {"nvidia-cudnn-cu12": None, "nvidia-cudnn-cu13": None}),  # no cuDNN wheel at all: nothing to mismatch
    ("cpu", {"nvidia-cudnn-cu12": None, "nvidia-cudnn-cu13": "9.13.0.50"}),
    (None, {"nvidia-cudnn-cu12": None, "nvidia-cudnn-cu13": "9.13.0.50"}),
])  # fmt: skip
def test_wheels_silent(build, packages):
    assert run(j.jax_plugin_cuda_wheels_mismatch, wheels(build, packages)) == []
    assert run(j.jax_plugin_cuda_wheels_mismatch, Facts(python_packages={})) == []


def python(version: str | None, jaxlib: str | None = "0.4.30") -> Facts:
    return Facts(host=Host(python=version), frameworks=Frameworks(jax=JaxBuild(version="0.4.30", jaxlib=jaxlib, build="cuda12")))


def test_a_python_without_a_jaxlib_wheel_pinned():
    assert run(j.jax_python_no_wheel, python("3.13.1")) == [
        Finding("python-version-no-wheel", Severity.WARNING, Section.JAX,
                "jaxlib 0.4.30 has no PyPI wheel for Python 3.13 (wheels: 3.9, 3.10, 3.11, 3.12)", ("Python 3.13.1",),
                Fix("Use a Python the release has wheels for", (), GUIDE))]
    (finding,) = run(j.jax_python_no_wheel, python("3.8", "0.4.30+cuda12.cudnn89"))  # a local tag: the same release
    assert finding.title == "jaxlib 0.4.30+cuda12.cudnn89 has no PyPI wheel for Python 3.8 (wheels: 3.9, 3.10, 3.11, 3.12)"


@pytest.mark.parametrize("facts, matrix", [
    (python("3.12.3"), MATRIX), (python("3.9"), MATRIX), (python(None), MATRIX), (python("3.13.1", None), MATRIX),
    (python("3.13.1", "0.3.25"), MATRIX),  # a release the table lacks
    (python("3.13.1"), NO_JAX_TABLE), (Facts(frameworks=Frameworks(jax=JaxBuild(jaxlib="0.4.30"))), MATRIX), (Facts(), MATRIX),
])  # fmt: skip
def test_python_silent(facts, matrix):
    assert run(j.jax_python_no_wheel, facts, matrix) == []


FAILED = [Symptom("jax-cuda-backend-failed", f"CUDA backend failed to initialize: line {n}", "jax") for n in (1, 2, 3)]
BACKEND_FIX = Fix("Check the driver, the plugin's CUDA libraries, and that LD_LIBRARY_PATH does not shadow them",
                  ("unset LD_LIBRARY_PATH", "python -c \"import jax; jax.print_environment_info()\""), GUIDE)
TITLE = "JAX's CUDA backend failed to initialise: it runs on the CPU"


def test_backend_failed_from_the_log_pinned():
    assert run(j.jax_cuda_backend_failed, Facts(symptoms=tuple(FAILED))) == [  # the first two lines are evidence enough
        Finding("jax-cuda-backend-failed", Severity.ERROR, Section.JAX, TITLE,
                ("log: CUDA backend failed to initialize: line 1", "log: CUDA backend failed to initialize: line 2"), BACKEND_FIX)]


def deep(build: str | None = "cuda12", gpu_devices: int | None = 0, devices=("TFRT_CPU_0",), driver=Driver(version="570.124.04"),
         cc: str | None = "8.9", symptoms=()) -> Facts:  # fmt: skip
    jax = JaxBuild(version="0.7.2", jaxlib="0.7.2", build=build, plugin="0.7.2", backend="cpu", devices=devices, gpu_devices=gpu_devices)
    return machine(jax, driver=driver, cc=cc, symptoms=symptoms)


def test_deep_saw_no_gpu_pinned():
    assert run(j.jax_cuda_backend_failed, deep(devices=("TFRT_CPU_0", "TFRT_CPU_1"), symptoms=(FAILED[0],))) == [
        Finding("jax-cuda-backend-failed", Severity.ERROR, Section.JAX, TITLE,
                ("log: CUDA backend failed to initialize: line 1", "jax.devices() = TFRT_CPU_0, TFRT_CPU_1; jax.default_backend() = cpu"),
                BACKEND_FIX)]
    (finding,) = run(j.jax_cuda_backend_failed, deep("cuda13", devices=None, cc=None))  # the driver implies the GPU
    assert finding.evidence == ("jax.devices() = ; jax.default_backend() = cpu",)


@pytest.mark.parametrize("facts", [
    deep(gpu_devices=1), deep(gpu_devices=None), deep(build="cpu"), deep(build=None),
    deep(driver=None, cc=None),  # whether a GPU is there is unknown
    Facts(gpus=(), pci_devices=(), frameworks=deep().frameworks),  # no GPU: the CPU is right
    Facts(symptoms=(Symptom("jax-cpu-fallback", "Falling back to cpu."),)), Facts(),
])  # fmt: skip
def test_backend_silent(facts):
    assert run(j.jax_cuda_backend_failed, facts) == []


def test_every_rule_is_registered():
    assert j.CHECKS == (j.jax_cpu_only_install, j.jax_plugin_driver_too_old, j.jax_version_mismatch,
                        j.jax_plugin_cuda_wheels_mismatch, j.jax_python_no_wheel, j.jax_cuda_backend_failed)


def test_gpus_without_a_compute_capability_are_not_judged():
    facts = machine(JaxBuild(version="0.7.2", jaxlib="0.7.2", build="cuda13", plugin="0.7.2"), driver=Driver(version="580.65.06"), cc=None)
    facts = Facts(host=facts.host, driver=facts.driver, gpus=(Gpu(index=0), Gpu(index=1, compute_capability="8.0")),
                  frameworks=facts.frameworks)
    assert run(j.jax_plugin_driver_too_old, facts) == []
