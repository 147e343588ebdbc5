"""``check --deep``: what each installed framework sees at run time, learnt by importing it in a child process with
a timeout, so a segfault, a hang or pages of TensorFlow log cannot take the doctor down."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import typing

from .. import child_start, jsontext
from ..errors import ProbeFailed, SnapshotError
from ..model import JaxBuild, TensorflowBuild, TorchBuild
from ..runner import Runner
from ..snapshot import from_json_value

DEEP_TIMEOUT_S = 60.0
RESULT_FILE = "seen.json"
# What the child may report for each framework, typed as the snapshot holds it (the converter --from uses).
_KEYS = {
    "torch": (TorchBuild, ("cuda_available", "device_count", "arch_list", "cudnn", "import_error", "mps_built",
                           "mps_available", "xpu_available")),
    "tensorflow": (TensorflowBuild, ("gpus_visible", "import_error")),
    "jax": (JaxBuild, ("backend", "devices", "gpu_devices", "import_error")),
}


def run_child(runner: Runner, framework: str, timeout: float = DEEP_TIMEOUT_S) -> dict:
    """What the framework saw, from the child's private result file (never from its output, where a framework's
    own exit-time print could stand in for it), each value of the type the snapshot holds: a forged or broken
    answer is a ProbeFailed, never a fact that a saved snapshot could not be read back with."""
    private = tempfile.mkdtemp(prefix="gpudoctor-deep-")  # mode 0700: only this user can write the result
    try:
        path = os.path.join(private, RESULT_FILE)
        result = runner.run(child_start.argv("gpudoctor.probes.deep_child", framework, path), timeout=timeout)
        text = _read(path)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    if result.error:
        raise ProbeFailed(f"importing {framework} in a child process: {result.error}")
    try:
        seen = jsontext.loads(text) if text is not None else None
    except ValueError:
        seen = None
    if not isinstance(seen, dict):
        how = f"exit code {result.returncode}" if result.returncode and result.returncode > 0 else f"signal {-(result.returncode or 0)}"
        tail = (result.stderr.strip().splitlines() or [""])[-1][:200]
        raise ProbeFailed(f"importing {framework} in a child process died ({how}){': ' + tail if tail else ''}")
    return checked(framework, seen)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(1 << 20)
    except (OSError, UnicodeDecodeError):
        return None


def checked(framework: str, seen: dict) -> dict:
    """The child's answer, only the keys it may give, each converted as a snapshot's value is."""
    cls, keys = _KEYS[framework]
    hints = typing.get_type_hints(cls)
    try:
        return {k: from_json_value(hints[k], seen[k], f"{framework}.{k}") for k in keys if k in seen}
    except SnapshotError as exc:
        raise ProbeFailed(f"importing {framework} in a child process gave an unusable answer: {exc}") from None


def deepen_torch(build: TorchBuild, seen: dict) -> TorchBuild:
    return dataclasses.replace(
        build,
        cuda_available=seen.get("cuda_available"),
        device_count=seen.get("device_count"),
        arch_list=tuple(seen["arch_list"]) if seen.get("arch_list") else build.arch_list,
        cudnn=seen.get("cudnn") or build.cudnn,
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
        devices=tuple(str(d) for d in devices) if isinstance(devices, (list, tuple)) else None,
        gpu_devices=seen.get("gpu_devices") if isinstance(seen.get("gpu_devices"), int) else None,
        import_error=seen.get("import_error"),
    )
