"""Times `gpudoctor check` (and `gpudoctor env`) against `python -m torch.utils.collect_env` on this machine.

Each command runs several times in a fresh process; the medians and the ratio are printed, with the peak RSS of
`gpudoctor check`. Other doctors can join the comparison: --compare "env-doctor check" (a command line each).

    python benchmarks/bench_check.py [--runs 7] [--compare "CMD"]...
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time


def time_command(argv: list[str], runs: int) -> tuple[float, int]:
    """Median wall seconds over ``runs`` (after one warm-up run for the page cache), and the exit code."""
    code = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--compare", action="append", default=[], metavar="CMD", help="another doctor's command line")
    args = parser.parse_args()
    python = sys.executable
    os.environ["NO_COLOR"] = "1"
    # `pip install .` byte-compiles the package; an editable checkout (and PYTHONDONTWRITEBYTECODE=1) would not,
    # which would time Python's compiler instead of gpudoctor. Compile once, as an installed copy has it.
    import gpudoctor

    compileall.compile_dir(os.path.dirname(gpudoctor.__file__), quiet=1)

    check_s, check_code = time_command([python, "-m", "gpudoctor", "check"], args.runs)
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # only gpudoctor check has run so far
    env_s, _ = time_command([python, "-m", "gpudoctor", "env", "--framework", "torch", "--gpu", "RTX 4090",
                             "--driver", "550.54.15", "--json"], args.runs)
    rows = [("gpudoctor check", check_s, check_code), ("gpudoctor env (described RTX 4090)", env_s, 0)]
    collect_s, collect_code = time_command([python, "-m", "torch.utils.collect_env"], max(3, args.runs // 2))
    rows.append(("python -m torch.utils.collect_env", collect_s, collect_code))
    for command in args.compare:
        seconds, code = time_command(shlex.split(command), max(3, args.runs // 2))
        rows.append((command, seconds, code))

    print(f"{'command':45} {'median wall':>12} {'exit':>5}")
    for name, seconds, code in rows:
        print(f"{name:45} {seconds * 1000:>9.0f} ms {code:>5}")
    print(f"\npeak RSS of gpudoctor check: {peak_mib:.0f} MiB")
    print(f"collect_env / gpudoctor check: {collect_s / check_s:.1f}x")
    for command, seconds, _ in rows[3:]:
        print(f"{command} / gpudoctor check: {seconds / check_s:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
