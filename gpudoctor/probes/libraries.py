"""Which libcuda, libcudart and libcudnn the dynamic loader would find, in the order it would find them.

Order: LD_LIBRARY_PATH entries first, then WSL's driver folder, then the ldconfig cache — the order ld.so uses for
a library without an RPATH. Versions come from the real file name the soname link points at
(libcudnn.so.8 -> libcudnn.so.8.9.7), which needs no loading and no subprocess.
"""

from __future__ import annotations

import os
import re
from typing import Iterable, Mapping

from ..model import Libraries, Library
from ..runner import Runner

_LIBS = {"libcuda": "libcuda.so", "libcudart": "libcudart.so", "libcudnn": "libcudnn.so"}
_WSL_DRIVER_DIR = "/usr/lib/wsl/lib"
_LDCONFIG = ("/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig")
_CACHE_LINE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)\s*$")


def probe_libraries(runner: Runner, environ: Mapping[str, str] | None = None) -> Libraries:
    environ = os.environ if environ is None else environ
    search_dirs = [d for d in environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
    if os.path.isdir(_WSL_DRIVER_DIR):
        search_dirs.append(_WSL_DRIVER_DIR)
    cached = _ldconfig_cache(runner)
    found = {key: _find(stem, search_dirs, cached) for key, stem in _LIBS.items()}
    return Libraries(**found)


def library_version(path: str) -> str | None:
    """The version in the name of the file a soname link resolves to: libcuda.so.570.124.04 -> 570.124.04."""
    name = os.path.basename(os.path.realpath(path))
    match = re.search(r"\.so\.(\d+(?:\.\d+)*)$", name)
    if not match:
        return None
    version = match.group(1)
    # A bare soname major (libcudnn.so.9 with no longer link target) is still a version, just a coarse one.
    return version


def _find(stem: str, search_dirs: Iterable[str], cached: list[tuple[str, str]]) -> tuple[Library, ...]:
    seen: set[str] = set()
    libraries: list[Library] = []

    def add(path: str) -> None:
        real = os.path.realpath(path)
        if real in seen or not os.path.exists(real):
            return
        seen.add(real)
        libraries.append(Library(path=path, version=library_version(path)))

    for directory in search_dirs:
        for path in _matching_files(directory, stem):
            add(path)
    for soname, path in cached:
        if soname.startswith(stem + ".") or soname == stem:
            add(path)
    return tuple(libraries)


def _matching_files(directory: str, stem: str) -> list[str]:
    """Versioned sonames first (what a framework dlopens: libcudnn.so.9), the unversioned dev link last."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    hits = [n for n in names if n == stem or n.startswith(stem + ".")]
    hits.sort(key=lambda n: (n == stem, len(n), n))
    return [os.path.join(directory, hits[0])] if hits else []


def _ldconfig_cache(runner: Runner) -> list[tuple[str, str]]:
    for ldconfig in _LDCONFIG:
        if os.path.sep in ldconfig and not os.path.exists(ldconfig):
            continue
        result = runner.run([ldconfig, "-p"], timeout=5)
        if result.ok:
            return parse_ldconfig_cache(result.stdout)
    return []


def parse_ldconfig_cache(text: str) -> list[tuple[str, str]]:
    """``ldconfig -p`` lines -> (soname, path), 64-bit entries only (the 32-bit ones never load into Python)."""
    entries = []
    for line in text.splitlines():
        match = _CACHE_LINE.match(line)
        if match and ("x86-64" in match.group(2) or "AArch64" in match.group(2) or "64bit" in match.group(2)):
            entries.append((match.group(1), match.group(3)))
    return entries
