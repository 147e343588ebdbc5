"""Builds tests/data/fakenvml/fake_nvml.c into a directory as ``libnvidia-ml.so.1``: a fake NVML shared library (one
Tesla T4) that gpudoctor's real NVML path (ctypes dlopen, then nvidia-ml-py's pynvml) loads from LD_LIBRARY_PATH.

The tests build it once per session (tests/probes/test_fake_nvml_library.py). To run the whole suite as on a T4 host:

    LD_LIBRARY_PATH=$(python -m tests.fake_nvml_lib /tmp/fakenvml) PATH=$PWD/tests/data/fakebin:$PATH \\
        python -m pytest -m "not slow" -p no:cacheprovider
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).parent / "data" / "fakenvml" / "fake_nvml.c"
SONAME = "libnvidia-ml.so.1"  # the name pynvml and gpudoctor's probe dlopen on Linux


class CannotBuild(Exception):
    """No C compiler, or not a platform where NVML is a .so: the tests that need the library skip with this text."""


def build(directory: Path) -> Path:
    """Compiles the fake into ``directory``/libnvidia-ml.so.1 (unless an up-to-date one is there) and returns it."""
    if not sys.platform.startswith("linux"):
        raise CannotBuild("the fake NVML is a Linux shared library (pynvml dlopens libnvidia-ml.so.1 only there)")
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise CannotBuild("no C compiler (cc) on PATH to build the fake libnvidia-ml.so.1")
    directory = Path(directory)
    library = directory / SONAME
    if library.is_file() and library.stat().st_mtime >= SOURCE.stat().st_mtime:
        return directory  # built from this source already (a kept directory is rebuilt when the source changes)
    directory.mkdir(parents=True, exist_ok=True)
    built = directory / f".{SONAME}.building"
    done = subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(built), str(SOURCE)],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    if done.returncode != 0:
        raise CannotBuild(f"{compiler} failed on {SOURCE.name}: {done.stderr.strip()[:500]}")
    built.replace(library)  # atomic: a concurrent reader never dlopens a half-written file
    return directory


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.fake_nvml_lib DIRECTORY  (prints the directory for LD_LIBRARY_PATH)")
    try:
        print(build(Path(sys.argv[1])))
    except CannotBuild as exc:
        sys.exit(f"cannot build the fake NVML: {exc}")
