"""JAX has no CUDA build for native Windows (checks/jax_platform.py)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

# https://github.com/ZhengYinan-AIR/FISOR/issues/3: pip offers only plain (CPU) jaxlib versions
REFUSED = ("ERROR: Could not find a version that satisfies the requirement jaxlib==0.4.9+cuda12.cudnn88 "
           "(from versions: 0.4.13, 0.4.14, 0.4.16, 0.4.17)\n")
FELL_BACK = "No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n"


def _ids(text: str) -> set[str]:
    return {f.id for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings}


def test_a_cuda_jaxlib_pip_cannot_find_beside_plain_ones_is_the_platform_gap():
    assert "jax-windows-native-gpu-unsupported" in _ids(REFUSED)


def test_jax_falling_back_on_native_windows_is_the_platform_gap():
    # https://github.com/google-research/maxim/issues/42
    words = "I am running on two PC with Windows 11 and Windows 10, each with Nvidia GPU, and facing same issue on both.\n"
    assert "jax-windows-native-gpu-unsupported" in _ids(words + FELL_BACK)


def test_on_linux_or_wsl_it_is_not():
    assert "jax-windows-native-gpu-unsupported" not in _ids("I run this on Ubuntu 22.04 with an RTX 3090.\n" + FELL_BACK)
    assert "jax-windows-native-gpu-unsupported" not in _ids("On Windows 11 I use WSL2 with an RTX 3060.\n" + FELL_BACK)
