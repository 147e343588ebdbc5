"""Times `gpudoctor fleet --from DIR` over generated node reports (10,000 by default) and reports its peak RSS.

The reports are real `gpudoctor check --json` reports of recorded machines (tests/data/facts), each written once
per node with its own driver version now and then (drift), a few broken machines and a few garbage files (failed
nodes). Every run is a fresh process, as a user runs it; the median of --runs is printed, and the peak RSS at two
fleet sizes shows that memory grows with the per-node digest only, not with the reports read.

    python benchmarks/bench_fleet.py [--nodes 10000] [--runs 3] [--snapshots 10000] [--snapshot-runs 3] [--no-reports]

Snapshots are judged by `fleet` itself (the checks run per node, in parallel processes for a large directory);
the budget is 10,000 snapshots or reports < 5 s on 2 cores (issue 23).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def recorded_report(name: str) -> dict:
    from gpudoctor.checks import run_checks
    from gpudoctor.matrix import load_matrix
    from gpudoctor.render.json_report import report_to_dict
    from gpudoctor.snapshot import facts_from_json

    path = ROOT / "tests" / "data" / "facts" / f"{name}.json"
    return report_to_dict(run_checks(facts_from_json(path.read_text()), load_matrix(), f"snapshot {path.name}"))


def node_snapshot(snapshot: dict, i: int) -> str:
    """The recorded snapshot as node ``i`` saved it: its own GPU UUID and bus id (no two files are alike, as on a real
    fleet, so nothing can be judged once for many nodes)."""
    for gpu in snapshot.get("gpus", []):
        gpu["uuid"] = f"GPU-{i:08x}-{gpu.get('index', 0):04x}-4000-8000-000000000000"
        gpu["pci_bus_id"] = f"{i // 256:08X}:{i % 256:02X}:00.0"
    return json.dumps(snapshot, indent=2)


def write_fleet(directory: Path, nodes: int, snapshots: bool = False) -> None:
    healthy, broken = recorded_report("healthy-a100-r535"), recorded_report("driver-library-mismatch")
    snapshot = json.loads((ROOT / "tests" / "data" / "facts" / "healthy-a100-r535.json").read_text())
    for i in range(nodes):
        path = directory / f"node{i:05d}.json"
        if snapshots:
            path.write_text(node_snapshot(snapshot, i))
        elif i % 997 == 0:
            path.write_text("gpudoctor: command not found\n")  # a node whose collection failed
        else:
            report = broken if i % 101 == 0 else healthy
            if i % 53 == 0:
                report = json.loads(json.dumps(report))
                report["facts"]["driver"]["version"] = "550.54.15"
            path.write_text(json.dumps(report, indent=2))


def time_fleet(directory: Path, runs: int) -> tuple[float, int, int, float]:
    """Median wall seconds, the exit code, the peak RSS (KiB) and the median CPU seconds (user + system of the
    command and its worker processes: what a busy shared machine inflates least) of `fleet --from DIR --json`."""
    argv = [sys.executable, "-m", "gpudoctor", "fleet", "--from", str(directory), "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    samples, cpus, code = [], [], 0
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        code = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode
        samples.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    # ru_maxrss of children is the largest child so far: measure each size in its own process.
    probe = [sys.executable, "-c", "import resource, subprocess, sys; subprocess.run(sys.argv[1:], "
             "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)", *argv]
    rss = int(subprocess.run(probe, capture_output=True, text=True, env=env).stdout.strip() or 0)
    return statistics.median(samples), code, rss, statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--snapshots", type=int, default=10_000, help="also time this many snapshots (judged per node)")
    parser.add_argument("--snapshot-runs", type=int, default=3, help="runs of the snapshot fleet (its median is shown)")
    parser.add_argument("--reports", action=argparse.BooleanOptionalAction, default=True,
                        help="time the fleets of reports (--no-reports: the snapshots only)")
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs, python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        for count in sorted({args.nodes // 10, args.nodes}) if args.reports else ():
            directory = Path(tmp) / f"reports-{count}"
            directory.mkdir()
            write_fleet(directory, count)
            size = sum(p.stat().st_size for p in directory.iterdir()) / 2**20
            wall, code, rss, cpu = time_fleet(directory, args.runs)
            print(f"fleet --from: {count:>6} reports ({size:.0f} MiB): {wall:.2f} s wall, {cpu:.2f} s CPU, medians of "
                  f"{args.runs}; peak RSS {rss / 1024:.0f} MiB, exit {code}; load {os.getloadavg()[0]:.2f}")
        if args.snapshots:
            directory = Path(tmp) / "snapshots"
            directory.mkdir()
            write_fleet(directory, args.snapshots, snapshots=True)
            wall, code, rss, cpu = time_fleet(directory, args.snapshot_runs)
            print(f"fleet --from: {args.snapshots:>6} snapshots (judged here, {os.cpu_count()} CPUs): {wall:.2f} s wall, "
                  f"{cpu:.2f} s CPU, medians of {args.snapshot_runs}; peak RSS {rss / 1024:.0f} MiB, exit {code}; "
                  f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
