"""``gpudoctor matrix jax``: JAX releases of a series (or one release), with the CUDA plugin wheels each has and what
those need, as matrices/jax.toml records them."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import UnknownRelease
from ..tables.model import Matrix


@dataclass(frozen=True)
class JaxPluginInfo:
    """A JAX CUDA plugin (jax[cuda12]) of a release and the driver, compute capability, CUDA and cuDNN it needs."""

    plugin: str  # "cuda12"
    extra: str  # 'jax[cuda12]'
    driver_min: str  # Linux driver
    cc_min: str
    cuda_min: str
    cudnn_min: str


@dataclass(frozen=True)
class JaxVersionInfo:
    """One JAX release: its Pythons, its CUDA plugins, the jaxlib it needs and how to install it."""

    version: str
    python: tuple[str, ...]
    plugins: tuple[JaxPluginInfo, ...]
    jaxlib_min: str | None  # None: jax's METADATA for this version was not read
    install: str  # the pip command for the newest plugin, or the CPU build


@dataclass(frozen=True)
class JaxInfo:
    """`gpudoctor matrix jax X.Y`: the series' releases and the sources they come from."""

    framework: str
    series: str
    releases: tuple[JaxVersionInfo, ...]
    sources: tuple[str, ...]


def jax_info(m: Matrix, version: str) -> JaxInfo:
    table = m.jax
    rows = table.series(version) if table is not None else ()
    if not rows:
        known = dict.fromkeys(".".join(v.split(".")[:2]) for v in table.known()) if table is not None else {}
        raise UnknownRelease("jax", version, ", ".join(known))
    exact = table.release(version)
    infos = []
    for row in rows:
        for v in row.versions:
            if exact is None and not v.startswith(version.strip() + "."):
                continue
            if exact is not None and v != version.split("+")[0].strip():
                continue
            plugins = tuple(_plugin(table, row, p) for p in row.plugins)
            newest = plugins[-1].extra if plugins else "jax"
            infos.append(JaxVersionInfo(v, row.python, plugins, row.jaxlib_min.get(v), f'pip install "{newest}=={v}"'))
    return JaxInfo("jax", version.strip(), tuple(infos), tuple(m.sources.get("jax.toml", ())) or table.sources)


def _plugin(table, row, name: str) -> JaxPluginInfo:
    major = table.major(name)
    return JaxPluginInfo(name, f"jax[{name}]", major.driver_min, major.cc_min, major.cuda_min, row.cudnn_min[name])
