"""Installed Python distributions that matter, read from the *.dist-info / *.egg-info folder names.

Folder names are enough (name and version are in them), so this costs one directory listing per sys.path entry
instead of parsing every METADATA file as importlib.metadata.distributions() would.
Within ``python_packages`` a tracked name mapped to None means "looked for, not installed".
"""

from __future__ import annotations

import os
import re
import sys
from typing import Iterable

TRACKED = (
    "torch",
    "torchvision",
    "torchaudio",
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tensorflow-intel",
    "tensorflow-macos",
    "tensorflow-metal",
    "tf-keras",
    "keras",
    "jax",
    "jaxlib",
    "jax-cuda12-plugin",
    "jax-cuda12-pjrt",
    "jax-cuda13-plugin",
    "jax-cuda13-pjrt",
    "triton",
    "tensorrt",
    "nvidia-ml-py",
    "pynvml",
    "cuda-toolkit",
    "mxnet",  # retired upstream (checks/platforms_misc.py); its CUDA builds are mxnet-cu* (the prefix below)
    "torch-directml",
    "tensorflow-directml-plugin",
    "intel-extension-for-pytorch",
)
_PREFIXES = ("nvidia-", "jax-cuda", "mxnet-")  # every nvidia-* CUDA wheel (cu11/cu12/cu13 and the unsuffixed 13.x names), JAX plugins, MXNet builds
_DIST_DIR = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._]*?)-(?P<version>[^-]+?)(?:-py[\d.]+)?\.(?:dist|egg)-info$")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def probe_python_packages(paths: Iterable[str] | None = None) -> dict[str, str | None]:
    installed: dict[str, str] = {}
    for entry in sys.path if paths is None else paths:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in names:
            match = _DIST_DIR.match(folder)
            if match:
                # The first entry on sys.path wins, as it does for import.
                installed.setdefault(canonical(match.group("name")), match.group("version"))
    packages: dict[str, str | None] = {name: installed.get(name) for name in TRACKED}
    packages.update({name: v for name, v in sorted(installed.items()) if name.startswith(_PREFIXES)})
    return packages
