"""Resolve the grid's generated requirements with the real pip, metadata only, for each target's Python and platform.

For every described machine of tests/envgen/test_grid.py (plus grid_cases.py) this writes the files with `gpudoctor
env`, then runs `pip install --dry-run --ignore-installed --only-binary=:all: --python-version X --platform P
--target TMP -r requirements.txt` (dependencies included: that is how an uninstallable `and-cuda` set shows). Files
that need PyTorch's index (download.pytorch.org) are counted apart when that index is unreachable. gpudoctor itself
is not on the package index yet: a wheel of this checkout is built once and offered with --find-links.
Limitation: pip evaluates environment markers (platform_system, platform_machine) for the host running it, not for
--platform, so Windows and macOS requirement files can fail on Linux-only dependencies they would never install.

    python benchmarks/bench_env_resolve.py [--only ID ...] [--jobs N]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def manylinux(arch: str, newest: int = 34, oldest: int = 17) -> list[str]:
    """Every manylinux tag a glibc-2.<newest> machine accepts, newest first. pip's --platform is literal (it does not
    widen manylinux_2_28 to the older glibc tags a real machine accepts), so each one is listed: nvidia-cuda-cupti 13.x
    publishes only manylinux_2_25 wheels, and without that tag the aarch64 torch files failed to resolve."""
    legacy = [f"manylinux2014_{arch}"] + ([f"manylinux1_{arch}"] if arch == "x86_64" else [])  # manylinux1: x86 only
    return [f"manylinux_2_{minor}_{arch}" for minor in range(newest, oldest - 1, -1)] + legacy


PLATFORMS = {  # (os, arch) -> pip --platform tags, newest first (pip accepts any of them)
    ("linux", "x86_64"): manylinux("x86_64"),
    ("linux", "aarch64"): manylinux("aarch64"),
    ("windows", "x86_64"): ["win_amd64"],
    ("darwin", "arm64"): ["macosx_14_0_arm64", "macosx_12_0_arm64", "macosx_11_0_arm64"],
    ("darwin", "x86_64"): ["macosx_10_15_x86_64", "macosx_10_9_x86_64"],
}


def reachable(host: str) -> bool:
    try:
        socket.create_connection((host, 443), timeout=5).close()
        return True
    except OSError:
        return False


def build_own_wheel(directory: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(directory), str(ROOT)], check=True, capture_output=True)


def write(case, tmp: Path):
    """gpudoctor env for one machine (sequential: CliRunner swaps sys.stdout, so it is not thread-safe)."""
    from click.testing import CliRunner

    from gpudoctor.cli import main

    out = tmp / case.id
    if True:
        args = ["env", "--framework", "tf" if case.framework == "tensorflow" else "torch", "--os", case.os, "--format", "pip", "-o", str(out)]
        for gpu in case.gpus:
            args += ["--gpu", gpu]
        for flag, value in (("--driver", case.driver), ("--python", case.python), ("--arch", case.arch), ("--framework-version", case.pin)):
            if value:
                args += [flag, value]
        if case.cpu:
            args.append("--cpu")
        result = CliRunner().invoke(main, args)
        return out, result.exit_code, result.output


def resolve(case, written, wheels: Path, torch_index_up: bool) -> tuple[str, str, str]:
    import re

    out, code, output = written
    tmp = out
    if True:
        if code != 0:
            return case.id, "FAIL", f"gpudoctor env exit {code}: {output.strip()[:200]}"
        text = (out / "requirements.txt").read_text()
        if "download.pytorch.org" in text and not torch_index_up:
            return case.id, "SKIP", "needs PyTorch's index (unreachable from here)"
        python = re.search(r"Installs: .*, Python (\d+\.\d+)", text).group(1)
        os_name = "linux" if case.os == "wsl" else case.os
        arch = case.arch or ("arm64" if os_name == "darwin" else "aarch64" if "Linux aarch64" in text else "x86_64")
        arch = "arm64" if os_name == "darwin" and arch in ("arm64", "aarch64") else arch
        cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--only-binary=:all:", "--python-version", python,
               "--target", str(tmp / "_t"), "--find-links", str(wheels), "-r", str(out / "requirements.txt"), "--quiet", "--report", "-"]
        for tag in PLATFORMS[(os_name, arch)]:
            cmd += ["--platform", tag]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if proc.returncode == 0:
            return case.id, "PASS", f"Python {python}, {os_name}/{arch}"
        error = [line for line in proc.stderr.splitlines() if "ERROR" in line][-1:] or proc.stderr.strip().splitlines()[-1:]
        return case.id, "FAIL", f"Python {python}, {os_name}/{arch}: {' '.join(error)[:300]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="case ids")
    parser.add_argument("--jobs", type=int, default=4)
    args = parser.parse_args()
    from tests.envgen.test_grid import CASES

    cases = [c for c in CASES if not args.only or c.id in args.only]
    torch_index_up = reachable("download.pytorch.org")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as wheels, tempfile.TemporaryDirectory() as tmp:
        build_own_wheel(Path(wheels))
        written = [write(c, Path(tmp)) for c in cases]
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda cw: resolve(cw[0], cw[1], Path(wheels), torch_index_up), zip(cases, written)))
    for case_id, status, detail in results:
        print(f"{status:4}  {case_id:32} {detail}")
    counts = {s: sum(1 for _, st, _ in results if st == s) for s in ("PASS", "FAIL", "SKIP")}
    resolvable = counts["PASS"] + counts["FAIL"]
    print(f"\n{counts['PASS']}/{resolvable} requirement files resolve with pip (metadata only) for their target Python and platform; "
          f"{counts['SKIP']} need PyTorch's index ({'reachable' if torch_index_up else 'unreachable from here'}); "
          f"{len(results)} machines, {time.perf_counter() - start:.0f} s")
    return 0 if counts["FAIL"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
