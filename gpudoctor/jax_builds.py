"""JAX's build, read from the installed distributions: jax, jaxlib and the CUDA plugin wheels. Nothing is imported
(``check --deep`` does that in a child process, probes/deep_child.py).

Since jax 0.4.30 jaxlib is the same CPU build everywhere and CUDA support is a separate plugin: ``jax[cuda12]``
installs jax-cuda12-plugin (+ jax-cuda12-pjrt and the nvidia-*-cu12 wheels), ``jax[cuda13]`` jax-cuda13-plugin.
Older releases shipped CUDA jaxlibs with a local version tag ("0.4.23+cuda12.cudnn89"). jax loads the CUDA 13
plugin first when both are installed (jax_plugins/cuda/__init__.py), so it is reported first here too.
"""

from __future__ import annotations

import re
from typing import Mapping

from .model import JaxBuild

PLUGIN_MAJORS = ("13", "12")  # the order jax tries them in
PLUGIN_NAMES = tuple(f"jax-cuda{major}-{kind}" for major in PLUGIN_MAJORS for kind in ("plugin", "pjrt"))
_LOCAL_CUDA = re.compile(r"\+cuda(\d+)")


def jax_build(packages: Mapping[str, str | None] | None) -> JaxBuild | None:
    """None when neither jax nor jaxlib is installed (or the packages are unknown).

    ``build`` is "cpu" only where the absence of every plugin is known: each plugin name is in ``packages`` mapped
    to None (the probe looks for them all; a pasted package list reports what it lists). A name missing from
    ``packages`` is unknown, and so is the build then."""
    if not packages or not (packages.get("jax") or packages.get("jaxlib")):
        return None
    jaxlib = packages.get("jaxlib")
    build = plugin = pjrt = None
    for major in PLUGIN_MAJORS:
        plugin = packages.get(f"jax-cuda{major}-plugin")
        pjrt = packages.get(f"jax-cuda{major}-pjrt")
        if plugin or pjrt:
            build = f"cuda{major}"
            break
    if build is None:
        local = _LOCAL_CUDA.search(jaxlib or "")
        if local:
            build = f"cuda{local.group(1)}"
        elif jaxlib and all(name in packages for name in PLUGIN_NAMES):
            build = "cpu"
    return JaxBuild(version=packages.get("jax"), jaxlib=jaxlib, build=build, plugin=plugin, pjrt=pjrt)
