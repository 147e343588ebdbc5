"""JAX's "No GPU/TPU found, falling back to CPU" and a jaxlib without a CUDA platform name the CPU jaxlib, unless a
CUDA backend failed for a reason of its own (checks/jax.py, matrices/signatures.toml)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

# https://github.com/kuixu/alphafold/issues/8 (an RTX TITAN machine; the CPU jaxlib was installed)
ALPHAFOLD = """I0820 16:00:20.270564 140257858221888 xla_bridge.py:212] Unable to initialize backend 'tpu_driver': Not found: Unable to find driver in registry given worker: local://
I0820 16:00:20.281177 140257858221888 xla_bridge.py:212] Unable to initialize backend 'gpu': Not found: Could not find registered platform with name: "cuda". Available platform names are: Interpreter Host
I0820 16:00:20.281787 140257858221888 xla_bridge.py:212] Unable to initialize backend 'tpu': Invalid argument: TpuPlatform is not available.
W0820 16:00:20.282057 140257858221888 xla_bridge.py:215] No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)
"""
# https://github.com/jax-ml/jax/issues/20519's line: the CUDA backend failed for a reason of its own
CUDNN_FAILED = "CUDA backend failed to initialize: Unable to load cuDNN. Is it installed? (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n"


def _findings(text: str) -> dict[str, str]:
    report = run_checks(read_evidence(text, "paste"), load_matrix(), "paste")
    return {f.id: f.severity.label for f in report.findings}


def test_the_fallback_lines_name_the_cpu_jaxlib():
    found = _findings(ALPHAFOLD)
    assert found.get("jax-cpu-only-install") == "warning"  # whether the machine has a GPU is not in these lines
    assert "jax-cuda-backend-failed" not in found


def test_a_cuda_backend_that_failed_for_its_own_reason_is_that_reason():
    found = _findings(CUDNN_FAILED + ALPHAFOLD.splitlines(keepends=True)[-1])
    assert "jax-cuda-backend-failed" in found and "jax-cpu-only-install" not in found
