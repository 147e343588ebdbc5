"""JAX evidence in pasted text: package lists that name (or lack) a CUDA plugin, jax.print_environment_info(), and
JAX's CPU-fallback warning, each read from real public issue threads."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Section

# https://github.com/jax-ml/jax/issues/29068 (the reporter's `uv add jax[cuda12]` output, first post)
UV_CUDA12 = """\
 + jax==0.6.1
 + jax-cuda12-pjrt==0.6.1
 + jax-cuda12-plugin==0.6.1
 + jaxlib==0.6.1
 + ml-dtypes==0.5.1
 + numpy==2.2.6
 + nvidia-cublas-cu12==12.8.4.1
 + nvidia-cuda-runtime-cu12==12.9.37
 + nvidia-cudnn-cu12==9.10.1.4
"""

# https://github.com/jax-ml/jax/issues/26750 (the "System info" of the first post: jax.print_environment_info())
PRINT_ENV = """\
jax:    0.4.35
jaxlib: 0.4.35
numpy:  2.2.3
python: 3.13.2
"""

# https://github.com/JeffSHF/ColabDock/issues/28 (the warning and the nvidia-smi banner line, first post)
FALLBACK = """\
An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.
NVIDIA-SMI 550.144.03             Driver Version: 550.144.03     CUDA Version: 12.4
"""


def test_a_package_list_with_the_plugin_is_a_cuda12_build():
    facts = read_evidence(UV_CUDA12)
    jax = facts.frameworks.jax
    assert (jax.version, jax.jaxlib, jax.build, jax.plugin, jax.pjrt) == ("0.6.1", "0.6.1", "cuda12", "0.6.1", "0.6.1")
    assert "jax-cuda12-plugin" in facts.provenance["frameworks.jax.build"]


def test_a_package_list_without_a_plugin_is_the_cpu_build():
    facts = read_evidence("jax 0.7.2\njaxlib 0.7.2\nnumpy 2.3.1\n")
    assert facts.frameworks.jax.build == "cpu"


def test_print_environment_info_gives_versions_and_python():
    facts = read_evidence(PRINT_ENV)
    assert (facts.frameworks.jax.version, facts.frameworks.jax.jaxlib, facts.host.python) == ("0.4.35", "0.4.35", "3.13.2")
    assert facts.frameworks.jax.build is None  # no package list: whether a plugin is installed is unknown


def test_the_fallback_warning_is_the_cpu_only_finding():
    report = run_checks(read_evidence(FALLBACK), load_matrix())
    jax = [f for f in report.findings if f.section is Section.JAX]
    assert [(f.id, f.severity.label) for f in jax] == [("jax-cpu-only-install", "error")]
    assert any("Falling back to cpu" in line for line in jax[0].evidence)
