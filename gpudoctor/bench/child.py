"""Runs the bench worker for one device in a child process (through the runner's streaming spawn, with a timeout)
and turns whatever happens into a DeviceResult: the measurements it finished, and for a timeout or a crash what
happened and which measurements it never reached. The result travels on a private file, as verify's does."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import Callable

from gpudoctor import child_start
from gpudoctor.bench.model import MEASUREMENTS, PROGRESS_PREFIX, WORKER_SCHEMA, DeviceResult, Measurement
from gpudoctor.errors import SnapshotError
from gpudoctor.runner import SpawnResult, Spawner, SubprocessRunner
from gpudoctor.snapshot import from_json_value
from gpudoctor.workloads.children import child_env, signal_name

RESULT_FILE = "bench.json"


def worker_argv(device: str, quick: bool, tensor_min_cc: dict[str, str], result_file: str) -> list[str]:
    argv = child_start.argv("gpudoctor.bench.worker", "--device", device, "--result-file", result_file)
    if tensor_min_cc:
        argv += ["--tensor-min-cc", ",".join(f"{p}={cc}" for p, cc in sorted(tensor_min_cc.items()))]
    return argv + (["--quick"] if quick else [])


def run_device(device: str, quick: bool, tensor_min_cc: dict[str, str], timeout: float,
               on_progress: Callable[[str], None] | None = None, spawner: Spawner | None = None,
               ) -> tuple[DeviceResult, str | None]:  # fmt: skip
    """-> (the device's result, the PCI bus id the child measured on, for matching NVML's samples)."""
    spawner = spawner or SubprocessRunner()
    tail: list[str] = []

    def on_line(line: str) -> None:
        if line.startswith(PROGRESS_PREFIX):
            if on_progress is not None:
                on_progress(line[len(PROGRESS_PREFIX):].strip())
        elif line.strip():
            tail[:] = (tail + [line])[-5:]

    private = tempfile.mkdtemp(prefix="gpudoctor-bench-")
    try:
        path = os.path.join(private, RESULT_FILE)
        spawned = spawner.spawn(worker_argv(device, quick, tensor_min_cc, path), timeout=timeout, env=child_env(),
                                on_line=on_line)  # fmt: skip
        try:
            with open(path, encoding="utf-8") as f:
                text: str | None = f.read()
        except OSError:
            text = None
    finally:
        shutil.rmtree(private, ignore_errors=True)
    return judge_child(device, spawned, text, tail, timeout)


def judge_child(device: str, spawned: SpawnResult, text: str | None, tail: list[str],
                timeout: float) -> tuple[DeviceResult, str | None]:  # fmt: skip
    doc, problem = _parse(text)
    measured = tuple(doc.get("measurements", ())) if doc else ()
    error = doc.get("error") if doc else None
    last = f" (last output: {tail[-1][:200]})" if tail else ""
    if spawned.returncode is None and not spawned.timed_out:
        error = f"could not start the child process: {spawned.error}"
    elif spawned.timed_out:
        error = f"timed out after {timeout:g}s and was killed: the GPU hung or is far slower than it should be"
    elif spawned.returncode != 0:
        rc = spawned.returncode or 0
        error = (f"child died with {signal_name(-rc)}" if rc < 0 else f"child exited with status {rc}") + last
    elif doc is None:
        error = f"the child wrote no result ({problem}){last}"
    elif not doc.get("done") and error is None:
        error = f"the child stopped before finishing{last}"
    if error and measured is not None:
        seen = {m.name for m in measured}
        measured += tuple(Measurement(n, error="not reached: " + error.split(":")[0]) for n in MEASUREMENTS if n not in seen)
    result = DeviceResult(
        device=str(doc.get("device") or device) if doc else device,
        device_name=doc.get("device_name") if doc else None,
        compute_capability=doc.get("compute_capability") if doc else None,
        note=doc.get("note") if doc else None,
        measurements=measured, error=error,
        framework_version=f"torch {doc['torch']}" if doc and doc.get("torch") else None,
        wall_s=spawned.wall_s, measure_s=doc.get("measure_s") if doc else None,
    )  # fmt: skip
    return result, (doc.get("pci_bus_id") if doc else None)


def _parse(text: str | None) -> tuple[dict | None, str | None]:
    if text is None:
        return None, "no result file"
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("schema") != WORKER_SCHEMA:
            return None, f"not a {WORKER_SCHEMA} document"
        data["measurements"] = [from_json_value(Measurement, m, "measurements") for m in data.get("measurements") or []]
        data["measurements"] = [m for m in data["measurements"] if m.name in MEASUREMENTS]
        return data, None
    except (ValueError, TypeError, SnapshotError) as exc:
        return None, f"{type(exc).__name__}: {str(exc)[:200]}"
