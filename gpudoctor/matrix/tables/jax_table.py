"""matrices/jax.toml: JAX releases, the CUDA plugin wheels each has, and what those wheels need (driver, GPU, CUDA,
cuDNN, Python). Pure data plus lookups, loaded once with the rest of the matrix; every error names the file and key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .reader import Reader
from .versions import try_vtuple, vtuple

FILE = "jax.toml"
MAJORS = ("cuda12", "cuda13")
PLATFORMS = ("linux", "wsl2", "windows", "macos")


@dataclass(frozen=True)
class JaxCudaMajor:
    """What every plugin wheel of one CUDA major needs (the install guide's floors)."""

    name: str  # "cuda12"
    driver_min: str  # "525": the Linux driver the pip CUDA wheels need
    cc_min: str  # "5.2": the oldest compute capability supported
    cuda_min: str  # "12.1"
    nvidia_suffix: str  # "-cu12": the nvidia-* wheels its [with-cuda] extra pulls


@dataclass(frozen=True)
class JaxRelease:
    """A series of jax releases with the Pythons, CUDA plugins and minimum cuDNN/jaxlib they accept."""
    versions: tuple[str, ...]
    python: tuple[str, ...]
    plugins: tuple[str, ...]  # the CUDA plugin wheels PyPI serves for these versions: ("cuda12", "cuda13")
    cudnn_min: dict[str, str]  # plugin -> the oldest cuDNN its wheel accepts
    jaxlib_min: dict[str, str]  # jax version -> the oldest jaxlib it accepts (where its METADATA was read)

    @property
    def latest(self) -> str:
        return self.versions[-1]

    @property
    def series(self) -> str:
        return ".".join(self.versions[0].split(".")[:2])


@dataclass(frozen=True)
class JaxTable:
    """The jax matrix: CUDA majors and releases of jax.toml, with its sources and review date."""
    majors: tuple[JaxCudaMajor, ...]
    releases: tuple[JaxRelease, ...]  # oldest first
    sources: tuple[str, ...] = ()
    reviewed: str = ""
    # (platform, "yes" | "experimental" | "no") for linux, wsl2, windows, macos: where JAX runs on an NVIDIA GPU
    nvidia_gpu_platforms: tuple[tuple[str, str], ...] = ()

    def nvidia_gpu_support(self, platform: str) -> str | None:
        """"yes", "experimental" or "no" for "linux", "wsl2", "windows" or "macos"; None where the table does not say."""
        return dict(self.nvidia_gpu_platforms).get(platform)

    def major(self, name: str) -> JaxCudaMajor | None:
        return next((m for m in self.majors if m.name == name), None)

    def release(self, version: str) -> JaxRelease | None:
        """The row of an exact release ("0.7.2", "0.7.2+local" reads as 0.7.2); None when the table lacks it."""
        plain = version.split("+")[0].strip()
        return next((r for r in self.releases if plain in r.versions), None)

    def series(self, prefix: str) -> tuple[JaxRelease, ...]:
        """Every row with a version in a series ("0.7" -> the 0.7.x rows), or the exact release's row."""
        exact = self.release(prefix)
        if exact is not None:
            return (exact,)
        want = prefix.strip() + "."
        return tuple(r for r in self.releases if any(v.startswith(want) for v in r.versions))

    def newest(self) -> str:
        return self.releases[-1].latest

    def known(self) -> tuple[str, ...]:
        return tuple(v for r in self.releases for v in r.versions)

    def is_newer_than_known(self, version: str) -> bool:
        mine, newest = try_vtuple(version.split("+")[0]), vtuple(self.newest())
        return mine is not None and mine > newest


def jax_table(doc: dict[str, Any]) -> JaxTable:
    """The parsed matrices/jax.toml (the loader reads it with the other tables) -> the validated table."""
    top = Reader(FILE, doc, "")
    reviewed = top.date("reviewed")
    majors = []
    for name in MAJORS:
        r = top.sub(name)
        suffix = r.str("nvidia_suffix")
        majors.append(JaxCudaMajor(name, r.version("driver_min"), r.version("cc_min"), r.version("cuda_min"), suffix))
    releases = []
    for r in top.tables("release"):
        plugins = r.strs("plugins")
        unknown = [p for p in plugins if p not in MAJORS]
        if unknown:
            raise r.fail("plugins", f"unknown plugin {unknown[0]!r} (cuda12 or cuda13)")
        cudnn = r.pins("cudnn_min")
        if set(cudnn) != set(plugins):
            raise r.fail("cudnn_min", "must name a cuDNN floor for each of the release's plugins, and no other")
        jaxlib_min = r.pins("jaxlib_min")
        versions = r.versions("versions")
        if not set(jaxlib_min) <= set(versions):
            raise r.fail("jaxlib_min", "names a version the row does not list")
        for key, pins in (("cudnn_min", cudnn), ("jaxlib_min", jaxlib_min)):
            bad = next((value for value in pins.values() if try_vtuple(value) is None), None)
            if bad is not None:
                raise r.fail(key, f"not a version: {bad!r}")
        releases.append(JaxRelease(versions, r.versions("python"), plugins, cudnn, jaxlib_min))
    releases.sort(key=lambda rel: vtuple(rel.latest))
    platforms = top.sub("nvidia_gpu_platforms")
    support = []
    for platform in PLATFORMS:
        value = platforms.str(platform)
        if value not in ("yes", "experimental", "no"):
            raise platforms.fail(platform, f"must be yes, experimental or no, not {value!r}")
        support.append((platform, value))
    return JaxTable(tuple(majors), tuple(releases), top.urls("sources", required=True), reviewed, tuple(support))
