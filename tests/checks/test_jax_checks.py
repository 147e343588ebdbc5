"""The JAX checks on hand-built facts: each failure mode, its severity, and silence on healthy and unknown facts."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Driver, Facts, Frameworks, Gpu, Host, JaxBuild, Section, Severity, Symptom
from gpudoctor.jax_builds import PLUGIN_NAMES, jax_build

MATRIX = load_matrix()
ABSENT_PLUGINS = {name: None for name in PLUGIN_NAMES}


def _facts(jax: JaxBuild | None, gpu: bool | None = True, driver: str | None = "570.124.04", cc: str = "8.9",
           python: str = "3.12.3", packages: dict | None = None, symptoms=None, os: str = "linux") -> Facts:  # fmt: skip
    gpus = (Gpu(index=0, name="NVIDIA GeForce RTX 4090", compute_capability=cc),) if gpu else (() if gpu is False else None)
    return Facts(host=Host(os=os, python=python), driver=Driver(version=driver) if gpu else Driver(), gpus=gpus,
                 pci_devices=() if gpu is False else None, python_packages=packages if packages is not None else {},
                 frameworks=Frameworks(jax=jax), symptoms=symptoms)  # fmt: skip


def _jax_findings(facts: Facts) -> dict[str, Severity]:
    report = run_checks(facts, MATRIX)
    return {f.id: f.severity for f in report.findings if f.section is Section.JAX}


def _build(**packages) -> JaxBuild:
    return jax_build(ABSENT_PLUGINS | {k.replace("_", "-"): v for k, v in packages.items()})


def test_the_build_is_read_from_the_distributions():
    assert _build(jax="0.7.2", jaxlib="0.7.2").build == "cpu"
    assert _build(jax="0.7.2", jaxlib="0.7.2", jax_cuda12_plugin="0.7.2", jax_cuda12_pjrt="0.7.2").build == "cuda12"
    both = _build(jax="0.7.2", jaxlib="0.7.2", jax_cuda12_plugin="0.7.2", jax_cuda13_plugin="0.7.2")
    assert (both.build, both.plugin) == ("cuda13", "0.7.2")  # jax tries the CUDA 13 plugin first
    assert _build(jax="0.4.23", jaxlib="0.4.23+cuda12.cudnn89").build == "cuda12"  # the old monolithic CUDA jaxlib
    assert jax_build({"jax": "0.7.2", "jaxlib": "0.7.2"}).build is None  # plugins not looked for: unknown, not CPU
    assert jax_build({"torch": "2.7.1"}) is None and jax_build(None) is None


def test_cpu_build_on_a_gpu_machine_is_an_error_with_the_plugin_this_driver_runs():
    report = run_checks(_facts(_build(jax="0.7.2", jaxlib="0.7.2")), MATRIX)
    finding = next(f for f in report.findings if f.id == "jax-cpu-only-install")
    assert finding.severity is Severity.ERROR
    assert 'pip install -U "jax[cuda12]==0.7.2"' in finding.fix.commands  # driver 570 < 580: not cuda13


def test_cpu_build_with_a_cuda13_driver_gets_cuda13():
    report = run_checks(_facts(_build(jax="0.10.2", jaxlib="0.10.2"), driver="580.65.06"), MATRIX)
    finding = next(f for f in report.findings if f.id == "jax-cpu-only-install")
    assert 'pip install -U "jax[cuda13]==0.10.2"' in finding.fix.commands


@pytest.mark.parametrize("gpu, severity", [(False, Severity.INFO), (None, Severity.WARNING)])
def test_cpu_build_without_a_gpu_is_a_note_and_unknown_is_a_warning(gpu, severity):
    assert _jax_findings(_facts(_build(jax="0.7.2", jaxlib="0.7.2"), gpu=gpu))["jax-cpu-only-install"] is severity


def test_cpu_build_on_macos_is_right():
    assert "jax-cpu-only-install" not in _jax_findings(_facts(_build(jax="0.7.2", jaxlib="0.7.2"), os="darwin"))


def test_unknown_build_is_not_cpu_only():
    assert _jax_findings(_facts(JaxBuild(version="0.7.2", jaxlib="0.7.2"))) == {}


def test_a_healthy_cuda_install_has_no_finding():
    healthy = _build(jax="0.7.2", jaxlib="0.7.2", jax_cuda12_plugin="0.7.2", jax_cuda12_pjrt="0.7.2")
    packages = {"nvidia-cudnn-cu12": "9.10.2.21", "nvidia-cudnn-cu13": None}
    assert _jax_findings(_facts(healthy, packages=packages)) == {}
    cuda13 = _build(jax="0.10.2", jaxlib="0.10.2", jax_cuda13_plugin="0.10.2", jax_cuda13_pjrt="0.10.2")
    assert _jax_findings(_facts(cuda13, driver="580.65.06")) == {}


@pytest.mark.parametrize("plugin, driver, expected", [
    ("cuda12", "470.82.01", "driver-too-old-for-cuda-build"),
    ("cuda13", "570.124.04", "driver-too-old-for-cuda-build"),
    ("cuda12", "525.60.13", None),
    ("cuda13", "580.65.06", None),
])  # fmt: skip
def test_the_plugin_needs_its_driver(plugin, driver, expected):
    build = _build(jax="0.7.2", jaxlib="0.7.2", **{f"jax_{plugin}_plugin": "0.7.2"})
    found = _jax_findings(_facts(build, driver=driver))
    assert (found.get(expected) if expected else found) == (Severity.ERROR if expected else {})


def test_an_unknown_driver_is_no_finding():
    build = _build(jax="0.7.2", jaxlib="0.7.2", jax_cuda13_plugin="0.7.2")
    assert _jax_findings(_facts(build, driver=None)) == {}


def test_cuda13_on_a_pre_turing_gpu():
    build = _build(jax="0.7.2", jaxlib="0.7.2", jax_cuda13_plugin="0.7.2")
    assert _jax_findings(_facts(build, driver="580.65.06", cc="6.1")) == {"gpu-arch-not-in-build": Severity.ERROR}


@pytest.mark.parametrize("jax, jaxlib, plugin, expected", [
    ("0.4.13", "0.4.30", None, Severity.ERROR),     # jaxlib newer than jax: jax raises at import
    ("0.8.3", "0.8.2", None, None),                 # jax 0.8.3 accepts jaxlib >= 0.8.2 (its METADATA)
    ("0.10.2", "0.10.0", None, Severity.ERROR),     # jax 0.10.2 needs jaxlib >= 0.10.1
    ("0.7.2", "0.7.2", "0.8.1", Severity.ERROR),    # a plugin of another release than jaxlib
    ("0.7.2", "0.7.2", "0.7.2", None),
])  # fmt: skip
def test_versions_that_do_not_go_together(jax, jaxlib, plugin, expected):
    build = _build(jax=jax, jaxlib=jaxlib, jax_cuda12_plugin=plugin)
    assert _jax_findings(_facts(build)).get("jax-version-mismatch") is expected


def test_a_plugin_beside_the_other_majors_cuda_wheels():
    build = _build(jax="0.7.2", jaxlib="0.7.2", jax_cuda12_plugin="0.7.2")
    wrong = {"nvidia-cudnn-cu12": None, "nvidia-cudnn-cu13": "9.13.0.50"}
    assert _jax_findings(_facts(build, packages=wrong)) == {"jax-plugin-cuda-wheels-mismatch": Severity.WARNING}
    unknown = {"nvidia-cudnn-cu13": "9.13.0.50"}  # cu12 not looked for: no finding
    assert _jax_findings(_facts(build, packages=unknown)) == {}


def test_python_without_a_jaxlib_wheel():
    build = _build(jax="0.4.30", jaxlib="0.4.30", jax_cuda12_plugin="0.4.30")
    assert _jax_findings(_facts(build, python="3.13.1")) == {"python-version-no-wheel": Severity.WARNING}


def test_logged_messages_are_findings():
    fallback = (Symptom("jax-cpu-fallback", "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.", "jax"),)
    # the fallback line alone: said as a warning, since the program that printed it may train with another framework
    # (tests/data/threads/ok-jax-kohyacolab-133.toml: a torch trainer in Colab, the maintainer said to ignore it)
    assert _jax_findings(_facts(None, gpu=None, symptoms=fallback)) == {"jax-cpu-only-install": Severity.WARNING}
    cpu_jax = _build(jax="0.4.30", jaxlib="0.4.30")
    assert _jax_findings(_facts(cpu_jax, symptoms=fallback)) == {"jax-cpu-only-install": Severity.ERROR}
    failed = (Symptom("jax-cuda-backend-failed", "CUDA backend failed to initialize: FAILED_PRECONDITION: No visible GPU devices.", "jax"),)
    assert _jax_findings(_facts(None, symptoms=failed)) == {"jax-cuda-backend-failed": Severity.ERROR}


def test_deep_saw_no_gpu_with_a_plugin_installed():
    build = _build(jax="0.7.2", jaxlib="0.7.2", jax_cuda12_plugin="0.7.2")
    import dataclasses

    deep = dataclasses.replace(build, backend="cpu", devices=("TFRT_CPU_0",), gpu_devices=0)
    assert _jax_findings(_facts(deep)) == {"jax-cuda-backend-failed": Severity.ERROR}
    assert _jax_findings(_facts(dataclasses.replace(build, backend="gpu", devices=("cuda:0",), gpu_devices=1))) == {}


def test_a_plugin_that_sees_no_gpu_is_an_error_only_where_a_gpu_is_known():
    # https://github.com/jax-ml/jax/issues/23208 (round 4's frozen part, read after it was scored): jax[cuda12] on
    # hosts of which some have no GPU; "No visible GPU devices" was right there, the setup healthy
    from gpudoctor.checks.jax import jax_cuda_backend_failed
    from gpudoctor.model import Facts, Gpu, Severity, Symptom

    line = Symptom("jax-cuda-backend-failed", "RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: "
                   "No visible GPU devices. (you may need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)")
    (unknown,) = jax_cuda_backend_failed(Facts(symptoms=(line,)), None)
    assert unknown.severity == Severity.WARNING and unknown.evidence[-1] == "whether this machine has an NVIDIA GPU is not known"
    assert list(jax_cuda_backend_failed(Facts(symptoms=(line,), gpus=(), pci_devices=()), None)) == []
    (known,) = jax_cuda_backend_failed(Facts(symptoms=(line,), gpus=(Gpu(index=0, name="NVIDIA A100"),)), None)
    assert known.severity == Severity.ERROR
    other = Symptom("jax-cuda-backend-failed", "CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8904")
    (f,) = jax_cuda_backend_failed(Facts(symptoms=(other,)), None)
    assert f.severity == Severity.ERROR  # another reason: the plugin failed where a GPU answered
