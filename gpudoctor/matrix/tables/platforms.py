"""matrices/platforms.toml: which builds exist off Linux x86_64 (macOS, Linux aarch64), the Jetson route, the nvidia/cuda
base images for builds that need system CUDA, the conda recipes for TensorFlow releases without `and-cuda`, and the
releases whose GPU wheel can only load CUDA from the system.

Pure data, loaded once with the rest of the matrix (``load_matrix``); every error names the file and key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import MatrixError
from .versions import series, vtuple
from .reader import read_toml

FILE = "platforms.toml"


@dataclass(frozen=True)
class CudaImage:
    """An nvidia/cuda Docker image with the cuDNN and Pythons it offers."""
    cuda: str  # "11.2"
    cudnn: str  # "8"
    image: str  # "nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04"
    python: str  # the image's own python3
    apt_pythons: tuple[str, ...]  # Pythons its apt archive installs
    pip_upgrade: str | None = None  # the pip requirement to upgrade the image's old apt pip to first ("pip<21")
    status: str = "unconfirmed"  # "available" (seen in a dated source) / "deleted" (removed from the registry)
    status_seen: str = ""  # the date of the source that says so
    status_sources: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return self.status == "available"


@dataclass(frozen=True)
class CondaImage:
    """The Dockerfile base of a conda-route build whose CUDA has no available nvidia/cuda image: conda-forge gives CUDA."""

    image: str  # "mambaorg/micromamba:2.3.2"
    prefix: str  # its base environment ("/opt/conda")
    status: str = "unconfirmed"
    status_seen: str = ""
    status_sources: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return self.status == "available"


@dataclass(frozen=True)
class TfCondaRecipe:
    """How a conda environment supplies CUDA and cuDNN to a range of TensorFlow releases."""
    series: tuple[str, ...]  # ("2.12", "2.13")
    conda: tuple[str, ...]  # ("cudatoolkit=11.8.0",)
    pip: tuple[str, ...]  # ("nvidia-cudnn-cu11==8.6.0.163",)
    ld_library_path: str  # "$CONDA_PREFIX/lib/" ({python} = the environment's Python)
    pins: tuple[str, ...] = ()  # caps on the release's own dependencies ("protobuf<3.21")
    origin: str | None = None  # where the recipe comes from, when it is not TensorFlow's own pip.md recipe
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Platforms:
    """Framework support beyond Linux x86_64 (macOS, Linux aarch64, Jetson), the Docker images and conda recipes."""
    torch_macos_x86_64_last: str
    torch_linux_aarch64_cuda_since: str
    torch_linux_aarch64_arch: tuple[str, ...]
    tf_macos_x86_64_last: str
    tf_macos_arm64_since: str
    tf_linux_aarch64_gpu: bool
    jetson_cc: tuple[str, ...]
    jetson_wheels_url: str
    jetson_containers: tuple[tuple[str, str], ...]  # (framework, NGC repository)
    cuda_images: tuple[CudaImage, ...]
    tf_linux_conda: tuple[TfCondaRecipe, ...]
    aarch64_gpu_prefixes: tuple[str, ...] = ()
    tf_linux_system: tuple[str, ...] = ()  # series whose GPU wheel loads CUDA/cuDNN from the system (no conda recipe)
    tf_linux_unavailable: tuple[str, ...] = ()  # series whose GPU build no route gpudoctor writes can install
    tf_linux_unavailable_why: str = ""  # why, with {cudnn_major}
    sources: tuple[str, ...] = ()
    conda_image: CondaImage | None = None

    def aarch64_only(self, gpu_name: str) -> bool:
        word = gpu_name.strip().upper().replace("NVIDIA ", "")
        return any(word.startswith(p.upper()) for p in self.aarch64_gpu_prefixes)

    def cuda_image(self, cuda: str) -> CudaImage | None:
        want = series(cuda)
        return next((i for i in self.cuda_images if series(i.cuda) == want), None)

    def live_cuda_image(self, cuda: str) -> CudaImage | None:
        """The nvidia/cuda image of this CUDA series that a Dockerfile may start from (None when it was deleted)."""
        image = self.cuda_image(cuda)
        return image if image is not None and image.available else None

    def live_conda_image(self) -> CondaImage | None:
        return self.conda_image if self.conda_image is not None and self.conda_image.available else None

    def tf_recipe(self, release_series: str) -> TfCondaRecipe | None:
        return next((r for r in self.tf_linux_conda if release_series in r.series), None)

    def tf_system_route(self, release_series: str) -> bool:
        return release_series in self.tf_linux_system

    def tf_unavailable_why(self, release_series: str, cudnn: str) -> str | None:
        """Why no GPU route exists for this TensorFlow series on Linux, or None when one may."""
        if release_series not in self.tf_linux_unavailable:
            return None
        return self.tf_linux_unavailable_why.format(cudnn_major=cudnn.split(".")[0])

    def jetson_container(self, framework: str) -> str | None:
        return dict(self.jetson_containers).get(framework)

    def is_jetson(self, cc: str) -> bool:
        return cc in self.jetson_cc


def load_platforms(directory: Path, tomllib: Any) -> Platforms:
    path = Path(directory) / FILE
    doc = read_toml(path, tomllib)
    try:
        torch, tf, jetson = doc["torch"], doc["tensorflow"], doc["jetson"]
        images = tuple(
            CudaImage(
                _v(t["cuda"]), str(t["cudnn"]), str(t["image"]), _v(t["python"]), tuple(_v(p) for p in t["apt_pythons"]),
                str(t["pip_upgrade"]) if "pip_upgrade" in t else None, *_status(t),
            )
            for t in doc.get("cuda_image", ())
        )
        recipes = tuple(
            TfCondaRecipe(
                tuple(_v(s) for s in t["series"]), tuple(map(str, t["conda"])), tuple(map(str, t["pip"])), str(t["ld_library_path"]),
                tuple(map(str, t.get("pins", ()))), str(t["origin"]) if "origin" in t else None, tuple(map(str, t.get("sources", ()))),
            )
            for t in doc.get("tf_linux_conda", ())
        )
        return Platforms(
            torch_macos_x86_64_last=_v(torch["macos_x86_64_last"]),
            torch_linux_aarch64_cuda_since=_v(torch["linux_aarch64_cuda_since"]),
            torch_linux_aarch64_arch=tuple(map(str, torch["linux_aarch64_arch"])),
            tf_macos_x86_64_last=_v(tf["macos_x86_64_last"]),
            tf_macos_arm64_since=_v(tf["macos_arm64_since"]),
            tf_linux_aarch64_gpu=bool(tf["linux_aarch64_gpu"]),
            jetson_cc=tuple(_v(c) for c in jetson["cc"]),
            jetson_wheels_url=str(jetson["wheels_url"]),
            jetson_containers=(("torch", str(jetson["torch_container"])), ("tensorflow", str(jetson["tensorflow_container"]))),
            cuda_images=images,
            tf_linux_conda=recipes,
            tf_linux_system=tuple(_v(s) for s in doc.get("tf_linux_system", {}).get("series", ())),
            tf_linux_unavailable=tuple(_v(s) for s in doc.get("tf_linux_unavailable", {}).get("series", ())),
            tf_linux_unavailable_why=str(doc.get("tf_linux_unavailable", {}).get("why", "")),
            aarch64_gpu_prefixes=tuple(map(str, doc.get("aarch64", {}).get("gpu_prefixes", ()))),
            sources=tuple(map(str, doc.get("sources", ()))),
            conda_image=CondaImage(str(doc["conda_image"]["image"]), str(doc["conda_image"]["prefix"]), *_status(doc["conda_image"]))
            if "conda_image" in doc else None,
        )
    except KeyError as exc:
        raise MatrixError(f"matrices/{FILE}: key {exc.args[0]!r} missing") from None
    except (TypeError, ValueError) as exc:
        raise MatrixError(f"matrices/{FILE}: {exc}") from None


STATUSES = ("available", "deleted", "unconfirmed")


def _status(table: dict) -> tuple[str, str, tuple[str, ...]]:
    """A base image row's (status, status_seen, status_sources); every row must say it, with a source."""
    status = str(table["status"])
    if status not in STATUSES:
        raise ValueError(f"image {table.get('image')!r}: status {status!r} is not one of {', '.join(STATUSES)}")
    sources = tuple(map(str, table["status_sources"]))
    if not sources:
        raise ValueError(f"image {table.get('image')!r}: status_sources is empty")
    return status, str(table["status_seen"]), sources


def _v(text: Any) -> str:
    vtuple(str(text))  # ValueError names the bad value
    return str(text)
