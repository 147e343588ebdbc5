"""CUDA toolkits installed on the system: nvcc on PATH, CUDA_HOME / CUDA_PATH and the standard prefixes.

A local toolkit only matters for compiling extensions (pip wheels bring their own CUDA runtime), so this probe
records what is there and which one is on PATH; the checks decide whether that matters.
"""

from __future__ import annotations

import glob
import os
import re
import sys
from pathlib import Path
from typing import Mapping, Sequence

from ..model import CudaToolkit
from ..runner import CommandResult, Runner

STANDARD_PREFIXES = ("/usr/local/cuda", "/usr/local/cuda-*", "/opt/cuda", "/opt/nvidia/cuda*", "/usr/lib/cuda")


# Patterns are strings that re compiles on first use (and caches), not at import: a `check` run without toolkit text
# never needs them, and compiling every module's patterns at import was a measurable part of the start-up time.
_NVCC_RELEASE = r"release (\d+)\.(\d+)"


_CUDA_H_VERSION = r"#define\s+CUDA_VERSION\s+(\d+)"


_DIR_VERSION = r"cuda-(\d+)\.(\d+)"


def probe_cuda_toolkits(
    runner: Runner, environ: Mapping[str, str] | None = None, prefixes: tuple[str, ...] = STANDARD_PREFIXES
) -> tuple[CudaToolkit, ...]:
    environ = os.environ if environ is None else environ
    roots: dict[str, str | None] = {}  # real path -> version; insertion order = discovery order
    for candidate in _candidate_roots(environ, prefixes):
        real = os.path.realpath(candidate)
        if real not in roots and _looks_like_toolkit(real):
            roots[real] = toolkit_version(Path(real))

    runner = _AskOnce(runner)  # a wrapper nvcc and its toolkit's nvcc are often one program: ask (or time out) once
    on_path_root = _nvcc_root_on_path(runner, environ, roots)
    toolkits = [CudaToolkit(version=v, path=p, on_path=(p == on_path_root)) for p, v in roots.items()]
    if on_path_root is not None and on_path_root not in roots:
        version = toolkit_version(Path(on_path_root)) if _looks_like_toolkit(on_path_root) else None
        toolkits.append(CudaToolkit(version=version or _nvcc_version(runner, on_path_root), path=on_path_root, on_path=True))
    toolkits.sort(key=lambda t: not t.on_path)  # the one on PATH first, as the snapshot format says
    return tuple(toolkits)


def toolkit_version(root: Path) -> str | None:
    """major.minor of the toolkit at ``root``, from the cheapest source that has it."""
    try:
        text = (root / "version.json").read_text()
        import json  # here: most runs have no version.json to read (pip-installed toolkits, CUDA before 11.1)

        data = json.loads(text)
        return _major_minor(data["cuda"]["version"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        match = re.search(r"CUDA Version (\d+\.\d+)", (root / "version.txt").read_text())
        if match:
            return match.group(1)
    except OSError:
        pass
    for header in (root / "include" / "cuda.h", *root.glob("targets/*/include/cuda.h")):
        try:
            match = re.search(_CUDA_H_VERSION, header.read_text(errors="replace"))
        except OSError:
            continue
        if match:
            number = int(match.group(1))
            return f"{number // 1000}.{(number % 1000) // 10}"
    match = re.search(_DIR_VERSION, root.name)
    return f"{match.group(1)}.{match.group(2)}" if match else None


def _candidate_roots(environ: Mapping[str, str], prefixes: tuple[str, ...]) -> list[str]:
    found = [environ[name] for name in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT") if environ.get(name)]
    for pattern in prefixes:
        found.extend(sorted(glob.glob(pattern)))
    return found


def _looks_like_toolkit(root: str) -> bool:
    # bin/nvcc alone is not enough: /usr/local/bin/nvcc may be a wrapper script, and /usr/local is no toolkit.
    if os.path.isfile(os.path.join(root, "version.json")):
        return True
    has_nvcc = os.path.isfile(os.path.join(root, "bin", "nvcc"))
    return has_nvcc and (os.path.isdir(os.path.join(root, "nvvm")) or os.path.isdir(os.path.join(root, "targets")))


def _nvcc_root_on_path(runner: Runner, environ: Mapping[str, str], known: Mapping[str, str | None]) -> str | None:
    nvcc = which("nvcc", environ.get("PATH", ""))
    if nvcc is None:
        return None
    real = Path(os.path.realpath(nvcc))
    if real.parent.name == "bin" and _looks_like_toolkit(str(real.parent.parent)):
        return str(real.parent.parent)
    # A wrapper script (e.g. /usr/local/bin/nvcc that execs the real one): ask it, then match a known root.
    version = _nvcc_version(runner, nvcc)
    matches = [root for root, v in known.items() if v == version]
    return matches[0] if len(matches) == 1 else str(real.parent)


def _nvcc_version(runner: Runner, nvcc_or_root: str) -> str | None:
    nvcc = nvcc_or_root if nvcc_or_root.endswith("nvcc") else os.path.join(nvcc_or_root, "nvcc")
    result = runner.run([nvcc, "--version"], timeout=10)
    match = re.search(_NVCC_RELEASE, result.stdout) if result.ok else None
    return f"{match.group(1)}.{match.group(2)}" if match else None


def which(program: str, path: str) -> str | None:
    """``shutil.which(program, path=path)``, the same search, without importing shutil on POSIX: with the bz2 and
    lzma modules it pulls in, that import was ~2.5 ms of a `check` run (tests/probes compare the two)."""
    if sys.platform == "win32":  # PATHEXT and the current directory first: shutil's rules
        import shutil

        return shutil.which(program, path=path)
    if os.path.dirname(program):
        return program if _executable_file(program) else None
    seen = set()
    for folder in path.split(os.pathsep) if path else ():
        if folder not in seen:
            seen.add(folder)
            candidate = os.path.join(folder, program)
            if _executable_file(candidate):
                return candidate
    return None


def _executable_file(path: str) -> bool:
    return os.path.exists(path) and os.access(path, os.X_OK) and not os.path.isdir(path)


class _AskOnce:
    """A Runner that remembers each command's result for one probe run."""

    def __init__(self, runner: Runner) -> None:
        self._runner: Runner = runner
        self._answers: dict[tuple[str, ...], CommandResult] = {}

    def run(self, argv: Sequence[str], timeout: float = 10.0) -> CommandResult:
        program = os.path.realpath(argv[0]) if os.sep in argv[0] else argv[0]  # a symlink and its target: one program
        key = (program, *argv[1:])
        if key not in self._answers:
            self._answers[key] = self._runner.run(argv, timeout=timeout)
        return self._answers[key]


def _major_minor(version: str) -> str:
    return ".".join(version.split(".")[:2])
