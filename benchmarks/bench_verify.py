"""Times `gpudoctor verify`'s six smoke tests (fixed step counts), each in its own child process as the command runs
them, and prints per-test and total wall time. With --device cuda it also measures the CNN training step on the GPU
and on the CPU (in a child process each) and prints the GPU/CPU speedup.

    python benchmarks/bench_verify.py [--device cpu|cuda|auto] [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpudoctor.verify import run_verify  # noqa: E402
from gpudoctor.verify.model import Status, VerifyOptions  # noqa: E402
from gpudoctor.verify.runner import child_env  # noqa: E402

BUDGET_CPU_S = 90.0
BUDGET_GPU_S = 30.0

_STEP_TIMER = """
import json, sys
from gpudoctor.verify.torch_cases import case as torch_case
print(json.dumps({"step_s": torch_case.cnn_step_time(sys.argv[1])}))
"""


def cnn_step(device: str) -> float:
    out = subprocess.run([sys.executable, "-c", _STEP_TIMER, device], capture_output=True, text=True, env=child_env(),
                         timeout=600, check=True)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])["step_s"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cpu", help="cpu (the budgeted figure), auto, cuda or cuda:N")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    runs = []
    for _ in range(args.repeat):
        report = run_verify(VerifyOptions(device=args.device, timeout_s=600))
        runs.append(report)
    best = min(runs, key=lambda r: r.wall_s or 0.0)
    rows = [
        {
            "test": r.label,
            "status": r.status.value,
            "device": r.device,
            "wall_s": round(r.wall_s or 0.0, 2),
            "train_s": round(r.train_s, 2) if r.train_s is not None else None,
            "samples_per_s": round(r.samples_per_s) if r.samples_per_s else None,
            "reason": r.reason,
        }
        for r in best.results
    ]
    total = best.wall_s or 0.0
    figures: dict[str, object] = {
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "device": args.device,
        "tests": rows,
        "total_s": round(total, 2),
        "all_runs_total_s": [round(r.wall_s or 0.0, 2) for r in runs],
        "budget_s": BUDGET_CPU_S if args.device == "cpu" else BUDGET_GPU_S,
    }
    if args.device.startswith("cuda"):
        gpu, cpu = cnn_step(args.device), cnn_step("cpu")
        figures["cnn_step_s"] = {"gpu": gpu, "cpu": cpu, "speedup": cpu / gpu if gpu > 0 else None}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{figures['machine']}; device {args.device}; best of {args.repeat}")
        for row in rows:
            train = f"train {row['train_s']:.2f}s" if row["train_s"] is not None else ""
            print(f"  {row['test']:<30} {row['status']:<8} {row['wall_s']:6.2f}s  {train}")
        print(f"  {'total':<30} {'':<8} {total:6.2f}s  (budget {figures['budget_s']:.0f}s)")
        if "cnn_step_s" in figures:
            s = figures["cnn_step_s"]
            print(f"  CNN step (batch 256): GPU {s['gpu'] * 1e3:.2f} ms, CPU {s['cpu'] * 1e3:.2f} ms, speedup {s['speedup']:.1f}x")
    failed = any(r.status is Status.FAILED for r in best.results)
    return 1 if failed or total > figures["budget_s"] else 0  # type: ignore[operator]


if __name__ == "__main__":
    sys.exit(main())
