"""Child-process entry for ``check --deep``: imports ONE framework and prints what it sees at run time as one JSON
document, to the private file named as its second argument (probes/deep.py), or on stdout when run by hand as
``python -m gpudoctor.probes.deep_child torch|tensorflow|jax``; a crash or hang here costs the doctor nothing
(probes/deep.py runs it with a timeout). Nothing it prints is read as its answer."""

from __future__ import annotations

import json
import os
import sys


def _torch() -> dict:
    import torch

    seen: dict = {"version": torch.__version__, "cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None)}
    seen["cuda_available"] = bool(torch.cuda.is_available())
    seen["device_count"] = torch.cuda.device_count() if seen["cuda_available"] else 0
    seen["arch_list"] = _torch_arch_list(torch)
    seen.update(_torch_other_devices(torch))
    try:
        number = torch.backends.cudnn.version()  # loads libcudnn: the version that really gets used
    except Exception:  # noqa: BLE001 - a missing cuDNN is a fact to report, not a crash
        number = None
    if number:
        # cuDNN 9 encodes major*10000 + minor*100 + patch; cuDNN 8 and older major*1000 + minor*100 + patch.
        major, rest = (number // 10000, number % 10000) if number >= 90000 else (number // 1000, number % 1000)
        seen["cudnn"] = f"{major}.{rest // 100}.{rest % 100}"
    return seen


def _torch_other_devices(torch) -> dict:
    """Apple's MPS and Intel's XPU: whether the build has them and whether a device answers (absent API = False)."""
    mps = getattr(torch.backends, "mps", None)
    xpu = getattr(torch, "xpu", None)
    return {
        "mps_built": bool(mps and mps.is_built()),
        "mps_available": bool(mps and mps.is_available()),
        "xpu_available": bool(xpu and xpu.is_available()),
    }


def _torch_arch_list(torch) -> list | None:
    """The architectures compiled into the build. torch.cuda.get_arch_list() returns [] whenever CUDA is not
    available in older releases, which is exactly when the list matters most, so read the build flags directly."""
    if not torch.version.cuda:
        return None
    flags = getattr(torch._C, "_cuda_getArchFlags", None)
    listed = (flags() or "").split() if flags else list(torch.cuda.get_arch_list())
    return listed or None  # empty means "could not tell", never "compiled for nothing"


def _tensorflow() -> dict:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    info = dict(tf.sysconfig.get_build_info())
    return {
        "version": tf.__version__,
        "is_cuda_build": bool(info.get("is_cuda_build", False)),
        "gpus_visible": len(tf.config.list_physical_devices("GPU")),
    }


def _jax() -> dict:
    # JAX prints "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed" through
    # logging when it falls back to the CPU: the devices list below states the same fact without parsing log text.
    import jax

    devices = jax.devices()
    return {
        "version": jax.__version__,
        "backend": jax.default_backend(),
        "devices": [str(d) for d in devices],
        "gpu_devices": sum(1 for d in devices if d.platform == "gpu"),
    }


def main(argv: list[str]) -> int:
    framework = argv[1] if len(argv) > 1 else ""
    probe = {"torch": _torch, "tensorflow": _tensorflow, "jax": _jax}.get(framework)
    if probe is None:
        print(json.dumps({"import_error": f"unknown framework {framework!r}"}))
        return 2
    try:
        seen = probe()
    except Exception as exc:  # noqa: BLE001 - an import error is exactly what --deep exists to report
        seen = {"import_error": f"{type(exc).__name__}: {exc}".splitlines()[0][:300]}
    if len(argv) > 2:  # the parent's private result file, written whole or not at all
        tmp = f"{argv[2]}.partial"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(seen))
        os.replace(tmp, argv[2])
    else:  # run by hand: the answer on stdout
        sys.stdout.flush()
        print("\n" + json.dumps(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
