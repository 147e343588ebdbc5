"""Linear in the input: times `gpudoctor check --from` on a snapshot of N GPUs of mixed models whose compute
capability is not given (as in many pastes: each GPU's capability comes from the matrix by its name), at several N,
and prints the time per GPU so growth that is not linear shows at a glance.

Each size is timed in a fresh process (`python -m gpudoctor check --from FILE --json`), as a user runs it; the
median of --runs is printed with the in-process parse-and-judge time (the part that grows with N).

    python benchmarks/bench_scale.py [--gpus 64,128,1000] [--runs 3] [--profile]

--profile prints cProfile's top functions (cumulative) for the largest size, judged in this process.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.bench_check import time_command  # noqa: E402

# Real product names as nvidia-smi prints them, of many generations (none carries its compute capability here).
MODELS = (
    "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "Tesla V100-SXM2-16GB", "NVIDIA GeForce RTX 4090",
    "NVIDIA GeForce RTX 3090", "Tesla T4", "NVIDIA L40S", "NVIDIA A10G", "NVIDIA H200", "NVIDIA GeForce RTX 5090",
    "Tesla P100-PCIE-16GB", "NVIDIA RTX A6000", "NVIDIA GeForce GTX 1080 Ti", "Quadro RTX 8000", "NVIDIA B200",
    "NVIDIA A100 80GB PCIe MIG 1g.10gb", "NVIDIA GeForce RTX 2080 Ti", "Tesla K80", "NVIDIA L4", "NVIDIA A30",
)


def snapshot(gpus: int) -> dict:
    return {
        "host": {"os": "linux", "python": "3.11.7"},
        "driver": {"version": "570.124.04", "cuda_version": "12.8", "kernel_module": "nvidia"},
        "gpus": [{"index": i, "name": MODELS[i % len(MODELS)], "uuid": f"GPU-{i:08x}-0000-0000-0000-000000000000"}
                 for i in range(gpus)],
        "python_packages": {"torch": "2.7.1", "nvidia-cudnn-cu12": "9.5.1.17"},
        "frameworks": {"torch": {"version": "2.7.1+cu126", "cuda": "12.6"}},
    }


def judge_in_process(text: str) -> float:
    from gpudoctor.checks import run_checks
    from gpudoctor.matrix import load_matrix
    from gpudoctor.snapshot import facts_from_json

    matrix = load_matrix()
    start = time.perf_counter()
    run_checks(facts_from_json(text), matrix, "snapshot")
    return time.perf_counter() - start


def time_cli(path: Path, runs: int) -> tuple[float, float, int]:
    """Median wall and CPU seconds (user + system of the child: what a busy shared machine inflates least)."""
    argv = [sys.executable, "-m", "gpudoctor", "check", "--from", str(path), "--json"]
    return time_command(argv, runs, {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpus", default="64,128,1000", help="comma-separated snapshot sizes")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    sizes = sorted(int(n) for n in args.gpus.split(","))
    print(f"load {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs, python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"gpus-{n}.json"
            text = json.dumps(snapshot(n))
            path.write_text(text)
            judged = judge_in_process(text)
            wall, cpu, code = time_cli(path, args.runs)
            print(f"check --from: {n:>5} GPUs of {min(n, len(MODELS))} models, cc unknown: {wall:.2f} s wall, {cpu:.2f} s "
                  f"CPU, medians of {args.runs} (exit {code}); parse and judge in process {judged * 1000:.0f} ms = "
                  f"{judged / n * 1e6:.0f} us/GPU")  # fmt: skip
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            judge_in_process(json.dumps(snapshot(sizes[-1])))
            profile.disable()
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    print("budget: 1,000 GPUs < 1 s")


if __name__ == "__main__":
    main()
