"""``check --deep``: what each installed framework sees at run time, learnt by importing it in a child process with
a timeout, so a segfault, a hang or pages of TensorFlow log cannot take the doctor down."""

from __future__ import annotations

import dataclasses
import json
import sys

from ..errors import ProbeFailed
from ..model import JaxBuild, TensorflowBuild, TorchBuild
from ..runner import Runner

DEEP_TIMEOUT_S = 60.0


def run_child(runner: Runner, framework: str, timeout: float = DEEP_TIMEOUT_S) -> dict:
    result = runner.run([sys.executable, "-m", "gpudoctor.probes.deep_child", framework], timeout=timeout)
    if result.error:
        raise ProbeFailed(f"importing {framework} in a child process: {result.error}")
    last_line = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    try:
        seen = json.loads(last_line)
    except json.JSONDecodeError:
        seen = None
    if not isinstance(seen, dict):
        how = f"exit code {result.returncode}" if result.returncode and result.returncode > 0 else f"signal {-(result.returncode or 0)}"
        tail = (result.stderr.strip().splitlines() or [""])[-1][:200]
        raise ProbeFailed(f"importing {framework} in a child process died ({how}){': ' + tail if tail else ''}")
    return seen


def deepen_torch(build: TorchBuild, seen: dict) -> TorchBuild:
    return dataclasses.replace(
        build,
        cuda_available=seen.get("cuda_available"),
        device_count=seen.get("device_count"),
        arch_list=tuple(seen["arch_list"]) if isinstance(seen.get("arch_list"), list) and seen["arch_list"] else build.arch_list,
        cudnn=seen.get("cudnn", build.cudnn),
        import_error=seen.get("import_error"),
        mps_built=seen.get("mps_built"),
        mps_available=seen.get("mps_available"),
        xpu_available=seen.get("xpu_available"),
    )


def deepen_tensorflow(build: TensorflowBuild, seen: dict) -> TensorflowBuild:
    return dataclasses.replace(build, gpus_visible=seen.get("gpus_visible"), import_error=seen.get("import_error"))


def deepen_jax(build: JaxBuild, seen: dict) -> JaxBuild:
    devices = seen.get("devices")
    return dataclasses.replace(
        build,
        backend=seen.get("backend") if isinstance(seen.get("backend"), str) else None,
        devices=tuple(str(d) for d in devices) if isinstance(devices, list) else None,
        gpu_devices=seen.get("gpu_devices") if isinstance(seen.get("gpu_devices"), int) else None,
        import_error=seen.get("import_error"),
    )
