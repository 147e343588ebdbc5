"""JAX's CPU-only and driver rules, finding by finding (issue 11: mutation score of checks/jax.py).

test_jax_checks.py says which finding each install raises; this file pins the whole finding a user reads (id,
severity, title, every evidence line, the fix and its pip commands) for each branch, the pip requirement the fix
picks from the machine (driver, CUDA, GPU, Python, installed release), and the silent cases."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import jax as j
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Driver, Facts, Finding, Fix, Frameworks, Gpu, Host, JaxBuild, Section, Severity, Symptom

MATRIX = load_matrix()
NO_JAX_TABLE = dataclasses.replace(MATRIX, jax=None)
GUIDE = "https://docs.jax.dev/en/latest/installation.html"
UNINSTALL = "pip uninstall -y jax jaxlib"
CPU_072 = JaxBuild(version="0.7.2", jaxlib="0.7.2", build="cpu")
NO_PLUGIN = "jax 0.7.2 / jaxlib 0.7.2: no jax-cuda12-plugin or jax-cuda13-plugin installed"
FALLBACK = Symptom("jax-cpu-fallback", "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
                   "installed. Falling back to cpu.", "jax")
R570, R580 = Driver(version="570.124.04", cuda_version="12.8"), Driver(version="580.65.06")


def machine(jax: JaxBuild | None, driver: Driver | None = R570, cc: str | None = "8.9", python: str | None = "3.12.3",
            os: str = "linux", symptoms: tuple[Symptom, ...] | None = None) -> Facts:
    """A Linux machine with one listed GPU (cc None: no GPU list at all)."""
    gpus = (Gpu(index=0, name="NVIDIA GeForce RTX 4090", compute_capability=cc),) if cc else None
    return Facts(host=Host(os=os, python=python), driver=driver, gpus=gpus, frameworks=Frameworks(jax=jax), symptoms=symptoms)


def run(rule, facts: Facts, matrix=MATRIX) -> list[Finding]:
    return list(rule(facts, matrix))


def install(requirement: str, summary: str = "Install JAX with its CUDA plugin") -> Fix:
    return Fix(summary, (UNINSTALL, f'pip install -U "{requirement}"'), GUIDE)


ON_GPU = "jax 0.7.2 / jaxlib 0.7.2 has no CUDA plugin on a machine with an NVIDIA GPU: JAX falls back to the CPU"


def test_cpu_build_on_a_listed_gpu_pinned():
    assert run(j.jax_cpu_only_install, machine(CPU_072)) == [
        Finding("jax-cpu-only-install", Severity.ERROR, Section.JAX, ON_GPU, (NO_PLUGIN,), install("jax[cuda12]==0.7.2"))]


def test_cpu_build_where_only_the_driver_says_there_is_a_gpu():
    (finding,) = run(j.jax_cpu_only_install, machine(CPU_072, cc=None))
    assert (finding.severity, finding.title) == (Severity.ERROR, ON_GPU)
    assert finding.evidence == (NO_PLUGIN, "NVIDIA driver 570.124.04 reports its version, so an NVIDIA GPU is present (the GPU list is unknown)")
    (finding,) = run(j.jax_cpu_only_install, machine(CPU_072, driver=Driver(cuda_version="12.2"), cc=None))
    assert finding.evidence[1] == "the NVIDIA driver reports CUDA 12.2, so an NVIDIA GPU is present (the GPU list is unknown)"
    assert finding.fix == install("jax[cuda12]==0.7.2")  # a CUDA 12.2 driver cannot run cuda13


def test_cpu_build_without_a_gpu_is_a_note_without_a_fix():
    facts = dataclasses.replace(machine(CPU_072, driver=Driver(), cc=None), gpus=(), pci_devices=())
    assert run(j.jax_cpu_only_install, facts) == [
        Finding("jax-cpu-only-install", Severity.INFO, Section.JAX,
                "jax 0.7.2 / jaxlib 0.7.2 is the CPU build (fine on this machine without an NVIDIA GPU)", (NO_PLUGIN,))]


def test_cpu_build_where_the_gpu_is_unknown_is_a_warning():
    assert run(j.jax_cpu_only_install, machine(CPU_072, driver=None, cc=None)) == [
        Finding("jax-cpu-only-install", Severity.WARNING, Section.JAX,
                "jax 0.7.2 / jaxlib 0.7.2 has no CUDA plugin: it cannot use an NVIDIA GPU (whether this machine has one is not known)",
                (NO_PLUGIN,), install("jax[cuda13]==0.7.2"))]  # driver unknown: not judged, the newest plugin


def test_the_fallback_line_alone_is_a_warning_with_the_newest_release():
    second = Symptom("jax-cpu-fallback", "a second fallback line", "jax")
    assert run(j.jax_cpu_only_install, Facts(symptoms=(FALLBACK, second))) == [
        Finding("jax-cpu-only-install", Severity.WARNING, Section.JAX,
                "jax (version unknown) / jaxlib (version unknown) has no CUDA plugin: it cannot use an NVIDIA GPU "
                "(whether this machine has one is not known)", (f"log: {FALLBACK.text}",), install("jax[cuda13]==0.10.2"))]


def test_the_fallback_line_beside_a_cpu_build_is_an_error_even_on_a_mac():
    expected = [Finding("jax-cpu-only-install", Severity.ERROR, Section.JAX, ON_GPU, (NO_PLUGIN, f"log: {FALLBACK.text}"),
                        install("jax[cuda13]==0.7.2"))]  # no driver known: not judged
    assert run(j.jax_cpu_only_install, machine(CPU_072, driver=None, cc=None, symptoms=(FALLBACK,))) == expected
    assert run(j.jax_cpu_only_install, machine(CPU_072, driver=None, cc=None, os="darwin", symptoms=(FALLBACK,))) == expected


def test_the_fallback_line_beside_a_jax_of_unknown_build():
    (finding,) = run(j.jax_cpu_only_install, machine(JaxBuild(version="0.7.2", jaxlib="0.7.2"), symptoms=(FALLBACK,)))
    assert (finding.severity, finding.title) == (Severity.ERROR, ON_GPU)
    assert finding.evidence == (f"log: {FALLBACK.text}",)  # the build is not known to be CPU: no "no plugin" line


@pytest.mark.parametrize("jax", [JaxBuild(build="cpu"), JaxBuild(version="0.7.2", build="cpu"), JaxBuild(jaxlib="0.7.2", build="cpu")])
def test_a_cpu_build_of_unknown_versions_on_a_gpu_is_still_an_error(jax):
    (finding,) = run(j.jax_cpu_only_install, machine(jax))
    assert finding.severity is Severity.ERROR
    assert finding.title.endswith("has no CUDA plugin on a machine with an NVIDIA GPU: JAX falls back to the CPU")
    assert finding.title.startswith(f"jax {jax.version or '(version unknown)'} / jaxlib {jax.jaxlib or '(version unknown)'} ")


@pytest.mark.parametrize("facts", [
    machine(None),  # no jax
    machine(JaxBuild(version="0.7.2", jaxlib="0.7.2")),  # build unknown
    machine(JaxBuild(version="0.7.2", jaxlib="0.7.2", build="cuda12", plugin="0.7.2")),
    machine(JaxBuild(version="0.7.2", jaxlib="0.7.2", build="cuda13", plugin="0.7.2"), driver=R580),
    machine(CPU_072, os="darwin"),  # no CUDA wheels there: the CPU build is right
    machine(CPU_072, os="windows"),
    Facts(symptoms=(Symptom("jax-cuda-backend-failed", "CUDA backend failed to initialize"),)),  # another kind of line
])  # fmt: skip
def test_cpu_only_is_silent(facts):
    assert run(j.jax_cpu_only_install, facts) == []


@pytest.mark.parametrize("facts, requirement", [
    (machine(CPU_072, driver=R580), "jax[cuda13]==0.7.2"),
    (machine(JaxBuild(version="0.7.2+local", jaxlib="0.7.2", build="cpu")), "jax[cuda12]==0.7.2"),  # the local tag is dropped
    (machine(JaxBuild(version="0.3.25", jaxlib="0.3.25", build="cpu")), "jax[cuda12]==0.10.2"),  # not in the table: the newest
    (machine(JaxBuild(build="cpu")), "jax[cuda12]==0.10.2"),
    (machine(CPU_072, python="3.9.18"), "jax[cuda12]==0.4.30"),  # 0.7.2 has no Python 3.9 wheel: the newest that has
    (machine(CPU_072, python=None), "jax[cuda12]==0.7.2"),
    (machine(CPU_072, driver=R580, cc="6.1"), "jax[cuda12]==0.7.2"),  # cuda13 needs compute capability 7.5
    (machine(CPU_072, driver=Driver(cuda_version="13.0"), cc=None), "jax[cuda13]==0.7.2"),
])  # fmt: skip
def test_the_fix_installs_what_this_machine_runs(facts, requirement):
    (finding,) = run(j.jax_cpu_only_install, facts)
    assert finding.fix == install(requirement)


def test_without_a_jax_table_the_fix_names_the_cuda12_plugin():
    (finding,) = run(j.jax_cpu_only_install, machine(CPU_072), NO_JAX_TABLE)
    assert finding.fix == install("jax[cuda12]")


@pytest.mark.parametrize("facts", [
    machine(CPU_072, driver=Driver(version="470.82.01")),
    machine(CPU_072, driver=Driver(cuda_version="11.4"), cc=None),
    machine(CPU_072, driver=Driver(version="470.82.01"), python="3.8.10"),  # the driver first: no wheel runs on it at all
])  # fmt: skip
def test_a_driver_too_old_for_every_plugin_asks_for_a_driver(facts):
    (finding,) = run(j.jax_cpu_only_install, facts)
    assert finding.fix == Fix("Upgrade the NVIDIA driver to 525 or newer: no JAX CUDA wheel runs on this driver and GPU", (), GUIDE)


@pytest.mark.parametrize("driver", [R580, Driver(version="470.82.01")])  # a driver upgrade does not help such a GPU
def test_a_gpu_older_than_every_plugin_is_not_told_to_upgrade_the_driver(driver):
    (finding,) = run(j.jax_cpu_only_install, machine(CPU_072, driver=driver, cc="5.0"))
    assert finding.fix == Fix("No JAX CUDA wheel supports this GPU (they need compute capability 5.2 or newer): JAX runs on the CPU here",
                              (), GUIDE)


@pytest.mark.parametrize("driver", [R570, None])  # an unknown driver is not judged: the Python is what rules them out
def test_a_python_without_any_cuda_wheel_is_not_told_to_upgrade_the_driver(driver):
    (finding,) = run(j.jax_cpu_only_install, machine(CPU_072, driver=driver, python="3.8.10"))
    assert finding.fix == Fix("Use a Python that JAX publishes CUDA wheels for (3.9 to 3.14; this is Python 3.8)", (), GUIDE)


def test_a_matrix_without_jax_data_is_not_a_crash():
    """The checks take any matrix object (a hand-built matrix directory may lack jax.toml): no table, no version data."""
    (finding,) = run(j.jax_cpu_only_install, machine(CPU_072), object())
    assert finding.fix == install("jax[cuda12]")
    assert run(j.jax_plugin_driver_too_old, machine(CUDA13), object()) == []


CUDA13 = JaxBuild(version="0.7.2", jaxlib="0.7.2", build="cuda13", plugin="0.7.2", pjrt="0.7.2")
TO_CUDA12 = install("jax[cuda12]==0.7.2", "Install the JAX plugin this driver runs, or upgrade the driver to 580 or newer")


def test_plugin_driver_too_old_pinned():
    assert run(j.jax_plugin_driver_too_old, machine(CUDA13)) == [
        Finding("driver-too-old-for-cuda-build", Severity.ERROR, Section.JAX, "jax[cuda13] needs NVIDIA driver 580 or newer",
                ("jax-cuda13-plugin 0.7.2: cuda13 needs NVIDIA driver >= 580 (installed: 570.124.04)",
                 "NVIDIA driver 570.124.04 (CUDA 12.8)"), TO_CUDA12)]


def test_a_driver_known_by_its_cuda_alone():
    (finding,) = run(j.jax_plugin_driver_too_old, machine(CUDA13, driver=Driver(cuda_version="12.8")))
    assert finding.id == "driver-too-old-for-cuda-build"
    assert finding.evidence == ("jax-cuda13-plugin 0.7.2: cuda13 needs a driver for CUDA 13.0+ (this driver supports CUDA 12.8)",
                                "NVIDIA driver version unknown (CUDA 12.8)")


def test_a_gpu_older_than_the_plugin_pinned():
    why = "cuda13 needs compute capability >= 7.5 (this GPU: 6.1)"
    (finding,) = run(j.jax_plugin_driver_too_old, machine(CUDA13, driver=R580, cc="6.1"))
    assert (finding.id, finding.severity, finding.section) == ("gpu-arch-not-in-build", Severity.ERROR, Section.JAX)
    assert finding.title == f"jax[cuda13] does not support this GPU: {why}"
    assert finding.evidence == (f"jax-cuda13-plugin 0.7.2: {why}", "NVIDIA driver 580.65.06 (CUDA unknown)")
    assert finding.fix == install("jax[cuda12]==0.7.2", "Install the JAX plugin this GPU runs (jax[cuda13] needs compute capability 7.5 or newer)")


@pytest.mark.parametrize("plugin, pjrt, shown", [(None, "0.7.1", "0.7.1"), (None, None, "0.7.2"), ("0.7.0", "0.7.1", "0.7.0")])
def test_the_plugin_version_shown_is_the_plugin_then_pjrt_then_jaxlib(plugin, pjrt, shown):
    build = JaxBuild(version="0.7.2", jaxlib="0.7.2", build="cuda13", plugin=plugin, pjrt=pjrt)
    (finding,) = run(j.jax_plugin_driver_too_old, machine(build))
    assert finding.evidence[0].startswith(f"jax-cuda13-plugin {shown}: ")


@pytest.mark.parametrize("facts, matrix", [
    (machine(None), MATRIX),
    (machine(CUDA13), NO_JAX_TABLE),
    (machine(CPU_072, driver=Driver(version="470.82.01")), MATRIX),  # the CPU build needs no driver
    (machine(JaxBuild(version="0.7.2", jaxlib="0.7.2"), driver=Driver(version="470.82.01")), MATRIX),  # build unknown
    (machine(CUDA13, driver=None), MATRIX),  # driver unknown
    (machine(CUDA13, driver=Driver()), MATRIX),  # driver read, versions unknown: not judged
    (machine(CUDA13, driver=R580), MATRIX),
    (machine(CUDA13, driver=R580, cc="7.5"), MATRIX),  # at the floor
    (machine(dataclasses.replace(CUDA13, build="cuda12"), driver=Driver(version="525.60.13"), cc="5.2"), MATRIX),
])  # fmt: skip
def test_plugin_driver_is_silent(facts, matrix):
    assert run(j.jax_plugin_driver_too_old, facts, matrix) == []
