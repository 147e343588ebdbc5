"""The compatibility matrix: matrices/*.toml loaded, validated and turned into typed rows (gpudoctor.matrix.model).

``load_matrix()`` is the one way in. It parses with tomllib and validates by hand (fast: no schema library at
runtime); a file that does not validate raises MatrixError naming the file and the key. The result is cached in
memory per directory and on disk (gpudoctor.matrix.cache), so a run that hits the disk cache never imports the
loader (gpudoctor.matrix.loader, .reader, .row_readers).

Modules, one job each: versions (version strings), arch (GPU architectures), framework (Framework and its
spellings), rows (the release dataclasses), model (Matrix and its queries; re-exports the others), reader (typed
TOML access), row_readers and loader (files -> Matrix), cache, keras / platforms / wheels / broken (their files).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..errors import MatrixError
from .model import Matrix

__all__ = ["Matrix", "MatrixError", "load_matrix", "MATRIX_FILES"]

_LAZY = {  # loader names, imported on first use: a cache hit must not pay for them
    "MATRIX_FILES": ("loader", "MATRIX_FILES"),
    "_parse_and_validate": ("loader", "parse_and_validate"),
    "_Reader": ("reader", "Reader"),
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(f".{module}", __name__), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_matrix(directory: Path | None = None) -> Matrix:
    """Load matrices/*.toml from ``directory`` (default: the packaged matrices). Cached per directory."""
    if directory is None:
        from ..resources import matrices_dir

        directory = matrices_dir()
    return _load(Path(directory).resolve())


@lru_cache(maxsize=8)
def _load(directory: Path) -> Matrix:
    from .cache import cached

    return cached(directory, _parse)


def _parse(directory: Path) -> Matrix:
    from .loader import parse_and_validate

    return parse_and_validate(directory)
