"""What a solver Choice installs, in words, for file headers and stdout: the build kind and what accelerates it
(NVIDIA's CUDA, AMD's ROCm, a Jetson's JetPack, Apple's MPS) or that nothing does (a CPU-only build)."""

from __future__ import annotations

from typing import Any


def build_label(choice: Any) -> str:
    """ "torch 2.14.1 (cu126 wheels, CUDA 12.6)", "tensorflow 2.21.0 (and-cuda extra: CUDA 12.5 as nvidia-* wheels)",
    "torch 2.13.0 (ROCm 7.2 wheels)", "torch 2.15.0 (macOS arm64 build: CPU and MPS (Metal))"."""
    variant, cuda = choice.variant, choice.cuda
    accelerator = getattr(choice, "accelerator", None)
    if accelerator == "rocm":
        kind = f"ROCm {variant.removeprefix('rocm')} wheels for AMD GPUs"
    elif accelerator == "jetson":
        kind = f"NVIDIA's JetPack {variant.removeprefix('jp')} build, CUDA {cuda}"
    elif accelerator == "mps":
        kind = "macOS arm64 build: CPU and MPS (Metal)" + (" through tensorflow-metal" if choice.framework == "tensorflow" else "")
    elif variant == "cpu" or (cuda is None and variant != "and-cuda"):
        kind = "CPU build"
    elif variant == "and-cuda":
        kind = f"and-cuda extra: CUDA {cuda} as nvidia-* wheels" if cuda else "and-cuda extra"
    elif variant.endswith("-conda"):
        kind = f"CUDA {cuda} and cuDNN from conda-forge"
    elif variant.endswith("-system"):
        kind = f"needs CUDA {cuda} and cuDNN installed on the system"
    else:
        kind = f"{variant} wheels, CUDA {cuda}"
    return f"{choice.framework} {choice.version} ({kind})"


def accelerated_line(choice: Any) -> str | None:
    """The line `env` prints under "Chosen:" about what runs the build, or None when it is a CUDA build."""
    accelerator = getattr(choice, "accelerator", None)
    if accelerator == "mps":
        check = "torch.backends.mps.is_available()" if choice.framework == "torch" else "tf.config.list_physical_devices('GPU')"
        return f"  Accelerated by MPS (Metal) on the Apple GPU ({check} says whether this Mac runs it)."
    if accelerator == "rocm":
        return "  Accelerated by ROCm on the AMD GPU (torch's \"cuda\" device; torch.version.hip is set)."
    if choice.variant == "cpu":
        return "  This is a CPU-only build: it will not use a GPU."
    return None
