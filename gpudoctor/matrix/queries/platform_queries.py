"""``gpudoctor matrix jetpack RELEASE``: a JetPack release (or an L4T release, "r36.4.3") answered from
matrices/jetpack.toml, as a frozen dataclass (JSON with --json). An unknown release lists the known ones."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import UnknownRelease
from ..tables.model import Matrix


@dataclass(frozen=True)
class JetpackInfo:
    """`gpudoctor matrix jetpack`: a JetPack release, its L4T, CUDA, cuDNN, TensorRT, Python and torch wheels."""

    query: str
    jetpack: str
    l4t: str
    cuda: str
    cudnn: str | None
    tensorrt: str | None
    python: str
    ubuntu: str
    torch: tuple[str, ...]
    torch_install: str
    unconfirmed: tuple[str, ...]
    sources: tuple[str, ...]


def jetpack_info(m: Matrix, release: str) -> JetpackInfo:
    tables = m.platform_tables
    rows = tables.jetpack if tables else ()
    text = release.strip()
    row = None
    if tables:
        major = text.split(".")[0]
        # ASCII digits, and no int() past a few digits: "²" is isdigit() and 5,000 digits pass int()'s limit.
        numeric = major.isascii() and major.isdigit()
        by_l4t = text.lower().startswith(("r", "l4t")) or numeric and (len(major) > 4 or int(major) >= 20)
        row = tables.jetpack_by_l4t(text.lower().replace("l4t", "").strip().lstrip("r")) if by_l4t else tables.jetpack_release(text)
    if row is None:
        known = ", ".join(f"{r.jetpack} (L4T {r.l4t})" for r in rows) or "none: matrices/jetpack.toml is missing"
        raise UnknownRelease("JetPack", release, known)
    return JetpackInfo(release, row.jetpack, row.l4t, row.cuda, row.cudnn, row.tensorrt, row.python, row.ubuntu, row.torch,
                       row.install_torch(), row.unconfirmed, tuple(m.sources.get("jetpack.toml", ())) + row.sources)
