"""'the provided PTX was compiled with an unsupported toolchain': whose PTX it is decides the finding. A framework's
own kernels (jaxlib/, xla/, tensorflow/, torch/) carry the PTX of the CUDA the wheel was built with, so the driver
is too old for that build; a program built on this machine carries the local toolkit's PTX (signatures.toml)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix


def _ids(text: str) -> set[str]:
    return {f.id for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings}


def test_jaxlib_s_own_kernel_names_the_driver():
    # YoshitakaMo/localcolabfold#44 (frozen round 7, read after its score): the update brought a newer jaxlib
    line = ("jax._src.traceback_util.UnfilteredStackTrace: RuntimeError: INTERNAL: CustomCall failed: jaxlib/cuda_prng_kernels.cc:30: "
            "operation cudaGetLastError() failed: the provided PTX was compiled with an unsupported toolchain.\n")
    found = _ids(line)
    assert "driver-too-old-for-cuda-build" in found and "cuda-toolkit-newer-than-driver" not in found


def test_a_program_built_here_names_the_toolkit():
    # li-plus/chatglm.cpp#12: ggml's CUDA kernels compiled on the machine
    line = ("CUDA error 222 at xxxxxx/chatglm.cpp/third_party/ggml/src/ggml-cuda.cu:1835: the provided PTX was compiled with an "
            "unsupported toolchain.\n")
    found = _ids(line)
    assert "cuda-toolkit-newer-than-driver" in found and "driver-too-old-for-cuda-build" not in found
