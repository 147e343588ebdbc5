"""The child process of ``gpudoctor bench``: runs every measurement on ONE device and writes the results to the
private --result-file the parent named (rewritten atomically after each measurement, so a crash or a timeout keeps
what was measured before it). Progress goes to stdout as ``@@gpudoctor-bench NAME`` lines.

    python -m gpudoctor.bench.worker --device auto|cpu|cuda:N --result-file PATH [--quick]
                                     [--tensor-min-cc fp16=7.0,tf32=8.0,bf16=8.0]

The tensor-core thresholds come from the parent's matrix (gpus.toml [tensor_cores]); this child only compares them
with the compute capability torch reports. Test-only fault injection: GPUDOCTOR_BENCH_FAULT=hang (sleep forever
after the first measurement module: the parent's timeout must kill it, keeping that module's figures).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from gpudoctor.bench.model import PROGRESS_PREFIX, WORKER_SCHEMA, to_dict

FAULT_ENV = "GPUDOCTOR_BENCH_FAULT"


def parse_min_cc(text: str) -> dict[str, tuple[int, int]]:
    out = {}
    for part in filter(None, text.split(",")):
        precision, _, cc = part.partition("=")
        major, _, minor = cc.partition(".")
        out[precision] = (int(major), int(minor or 0))
    return out


def precisions_for(cc: tuple[int, int] | None, min_cc: dict[str, tuple[int, int]], cuda: bool) -> tuple[str, ...]:
    """fp32 always; a tensor precision where the GPU's compute capability reaches the matrix's threshold (all of
    them when torch cannot say); on the CPU fp32 and bf16 (the CPU's own half-precision path)."""
    if not cuda:
        return ("fp32", "bf16")
    wanted = ["fp32"]
    for precision in ("tf32", "fp16", "bf16"):
        floor = min_cc.get(precision)
        if floor is not None and (cc is None or cc >= floor):
            wanted.append(precision)
    return tuple(wanted)


def _write(path: str, doc: dict[str, Any]) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.replace(tmp, path)  # the parent reads the previous complete document or this one, never half of one


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gpudoctor.bench.worker")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--result-file", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--tensor-min-cc", default="")
    args = ap.parse_args(argv)

    import torch

    from gpudoctor.bench.measures import REGISTRY
    from gpudoctor.bench.measures.timing import Context
    from gpudoctor.workloads import NoDevice
    from gpudoctor.workloads.torch_device import resolve_device

    doc: dict[str, Any] = {"schema": WORKER_SCHEMA, "torch": torch.__version__, "measurements": [], "done": False}
    try:
        device, name, note = resolve_device(args.device)
    except NoDevice as exc:
        doc.update(error=str(exc), done=True)
        _write(args.result_file, doc)
        return 0
    cc = torch.cuda.get_device_capability(device) if device.type == "cuda" else None
    bus_id = _bus_id(torch, device)
    doc.update(device=str(device), device_name=name, note=note, compute_capability=f"{cc[0]}.{cc[1]}" if cc else None,
               pci_bus_id=bus_id)  # fmt: skip
    _write(args.result_file, doc)

    def progress(what: str) -> None:
        print(f"{PROGRESS_PREFIX} {what}", flush=True)

    ctx = Context(device, args.quick, precisions_for(cc, parse_min_cc(args.tensor_min_cc), device.type == "cuda"), progress)
    start = time.perf_counter()
    for module, run in REGISTRY:
        doc["measurements"] += [to_dict(m) for m in run(ctx)]
        doc["measure_s"] = time.perf_counter() - start
        _write(args.result_file, doc)
        if os.environ.get(FAULT_ENV) == "hang":
            time.sleep(3600)
    doc["done"] = True
    _write(args.result_file, doc)
    return 0


def _bus_id(torch: Any, device: Any) -> str | None:
    if device.type != "cuda":
        return None
    props = torch.cuda.get_device_properties(device)
    domain, bus, dev = (getattr(props, k, None) for k in ("pci_domain_id", "pci_bus_id", "pci_device_id"))
    if not all(isinstance(v, int) for v in (domain, bus, dev)):
        return None
    return f"{domain:08X}:{bus:02X}:{dev:02X}.0"  # NVML's busId form: 00000000:01:00.0


if __name__ == "__main__":
    sys.exit(main())
