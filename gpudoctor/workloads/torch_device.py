"""Where a PyTorch smoke test runs, and the CUDA facts it reports. Every CUDA call goes through ``cuda`` (torch.cuda
unless a test passes a fake with the same names, tests/verify/fake_cuda.py), so the GPU branch runs under test on
machines without a GPU; on a GPU host the same functions run against the real torch.cuda (tests marked ``gpu``)."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import torch

from gpudoctor.workloads import NoDevice


_UNSET: Any = object()


def resolve_device(request: str, cuda: Any = None, hip: Any = _UNSET, mps: Any = None, xpu: Any = None,
                   directml: Any = None) -> tuple[Any, str, str | None]:
    """-> (device, its name, a note on why). Raises NoDevice when an accelerator is asked for and not there.

    ``mps`` (torch.backends.mps), ``xpu`` (torch.xpu) and ``directml`` (the torch_directml module) are the real APIs
    unless a test passes fakes with the same names; auto takes CUDA, then MPS, then XPU, then the CPU. On a ROCm build
    (torch.version.hip set) torch's "cuda" device is the AMD GPU, driven through HIP: its name says so, so a report
    never calls an AMD GPU a CUDA device. ``hip`` defaults to torch.version.hip (tests pass one)."""
    cuda = cuda or torch.cuda
    hip = getattr(torch.version, "hip", None) if hip is _UNSET else hip
    if hip:
        cuda = _HipNamed(cuda, hip)
    count = cuda.device_count() if cuda.is_available() else 0
    if request == "cpu":
        return torch.device("cpu"), "CPU", "--device cpu"
    if request in ("mps", "xpu") or request.startswith("xpu:"):
        return _other(request, mps, xpu)
    if request == "directml":
        return _directml(directml)
    if request == "auto":
        if count:
            return torch.device("cuda:0"), cuda.get_device_name(0), None
        for other in ("mps", "xpu"):
            try:
                return _other(other, mps, xpu)
            except NoDevice:
                continue
        return torch.device("cpu"), "CPU", "no CUDA device is visible to PyTorch" + why_no_cuda()
    index = int(request.split(":", 1)[1]) if ":" in request else 0
    if not count:
        raise NoDevice(f"no CUDA device: torch.cuda.is_available() is False{why_no_cuda()}")
    if index >= count:
        raise NoDevice(f"no CUDA device cuda:{index}: PyTorch sees {count} (cuda:0..cuda:{count - 1})")
    return torch.device(f"cuda:{index}"), cuda.get_device_name(index), None


class _HipNamed:
    """torch.cuda as seen on a ROCm build: the same calls, with device names that say ROCm/HIP."""

    def __init__(self, cuda: Any, hip: str):
        self._cuda, self._hip = cuda, hip

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cuda, name)

    def get_device_name(self, index: int = 0) -> str:
        return f"{self._cuda.get_device_name(index)} (ROCm/HIP {self._hip})"


def _other(request: str, mps: Any, xpu: Any) -> tuple[Any, str, str | None]:
    """Apple's MPS or Intel's XPU, through their own availability calls."""
    if request == "mps":
        mps = mps or getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            built = bool(mps and mps.is_built())
            raise NoDevice("no MPS device: torch.backends.mps.is_available() is False"
                           + (" (macOS 12.3+ on Apple silicon with a native arm64 Python is needed)" if built
                              else f" (torch {torch.__version__} is not built with MPS: only the macOS wheels are)"))
        return torch.device("mps"), "Apple GPU (MPS)", None
    xpu = xpu or getattr(torch, "xpu", None)
    if xpu is None or not xpu.is_available():
        raise NoDevice(f"no XPU device: torch.xpu.is_available() is False (torch {torch.__version__}; XPU builds come from "
                       "https://download.pytorch.org/whl/xpu)")
    index = int(request.split(":", 1)[1]) if ":" in request else 0
    if index >= xpu.device_count():
        raise NoDevice(f"no XPU device xpu:{index}: PyTorch sees {xpu.device_count()}")
    return torch.device(f"xpu:{index}"), xpu.get_device_name(index), None


def _directml(directml: Any) -> tuple[Any, str, str | None]:
    if directml is None:
        try:
            import torch_directml as directml  # type: ignore[import-not-found, no-redef]
        except ImportError:
            raise NoDevice("no DirectML device: torch-directml is not installed (pip install torch-directml)") from None
    if not directml.is_available():
        raise NoDevice("no DirectML device: torch_directml.is_available() is False")
    return directml.device(), directml.device_name(directml.default_device()), None


def why_no_cuda() -> str:
    if getattr(torch.version, "hip", None):
        return f" (torch {torch.__version__} is a ROCm/HIP {torch.version.hip} build; no AMD GPU is visible to HIP)"
    if torch.version.cuda is None:
        return f" (torch {torch.__version__} is a CPU-only build)"
    reason = cuda_init_error()
    return f" (torch {torch.__version__} is a CUDA {torch.version.cuda} build; {reason or 'no driver or GPU is visible'})"


def cuda_init_error() -> str | None:
    """torch's own reason, which torch.cuda.is_available() swallows and torch.cuda.init() raises: "Found no NVIDIA
    driver on your system", or "The NVIDIA driver on your system is too old (found version 11070)" (its first
    sentence; the rest is a download link)."""
    try:
        torch.cuda.init()
    except Exception as exc:  # noqa: BLE001 - whatever torch raises is the reason to show
        text = " ".join(str(exc).split())
        first = text.split(". ", 1)[0].rstrip(".")[:200]
        return f"torch says: {first}" if first else None
    return None


def same_device(a: torch.device, b: torch.device) -> bool:
    return a.type == b.type and (a.type not in ("cuda", "xpu") or (a.index or 0) == (b.index or 0))


def sync(device: torch.device, cuda: Any = None) -> None:
    """Wait for the device: CUDA kernels are asynchronous, so a timer read without this measures only the launch."""
    if device.type == "cuda":
        (cuda or torch.cuda).synchronize(device)


def reset_peak_memory(device: torch.device, cuda: Any = None) -> None:
    if device.type == "cuda":
        (cuda or torch.cuda).reset_peak_memory_stats(device)


def peak_memory_mib(device: torch.device, cuda: Any = None) -> float | None:
    """Peak memory PyTorch's caching allocator handed out on the device since the last reset; None on the CPU."""
    if device.type != "cuda":
        return None
    return (cuda or torch.cuda).max_memory_allocated(device) / 2**20


