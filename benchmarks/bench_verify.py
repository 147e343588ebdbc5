"""Times `gpudoctor verify`'s smoke tests of every framework (fixed step counts), one child process per framework
as the command runs them (issue 23), and reports per test: wall time, training-loop time, and every learning
threshold with the measured value and the margin (measured / threshold; the budget is >= 1.5x); per framework: its
children and the CPU seconds they used (user + system, which a busy host inflates far less than wall time). With --device cuda it also measures the CNN training step on the GPU
and on the CPU (in a child process each) and prints the GPU/CPU speedup.

    python benchmarks/bench_verify.py [--device cpu|cuda|auto] [--repeat N] [--use-caches] [--json]

By default the weight caches (torch hub, Keras, and gpudoctor's own) are pointed at an empty directory, so the first
run pretrains each transfer test's backbone here (the slowest path, the one a machine without network access takes
the first time) and keeps it in gpudoctor's cache; with --repeat 2 the second run reuses those backbones, as every
later `gpudoctor verify` on that machine does. Each run says which it was.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpudoctor.runner import SpawnResult, SubprocessRunner  # noqa: E402
from gpudoctor.verify import run_verify  # noqa: E402
from gpudoctor.verify.child import child_env  # noqa: E402
from gpudoctor.verify.model import SmokeResult, VerifyOptions  # noqa: E402

BUDGET_CPU_S = 60.0  # docs: all frameworks' smoke tests on 2 CPU cores
BUDGET_GPU_S = 30.0
MIN_MARGIN = 1.5

_STEP_TIMER = """
import json, sys
from gpudoctor.verify.torch_cases import case
print(json.dumps({"step_s": case.cnn_step_time(sys.argv[1])}))
"""


class RecordingSpawner(SubprocessRunner):
    """The real spawn, keeping each child's SpawnResult (for its CPU seconds)."""

    def __init__(self) -> None:
        self.spawned: list[SpawnResult] = []

    def spawn(self, argv, timeout, env=None, on_line=None):  # type: ignore[no-untyped-def]
        result = super().spawn(argv, timeout, env, on_line)
        self.spawned.append(result)
        return result


def cnn_step(device: str) -> float:
    out = subprocess.run([sys.executable, "-c", _STEP_TIMER, device], capture_output=True, text=True, env=child_env(),
                         timeout=600, check=True)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])["step_s"]


def margins(r: SmokeResult) -> dict[str, Any]:
    learned = next((c for c in r.checks if c.name == "learned"), None)
    if learned is None or learned.measured.get("loss_drop") is None:
        return {}
    m = learned.measured
    return {
        "loss_drop": round(m["loss_drop"], 3), "min_drop": m["min_drop"], "drop_margin": round(m["loss_drop"] / m["min_drop"], 2),
        "accuracy": round(m["accuracy"], 3), "min_accuracy": m["min_accuracy"],
        "accuracy_margin": round(m["accuracy"] / m["min_accuracy"], 2), "chance": round(m["chance"], 3),
    }  # fmt: skip


def one_run(device: str) -> dict[str, Any]:
    spawner = RecordingSpawner()
    load_before = [round(v, 1) for v in os.getloadavg()]
    report = run_verify(VerifyOptions(device=device, timeout_s=600), spawner=spawner)
    rows = []
    for r in report.results:
        rows.append({"test": r.label, "status": r.status.value, "device": r.device, "wall_s": round(r.wall_s or 0.0, 2),
                     "train_s": round(r.train_s, 2) if r.train_s is not None else None, "reason": r.reason, **margins(r)})  # fmt: skip
    children: dict[str, dict[str, float]] = {}
    for s in spawner.spawned:
        framework = s.argv[s.argv.index("--framework") + 1]
        child = children.setdefault(framework, {"children": 0, "wall_s": 0.0, "cpu_s": 0.0})
        child["children"] += 1
        child["wall_s"] = round(child["wall_s"] + s.wall_s, 2)
        child["cpu_s"] = round(child["cpu_s"] + (s.cpu_s or 0.0), 2)
    return {"tests": rows, "frameworks": children, "total_s": round(report.wall_s or 0.0, 2),
            "total_cpu_s": round(sum(s.cpu_s or 0.0 for s in spawner.spawned), 2), "load_before": load_before,
            "load_after": [round(v, 1) for v in os.getloadavg()], "failed": not report.ok}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cpu", help="cpu (the budgeted figure), auto, cuda or cuda:N")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--use-caches", action="store_true", help="keep TORCH_HOME/KERAS_HOME (cached weights, if any)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.use_caches:
        empty = tempfile.mkdtemp(prefix="bench-verify-")
        os.environ["TORCH_HOME"], os.environ["KERAS_HOME"] = f"{empty}/torch", f"{empty}/keras"
        os.environ["GPUDOCTOR_CACHE_DIR"] = f"{empty}/gpudoctor"

    budget = BUDGET_CPU_S if args.device == "cpu" else BUDGET_GPU_S
    figures: dict[str, Any] = {
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "device": args.device, "budget_s": budget, "min_margin": MIN_MARGIN,
        "runs": [one_run(args.device) for _ in range(args.repeat)],
    }  # fmt: skip
    if args.device.startswith("cuda"):
        gpu, cpu = cnn_step(args.device), cnn_step("cpu")
        figures["cnn_step_s"] = {"gpu": gpu, "cpu": cpu, "speedup": cpu / gpu if gpu > 0 else None}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{figures['machine']}; device {args.device}; {args.repeat} run(s)")
        for i, run in enumerate(figures["runs"], 1):
            kind = "" if args.use_caches else (" (first: pretrains the backbones)" if i == 1 else
                                               " (the backbones run 1 pretrained, reused from gpudoctor's cache)")
            print(f" run {i}{kind}: total {run['total_s']:.1f}s wall, {run['total_cpu_s']:.1f} CPU-s "
                  f"(budget {budget:.0f}s wall; load average before {run['load_before']}, after {run['load_after']})")  # fmt: skip
            for framework, child in run["frameworks"].items():
                print(f"  {framework:<6} {child['children']} child process(es): {child['wall_s']:.1f}s wall, "
                      f"{child['cpu_s']:.1f} CPU-s")  # fmt: skip
            for row in run["tests"]:
                learned = (f"drop {row['loss_drop']:.3f}/{row['min_drop']} ({row['drop_margin']:.2f}x)  "
                           f"acc {row['accuracy']:.3f}/{row['min_accuracy']} ({row['accuracy_margin']:.2f}x)"
                           if "loss_drop" in row else row["reason"] or "")  # fmt: skip
                train = f"{row['train_s']:6.2f}" if row["train_s"] is not None else "     -"
                print(f"  {row['test']:<28} {row['status']:<7} wall {row['wall_s']:6.2f}s train {train}s  {learned}")  # fmt: skip
        if "cnn_step_s" in figures:
            s = figures["cnn_step_s"]
            print(f"  CNN step (batch 256): GPU {s['gpu'] * 1e3:.2f} ms, CPU {s['cpu'] * 1e3:.2f} ms, speedup {s['speedup']:.1f}x")
    short = [r for run in figures["runs"] for r in run["tests"]
             if "drop_margin" in r and min(r["drop_margin"], r["accuracy_margin"]) < MIN_MARGIN]  # fmt: skip
    failed = any(run["failed"] for run in figures["runs"])
    over = [run["total_s"] for run in figures["runs"] if run["total_s"] > budget]
    return 1 if failed or short or over else 0


if __name__ == "__main__":
    sys.exit(main())
