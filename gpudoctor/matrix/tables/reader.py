"""Typed access to one table of a matrix file: every value is checked as it is read, and every failure is a
MatrixError that names the file and the key path ("matrices/torch.toml: key 'release[3].python': ...")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...errors import MatrixError
from .arch import parse_arch
from .versions import vtuple

_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")



def read_toml(path: Path, tomllib: Any, *, required: bool = True) -> dict[str, Any] | None:
    """One matrix file, parsed: MatrixError (one line, naming the file) for invalid TOML, and for a missing file that
    is ``required``; None for a missing optional one (a hand-built matrix directory may leave it out)."""
    try:
        with Path(path).open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        if required:
            raise MatrixError(f"{path}: matrix file missing") from None
        return None
    except tomllib.TOMLDecodeError as exc:
        raise MatrixError(f"{path}: not valid TOML ({exc})") from None


class Reader:
    """Typed access to one TOML table; every failure names the file and the key path."""

    def __init__(self, file: str, data: dict[str, Any], where: str):
        self.file, self.data, self.where = file, data, where

    def _path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def fail(self, key: str, message: str) -> MatrixError:
        return MatrixError(f"matrices/{self.file}: key '{self._path(key)}': {message}")

    def has(self, key: str) -> bool:
        return key in self.data

    def _get(self, key: str, required: bool) -> Any:
        if key not in self.data:
            if required:
                raise self.fail(key, "missing")
            return None
        return self.data[key]

    def str(self, key: str, required: bool = True) -> str | None:
        value = self._get(key, required)
        if value is not None and not isinstance(value, str):
            raise self.fail(key, f"must be a string, got {type(value).__name__}")
        return value

    def version(self, key: str, required: bool = True) -> str | None:
        value = self.str(key, required)
        if value is not None:
            try:
                vtuple(value)
            except ValueError:
                raise self.fail(key, f"not a version: {value!r}") from None
            if not re.fullmatch(r"\d+(\.\d+)*", value):
                raise self.fail(key, f"not a plain version: {value!r}")
        return value

    def bool(self, key: str, default: bool) -> bool:
        value = self._get(key, False)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(key, "must be true or false")
        return value

    def int(self, key: str, required: bool = True) -> int | None:
        value = self._get(key, required)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise self.fail(key, "must be an integer")
        return value

    def strs(self, key: str, required: bool = True) -> tuple[str, ...]:
        value = self._get(key, required)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, "must be a list of strings")
        return tuple(value)

    def versions(self, key: str, required: bool = True) -> tuple[str, ...]:
        values = self.strs(key, required)
        for v in values:
            if not re.fullmatch(r"\d+(\.\d+)*", v):
                raise self.fail(key, f"not a plain version: {v!r}")
        return values

    def urls(self, key: str, required: bool = False) -> tuple[str, ...]:
        values = self.strs(key, required)
        if required and not values:
            raise self.fail(key, "must list at least one source URL")
        for v in values:
            if not v.startswith(("https://", "http://")):
                raise self.fail(key, f"not a URL: {v!r}")
        return values

    def date(self, key: str) -> str:
        value = self.str(key)
        if not _DATE_RE.match(value):
            raise self.fail(key, f"must be a date YYYY-MM-DD, got {value!r}")
        return value

    def pins(self, key: str) -> dict[str, str]:
        value = self._get(key, False)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise self.fail(key, "must be a table of version = version")
        return dict(value)

    def arch(self, key: str) -> tuple[str, ...] | None:
        if not self.has(key):
            return None
        values = self.strs(key)
        for v in values:
            if not parse_arch(v):
                raise self.fail(key, f"not an architecture (sm_XY / compute_XY): {v!r}")
        return values

    def sub(self, key: str, index: int | None = None) -> Reader:
        value = self.data[key] if index is None else self.data[key][index]
        where = self._path(key) + (f"[{index}]" if index is not None else "")
        if not isinstance(value, dict):
            raise MatrixError(f"matrices/{self.file}: key '{where}': must be a table")
        return Reader(self.file, value, where)

    def tables(self, key: str) -> list[Reader]:
        value = self._get(key, True)
        if not isinstance(value, list) or not value:
            raise self.fail(key, "must be a non-empty array of tables ([[...]])")
        return [self.sub(key, i) for i in range(len(value))]
