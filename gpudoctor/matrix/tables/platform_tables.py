"""matrices/jetpack.toml, apple.toml and accelerators.toml: JetPack releases (L4T -> CUDA, cuDNN, TensorRT, NVIDIA's
torch builds), what MPS and tensorflow-metal need on a Mac, and the DirectML / Intel XPU / MXNet notes.

Pure data, loaded with the rest of the matrix (``load_matrix``); each file is optional (a hand-built matrix may
lack it: the checks then say nothing). Every error names the file and the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import MatrixError
from .broken import in_range, parse_range
from .reader import Reader, read_toml
from .versions import series, try_vtuple, vtuple

FILES = ("jetpack.toml", "apple.toml", "accelerators.toml")


@dataclass(frozen=True)
class JetpackRelease:
    """One JetPack release and the L4T, CUDA, cuDNN and TensorRT it ships."""
    jetpack: str  # "6.2"
    l4t: str  # "36.4.3"
    cuda: str  # "12.6"
    cudnn: str | None
    tensorrt: str | None
    python: str  # the Python of its Ubuntu, which NVIDIA's wheels are built for
    ubuntu: str
    torch: tuple[str, ...]  # torch series NVIDIA (or its Jetson AI Lab index) publishes for it
    torch_index: str | None
    unconfirmed: tuple[str, ...] = ()  # fields no source read on the reviewed date states for this release
    sources: tuple[str, ...] = ()

    def install_torch(self) -> str:
        if self.torch_index and not self.torch_index.endswith("/pytorch/"):
            return f"pip install torch torchvision --index-url {self.torch_index}"
        return f"pip install <torch wheel for JetPack {self.jetpack} from {self.torch_index}>"


@dataclass(frozen=True)
class MetalPairing:
    """A tensorflow-metal series and the TensorFlow range (and Pythons) it works with."""
    plugin: str  # tensorflow-metal series: "1.1"
    tensorflow: str  # a range: ">=2.14,<2.18"
    python: tuple[str, ...] = ()  # Pythons with a macOS arm64 wheel of it; empty: not recorded


@dataclass(frozen=True)
class AppleTable:
    """What a Mac needs for PyTorch's MPS and for tensorflow-metal."""
    mps_min_macos: str
    mps_torch_since: str
    metal: tuple[MetalPairing, ...]

    def metal_for_tf(self, tf_version: str) -> MetalPairing | None:
        return next((p for p in self.metal if in_range(tf_version, p.tensorflow)), None)

    def metal_pairing(self, plugin_version: str) -> MetalPairing | None:
        return next((p for p in self.metal if series(plugin_version) == p.plugin), None)


@dataclass(frozen=True)
class AcceleratorNotes:
    """Notes on the non-CUDA accelerators (DirectML, Intel XPU, MXNet), keyed by topic, and the packages whose GPU
    build has another name (CPU-only name -> glob of the GPU build's names)."""
    directml: dict[str, str]
    xpu: dict[str, str]
    mxnet: dict[str, str]
    cpu_variants: dict[str, str] = field(default_factory=dict)
    onnxruntime: dict[str, str] = field(default_factory=dict)  # onnxruntime-gpu's cuDNN majors by release


