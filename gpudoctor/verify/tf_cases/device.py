"""Where a TensorFlow smoke test runs, and the GPU facts it reports. TensorFlow is passed in (``tf``; the real module
unless a test passes a fake with the same names, tests/verify/fake_cuda.py) and imported only when it is not, so the
GPU branch runs under test on machines without a GPU and without importing TensorFlow."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpudoctor.workloads import NoDevice


def _tensorflow() -> Any:
    import tensorflow

    return tensorflow


@dataclass(frozen=True)
class Device:
    """The device a TensorFlow case runs on: TensorFlow's name and gpudoctor's, its label and compute capability."""

    tf_name: str  # "/GPU:0", "/CPU:0"
    name: str  # "cuda:0", "cpu"
    label: str  # the GPU's name, "CPU"
    compute_capability: tuple[int, int] | None = None

    @property
    def is_gpu(self) -> bool:
        return self.tf_name.startswith("/GPU")

    def owns(self, device_string: str) -> bool:
        """Whether a TF device string ("/job:localhost/replica:0/task:0/device:GPU:0") is this device."""
        kind, index = self.tf_name.strip("/").split(":")
        return device_string.upper().endswith(f"DEVICE:{kind}:{index}".upper())


CPU = Device("/CPU:0", "cpu", "CPU")


def gpus(tf: Any = None) -> list[Any]:
    tf = tf or _tensorflow()
    found = tf.config.list_physical_devices("GPU")
    for gpu in found:
        try:
            # Without this TensorFlow takes nearly all GPU memory at start, and the peak it reports means nothing.
            tf.config.experimental.set_memory_growth(gpu, True)
        except RuntimeError:
            pass  # already initialised
    return found


def why_no_gpu(tf: Any = None) -> str:
    tf = tf or _tensorflow()
    if tf.test.is_built_with_cuda():
        return f" (tensorflow {tf.__version__} is a CUDA build; no driver or GPU is visible)"
    return f" (tensorflow {tf.__version__} is a CPU-only build)"


def resolve_device(request: str, tf: Any = None) -> tuple[Device, str | None]:
    tf = tf or _tensorflow()
    found = gpus(tf)
    if request == "cpu":
        return CPU, "--device cpu"
    if request in ("mps", "directml") or request.startswith("xpu"):
        return _pluggable(request, found, tf)
    if request == "auto":
        if not found:
            return CPU, "no CUDA device is visible to TensorFlow" + why_no_gpu(tf)
        index = 0
    else:
        index = int(request.split(":", 1)[1]) if ":" in request else 0
        if not found:
            raise NoDevice(f"no CUDA device: tf.config.list_physical_devices('GPU') is empty{why_no_gpu(tf)}")
        if index >= len(found):
            raise NoDevice(f"no CUDA device cuda:{index}: TensorFlow sees {len(found)} (cuda:0..cuda:{len(found) - 1})")
    details = tf.config.experimental.get_device_details(found[index])
    cc = details.get("compute_capability")
    return Device(f"/GPU:{index}", f"cuda:{index}", details.get("device_name", f"GPU {index}"), tuple(cc) if cc else None), None


_PLUGINS = {"mps": "tensorflow-metal", "directml": "tensorflow-directml-plugin", "xpu": "intel-extension-for-tensorflow"}


def _pluggable(request: str, found: list[Any], tf: Any) -> tuple[Device, str | None]:
    """Apple's Metal, DirectML and Intel's XPU reach TensorFlow as PluggableDevices that list as "GPU": the first one
    is the device asked for, named after the request so the report says which route ran."""
    kind = request.split(":", 1)[0]
    if not found:
        raise NoDevice(f"no {kind} device: tf.config.list_physical_devices('GPU') is empty (TensorFlow reaches it through "
                       f"the {_PLUGINS[kind]} plug-in){why_no_gpu(tf)}")
    details = tf.config.experimental.get_device_details(found[0])
    return Device("/GPU:0", kind, details.get("device_name", f"{_PLUGINS[kind]} GPU")), None


def reset_peak_memory(dev: Device, tf: Any = None) -> None:
    if dev.is_gpu:
        try:
            (tf or _tensorflow()).config.experimental.reset_memory_stats(dev.tf_name.strip("/"))
        except (ValueError, RuntimeError):
            pass  # PluggableDevices (Metal, DirectML) may not keep allocator statistics


def peak_memory_mib(dev: Device, tf: Any = None) -> float | None:
    """Peak bytes TensorFlow's allocator held on the GPU since the last reset; None on the CPU."""
    if not dev.is_gpu:
        return None
    try:
        return (tf or _tensorflow()).config.experimental.get_memory_info(dev.tf_name.strip("/"))["peak"] / 2**20
    except (ValueError, RuntimeError):
        return None  # a PluggableDevice without allocator statistics


def amp_dtypes(dev: Device) -> list[str]:
    """fp16 always; bf16 where the GPU has it (Ampere, compute capability 8.0, and newer)."""
    major = (dev.compute_capability or (0, 0))[0]
    return ["fp16"] + (["bf16"] if major >= 8 else [])
