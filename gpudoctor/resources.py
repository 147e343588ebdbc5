"""Where the packaged data lives: inside an installed wheel (gpudoctor/matrices, gpudoctor/templates, mapped there
by setup.py) or at the top of a source checkout. The one place that knows."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    installed = _PACKAGE_DIR / name
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / name


def matrices_dir() -> Path:
    return _data_dir("matrices")


def templates_dir() -> Path:
    return _data_dir("templates")


def schema_path() -> Path:
    return _PACKAGE_DIR / "schema" / "facts.schema.json"
