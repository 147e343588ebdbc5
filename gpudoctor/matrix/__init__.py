"""The compatibility matrix, in three parts: ``tables`` loads matrices/*.toml, validates it and turns it into typed
rows (``gpudoctor.matrix.tables.model.Matrix``); ``solver`` solves for a machine (which build to install);
``queries`` answers the ``matrix`` command's questions and may ask the solver. A lower part never imports a higher
one (import-linter: queries > solver > tables).

``load_matrix()`` is the one way in. It parses with tomllib and validates by hand (fast: no schema library at
runtime); a file that does not validate raises MatrixError naming the file and the key. The result is cached in
memory per directory and on disk (gpudoctor.matrix.tables.cache), so a run that hits the disk cache never imports
the loader (gpudoctor.matrix.tables.loader, .reader, .row_readers).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..errors import MatrixError
from .tables.model import Matrix

__all__ = ["Matrix", "MatrixError", "load_matrix", "MATRIX_FILES"]

_LAZY = {  # loader names, imported on first use: a cache hit must not pay for them
    "MATRIX_FILES": ("tables.loader", "MATRIX_FILES"),
    "_parse_and_validate": ("tables.loader", "parse_and_validate"),
    "_Reader": ("tables.reader", "Reader"),
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
    from .tables.cache import cached

    return cached(directory, _parse)


def _parse(directory: Path) -> Matrix:
    from .tables.loader import parse_and_validate

    return parse_and_validate(directory)
