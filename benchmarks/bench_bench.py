"""Times `gpudoctor bench` as a user runs it (the CLI in a fresh process) and reports its own overhead: the command's
wall time minus the time the child spent measuring (interpreter and click start-up, matrix load, spawning the child,
importing torch there, NVML sampling, judging and rendering), plus every judged ratio and the GPU/CPU speedup.

    python benchmarks/bench_bench.py [--quick] [--full] [--device auto|cpu|cuda:N] [--repeat N] [--json]

Budgets (DESIGN.md, issue 23): on a GPU bench <= 30 s, --quick <= 10 s (the H200 baseline: 20.8 s and 18.8 s,
../shared/fixtures/h200-host/). Without --quick/--full both modes run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BUDGET_S = {"quick": 10.0, "full": 30.0}


def one_run(mode: str, device: str) -> dict[str, Any]:
    argv = [sys.executable, "-m", "gpudoctor", "bench", "--json", "--device", device] + (["--quick"] if mode == "quick" else [])
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False, timeout=600)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"bench failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    (d,) = json.loads(done.stdout)["devices"]
    measure = d.get("measure_s") or 0.0
    return {"wall_s": wall, "child_s": d.get("wall_s"), "measure_s": measure, "overhead_s": wall - measure,
            "device": d["device"], "device_name": d.get("device_name"), "judged": [j["text"] for j in d["judged"]],
            "findings": [f["id"] for f in d["findings"]]}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    modes = [m for m, on in (("quick", args.quick), ("full", args.full)) if on] or ["quick", "full"]
    results = {}
    for mode in modes:
        runs = [one_run(mode, args.device) for _ in range(args.repeat)]
        results[mode] = {
            "runs": runs,
            "median_wall_s": statistics.median(r["wall_s"] for r in runs),
            "median_measure_s": statistics.median(r["measure_s"] for r in runs),
            "median_overhead_s": statistics.median(r["overhead_s"] for r in runs),
            "budget_s": BUDGET_S[mode],
        }
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    if args.json:
        print(json.dumps({"host": platform.node(), "cpus": os.cpu_count(), "load": load, "results": results}, indent=2))
        return 0
    print(f"{platform.node()}: {os.cpu_count()} CPUs, load average {load:.1f}" if load is not None else platform.node())
    for mode, r in results.items():
        last = r["runs"][-1]
        verdict = "within" if r["median_wall_s"] <= r["budget_s"] else "OVER"
        print(f"\nbench {'--quick' if mode == 'quick' else '(default)'} on {last['device_name'] or last['device']}: "
              f"{r['median_wall_s']:.1f} s wall ({verdict} the {r['budget_s']:.0f} s budget), measuring "
              f"{r['median_measure_s']:.1f} s, bench's own overhead {r['median_overhead_s']:.1f} s "
              f"(median of {len(r['runs'])})")  # fmt: skip
        for text in last["judged"]:
            print(f"  {text}")
        print(f"  findings: {', '.join(last['findings']) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