@dataclass(frozen=True)
class PlatformTables:
    """The platform tables (Jetson, Apple, other accelerators) with their review dates and sources."""
    jetpack: tuple[JetpackRelease, ...] = ()  # newest first
    apple: AppleTable | None = None
    accelerators: AcceleratorNotes | None = None
    reviewed: tuple[tuple[str, str], ...] = ()  # (file, reviewed date)
    sources: tuple[tuple[str, tuple[str, ...]], ...] = ()
    jetson_tf_local_tag: str | None = None  # "nv": NVIDIA's Jetson TensorFlow wheels are versioned 2.11.0+nv23.01

    def jetpack_by_l4t(self, l4t: str | None) -> JetpackRelease | None:
        """The JetPack of an L4T release ("36.4.3"; "36.4" matches "36.4.0")."""
        have = try_vtuple(l4t or "")
        if not have:
            return None
        padded = have + (0,) * (3 - len(have))
        return next((r for r in self.jetpack if vtuple(r.l4t) + (0,) * (3 - len(vtuple(r.l4t))) == padded[:3]), None)

    def jetpack_release(self, version: str) -> JetpackRelease | None:
        """A JetPack release by its own number ("6.2", "5.1.2"); "6" is the newest 6.x.

        Only a bare major is a series: "4.6" and "5.1" are releases of their own (L4T 32.6.1, 35.2.1), so a
        two-part number that is not in the table is unknown rather than answered with 4.6.1's or 5.1.2's row."""
        want = try_vtuple(version.strip().lower().lstrip("r").replace("jetpack", "").strip())
        if not want:
            return None
        exact = next((r for r in self.jetpack if vtuple(r.jetpack) == want), None)
        if exact or len(want) > 1:
            return exact
        return next((r for r in self.jetpack if vtuple(r.jetpack)[:1] == want), None)


def load_platform_tables(directory: Path, tomllib: Any) -> PlatformTables:
    docs = {}
    for name in FILES:
        doc = read_toml(Path(directory) / name, tomllib, required=False)
        if doc is not None:
            docs[name] = doc
    readers = {name: Reader(name, doc, "") for name, doc in docs.items()}
    try:
        return PlatformTables(
            jetpack=_jetpack(readers["jetpack.toml"]) if "jetpack.toml" in readers else (),
            apple=_apple(readers["apple.toml"]) if "apple.toml" in readers else None,
            accelerators=_accelerators(docs["accelerators.toml"]) if "accelerators.toml" in docs else None,
            reviewed=tuple((name, r.date("reviewed")) for name, r in readers.items()),
            sources=tuple((name, r.urls("sources", required=True)) for name, r in readers.items()),
            jetson_tf_local_tag=_tf_local_tag(readers["jetpack.toml"]) if "jetpack.toml" in readers else None,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise MatrixError(f"matrices/{'/'.join(docs)}: {exc}") from None


def _tf_local_tag(r: Reader) -> str | None:
    tag = r.str("tensorflow_local_tag", required=False)
    if tag is not None and not tag.isalnum():
        raise r.fail("tensorflow_local_tag", f"must be the letters of a local version tag (nv), not {tag!r}")
    if tag is not None:
        r.urls("tensorflow_sources", required=True)
    return tag


def _jetpack(r: Reader) -> tuple[JetpackRelease, ...]:
    rows = []
    for t in r.tables("release"):
        rows.append(JetpackRelease(
            jetpack=t.version("jetpack"), l4t=t.version("l4t"), cuda=t.version("cuda"), cudnn=t.version("cudnn", required=False),
            tensorrt=t.version("tensorrt", required=False), python=t.version("python"), ubuntu=t.str("ubuntu"),
            torch=t.versions("torch"), torch_index=t.str("torch_index", required=False),
            unconfirmed=t.strs("unconfirmed", required=False), sources=t.urls("sources", required=True),
        ))
    l4ts = [row.l4t for row in rows]
    if len(set(l4ts)) != len(l4ts):
        raise r.fail("release", "two JetPack releases name the same L4T release")
    return tuple(sorted(rows, key=lambda row: vtuple(row.jetpack), reverse=True))


def _apple(r: Reader) -> AppleTable:
    mps = r.sub("mps")
    pairs = []
    for t in r.tables("metal"):
        tf_range = t.str("tensorflow")
        try:
            parse_range(tf_range)
        except ValueError as exc:
            raise t.fail("tensorflow", str(exc)) from None
        pairs.append(MetalPairing(t.version("plugin"), tf_range, t.versions("python", required=False)))
    return AppleTable(mps.version("min_macos"), mps.version("torch_since"), tuple(pairs))


def _accelerators(doc: dict) -> AcceleratorNotes:
    return AcceleratorNotes(*({k: str(v) for k, v in doc.get(name, {}).items()} for name in ("directml", "xpu", "mxnet", "cpu_variants", "onnxruntime")))