def compute_capability(device: torch.device, cuda: Any = None) -> tuple[int, int] | None:
    return tuple((cuda or torch.cuda).get_device_capability(device)) if device.type == "cuda" else None  # type: ignore[return-value]


def amp_dtypes(device: torch.device, cuda: Any = None) -> list[str]:
    """fp16 always; bf16 only where the GPU has it natively (emulated bf16 on cc < 8.0 proves nothing about it)."""
    native_bf16 = device.type == "cuda" and (cuda or torch.cuda).is_bf16_supported(including_emulation=False)
    return ["fp16"] + (["bf16"] if native_bf16 else [])


@contextlib.contextmanager
def exact_fp32(backends: Any = None) -> Iterator[None]:
    """For the GPU-vs-CPU comparison: plain fp32 (no TF32 in matmuls, convolutions or RNNs) and deterministic cuDNN
    algorithms without autotuning, so the only difference left is summation order; everything is put back after."""
    b = backends or torch.backends
    cudnn = b.cudnn
    flags = (cudnn.benchmark, cudnn.deterministic)
    if hasattr(b.cuda.matmul, "fp32_precision"):
        # torch >= 2.9: the fp32_precision API; setting the legacy allow_tf32 flags as well is refused by torch.
        targets = [b.cuda.matmul, cudnn.conv, cudnn.rnn]
        saved = [t.fp32_precision for t in targets]
        for t in targets:
            t.fp32_precision = "ieee"

        def restore() -> None:
            for t, value in zip(targets, saved):
                t.fp32_precision = value
    else:
        legacy = (b.cuda.matmul.allow_tf32, cudnn.allow_tf32)
        b.cuda.matmul.allow_tf32 = cudnn.allow_tf32 = False

        def restore() -> None:
            b.cuda.matmul.allow_tf32, cudnn.allow_tf32 = legacy

    cudnn.benchmark, cudnn.deterministic = False, True
    try:
        yield
    finally:
        restore()
        cudnn.benchmark, cudnn.deterministic = flags
