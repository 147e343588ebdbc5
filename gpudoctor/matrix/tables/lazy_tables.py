"""The Matrix's table fields, unpickled only when read: the disk cache (gpudoctor.matrix.tables.cache) keeps each table as its
own pickle (Matrix.__getstate__), so loading the matrix imports no table module until a check or query reads it."""

from __future__ import annotations

from typing import Any

_PICKLED = "_pickled_tables"  # the instance key of the tables not unpickled yet (name -> pickle)


class _Table:
    """A table field of Matrix (a dataclass field whose default is this descriptor's class-level value: None, or
    ``default``). Set by __init__ as any field; read, it returns the table, unpickling it first where the matrix came
    from the disk cache with the table still pickled (Matrix.__getstate__)."""

    def __init__(self, default: Any = None) -> None:
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, matrix: Any, owner: type | None = None) -> Any:
        if matrix is None:
            return self.default  # the field's default
        values = matrix.__dict__
        if self.name not in values:
            import pickle

            values[self.name] = pickle.loads(values[_PICKLED].pop(self.name))
        return values[self.name]

    def __set__(self, matrix: Any, value: Any) -> None:
        matrix.__dict__[self.name] = value
