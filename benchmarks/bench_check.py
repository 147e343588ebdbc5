"""Times `gpudoctor check` (and `gpudoctor env`) against `python -m torch.utils.collect_env` on this machine.

Each command runs several times in a fresh process; the medians (wall, and CPU: user + system of the child) and the
ratio are printed, with the peak RSS of `gpudoctor check` and the load average around the runs: on a shared machine
compare before/after figures taken at the same load, and read the CPU column, which other jobs hardly move. Other doctors join the comparison with --compare "env-doctor check" (a command line each), or all
the known ones at once with --peers-bin DIR (the bin/ of a venv where they are installed: env-doctor, cuda-doctor,
gpu-doctor, mlenvdoctor; give that venv the frameworks too, as a user's would have).

Time an installed copy, as users run it: an editable install adds its import finder to every start (measured at
15-30 ms here), so --python should name the interpreter of a venv with `pip install .` (non-editable). Give that
venv the peers' frameworks too (a .pth file naming the site-packages that holds torch, TensorFlow and JAX): with
them installed `check` reads and judges their builds, ~6 ms more than on a machine without them. For example:

    python -m venv /tmp/gd && /tmp/gd/bin/pip install .
    python -c "import site; print(site.getsitepackages()[0])" > /tmp/gd/lib/python3.11/site-packages/zz-frameworks.pth

    python benchmarks/bench_check.py [--runs 15] [--python VENV/bin/python] [--peers-bin DIR] [--compare "CMD"]...

On a machine where other installs of gpudoctor run too (other venvs, other checkouts' test suites), give the timed
one its own cache directory (GPUDOCTOR_CACHE_DIR=DIR, mode 0700): they share ~/.cache/gpudoctor, where each new
matrix entry drops all but three others, so the timed install's entry can be gone and `check` parses the TOML
tables again (tens of ms) in some runs and not in others.
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
import tempfile
import time


# Every command runs from here: `python -m gpudoctor` started in a checkout would import the checkout's gpudoctor
# (the current directory comes first on sys.path), not the installed copy being timed.
NEUTRAL_DIRECTORY = tempfile.gettempdir()


def time_command(argv: list[str], runs: int, env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Median wall seconds and median CPU seconds (user + system of the child and its own children) over ``runs``
    (after one warm-up run for the page cache), and the exit code. On a shared machine the wall time moves with the
    other jobs; the CPU time is what the command itself costs, so before/after comparisons read both."""
    code = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=NEUTRAL_DIRECTORY, env=env).returncode
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=NEUTRAL_DIRECTORY, env=env)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus), code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--compare", action="append", default=[], metavar="CMD", help="another doctor's command line")
    parser.add_argument("--peers-bin", metavar="DIR", help="a bin/ directory holding the known peer doctors")
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose gpudoctor is timed")
    args = parser.parse_args()
    python = args.python
    for command in _peer_commands(args.peers_bin):
        args.compare.append(command)
    os.environ["NO_COLOR"] = "1"
    # `pip install .` byte-compiles the package; an editable checkout (and PYTHONDONTWRITEBYTECODE=1) would not,
    # which would time Python's compiler instead of gpudoctor. Compile once, as an installed copy has it.
    where = subprocess.run([python, "-c", "import gpudoctor, os; print(os.path.dirname(gpudoctor.__file__))"],
                           capture_output=True, text=True, check=True, cwd=NEUTRAL_DIRECTORY).stdout.strip()
    print(f"timing the gpudoctor in {where}")
    compileall.compile_dir(where, quiet=1)
    editable = subprocess.run([python, "-c", "import sys; print(any('editable' in type(f).__name__.lower() or "
                               "'editable' in getattr(f, '__name__', '').lower() for f in sys.meta_path))"],
                              capture_output=True, text=True).stdout.strip() == "True"
    if editable:
        print("note: this gpudoctor is an editable install; its import finder slows every start (see --python)\n")

    load_before = os.getloadavg()
    check_s, check_cpu, check_code = time_command([python, "-m", "gpudoctor", "check"], args.runs)
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # only gpudoctor check has run so far
    env_s, env_cpu, _ = time_command([python, "-m", "gpudoctor", "env", "--framework", "torch", "--gpu", "RTX 4090",
                                      "--driver", "550.54.15", "--json"], args.runs)
    rows = [("gpudoctor check", check_s, check_cpu, check_code), ("gpudoctor env (described RTX 4090)", env_s, env_cpu, 0)]
    # collect_env needs torch: it runs with the interpreter running this script (give it one that has torch)
    collect_s, collect_cpu, collect_code = time_command([sys.executable, "-m", "torch.utils.collect_env"],
                                                        max(3, args.runs // 2))
    rows.append(("python -m torch.utils.collect_env", collect_s, collect_cpu, collect_code))
    for command in args.compare:
        seconds, cpu, code = time_command(shlex.split(command), max(3, args.runs // 2))
        rows.append((command, seconds, cpu, code))

    print(f"{'command':45} {'median wall':>12} {'median CPU':>11} {'exit':>5}")
    for name, seconds, cpu, code in rows:
        print(f"{name:45} {seconds * 1000:>9.0f} ms {cpu * 1000:>8.0f} ms {code:>5}")
    print(f"\nload average (1 min) before: {load_before[0]:.2f}, after: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"peak RSS of gpudoctor check: {peak_mib:.0f} MiB")
    print(f"collect_env / gpudoctor check: {collect_s / check_s:.1f}x")
    for command, seconds, _, _ in rows[3:]:
        print(f"{command} / gpudoctor check: {seconds / check_s:.1f}x")
    peers = [seconds for _, seconds, _, _ in rows[2:]]
    fastest = min(peers)
    print(f"\nbudget (DESIGN.md): check <= 150 ms: {check_s * 1000:.0f} ms; "
          f">= 10x the fastest peer: {fastest / check_s:.1f}x; peak RSS <= 30 MiB: {peak_mib:.0f} MiB")
    return 0


PEERS = (("env-doctor", "check"), ("cuda-doctor", "diagnose"), ("gpu-doctor", "--check"), ("mlenvdoctor", "diagnose"))


def _peer_commands(directory: str | None) -> list[str]:
    if not directory:
        return []
    return [shlex.join([os.path.join(directory, name), *rest]) for name, *rest in PEERS
            if os.path.exists(os.path.join(directory, name))]


if __name__ == "__main__":
    sys.exit(main())
