"""Compiled code of the methods that ``@dataclass`` generates, kept on disk between runs of the CLI.

On Python 3.10-3.12, ``@dataclass`` writes the source of each method it adds (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, and ``__setattr__``/``__delattr__`` for a frozen class) and runs it with ``exec``, which compiles it
first: about 0.15 ms a method, 0.9 ms a frozen class, 35-45 ms for the ~50 classes a `gpudoctor check` run defines,
the largest single cost of the run (measured with benchmarks/bench_check.py; README "Speed").

Compiling the same text always gives the same code object, so :func:`install` gives the ``dataclasses`` module its
own ``exec`` (a module global shadows the builtin for that module only) that looks the text up in a table of code
objects compiled by an earlier run and runs that instead. The classes come out the same in every respect (the same
functions, signatures, ``__doc__``, equality, hashing, repr and frozenness; tests/test_dataclass_code.py compares them
with ones made by the plain decorator); only the compiler is skipped. The table is keyed by the exact text and
stored per interpreter build (marshal's format is private to a version); an entry another user could have written is
ignored (gpudoctor.cachefiles), and a file that does not decode is rebuilt. Only the CLI installs it.
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path
from types import CodeType
from typing import Any

_HEADER = b"gpudoctor dataclass code\0" + sys.version.encode() + b"\0"
# A `check` run uses ~250 entries, all commands together a few hundred. Past this many (old releases' methods piling
# up over upgrades), a run that has to write keeps only the entries it used itself.
_MAX_ENTRIES = 1000


class CodeTable:
    """Source text -> code object, loaded from one file; what a run compiles anew is written back at exit."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.codes: dict[str, CodeType] = _read(path) if path is not None else {}
        self.used: set[str] = set()
        self.added = 0

    def exec(self, source: Any, globals: dict[str, Any] | None = None, locals: Any = None) -> None:
        """The builtin ``exec`` for dataclasses' generated source, compiling each text once per interpreter.
        dataclasses always passes its globals; without them the caller's scope is used, as the builtin would."""
        if globals is None:
            caller = sys._getframe(1)
            globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
        if type(source) is not str:
            return exec(source, globals, locals)
        code = self.codes.get(source)
        if code is None:
            # dont_inherit: compile as dataclasses.py's own exec() would, with no __future__ flags of this module
            code = compile(source, "<string>", "exec", dont_inherit=True)
            self.codes[source] = code
            self.added += 1
        self.used.add(source)
        exec(code, globals, locals)

    def save(self) -> None:
        """Write the table back when this run compiled something (never when every method was found)."""
        if not self.added or self.path is None:
            return
        from .cachefiles import write_atomic

        codes = self.codes
        if len(codes) > _MAX_ENTRIES:
            codes = {text: code for text, code in codes.items() if text in self.used}
        write_atomic(self.path.parent, self.path.name, _HEADER + marshal.dumps(codes))
        self.added = 0


def install(cache_directory: Path | None, command: str = "") -> CodeTable | None:
    """Give ``dataclasses`` the caching exec for the rest of this process, and save new entries at exit; None
    when it is off (no cache directory) or the module already has an ``exec`` of its own (someone else's).
    ``command`` (the CLI's subcommand) picks a table of its own: `check` then reads only its own ~500 methods, not
    the classes of verify, bench or fleet as well."""
    import dataclasses

    if cache_directory is None or "exec" in vars(dataclasses):
        return None
    suffix = f"-{command}" if command.isidentifier() else ""
    table = CodeTable(cache_directory / f"dataclass-code-{sys.implementation.cache_tag}{suffix}.marshal")
    dataclasses.exec = table.exec  # type: ignore[attr-defined]

    import atexit

    atexit.register(table.save)
    return table


def import_dataclasses_without_inspect() -> None:
    """Import ``dataclasses`` with a stand-in for its ``inspect``, which imports the real module on first use.

    dataclasses uses inspect for one thing, the ``__doc__`` of a class that has none (every dataclass of gpudoctor
    has one: tests/test_architecture.py), yet importing inspect pulls in ast, dis, tokenize and linecache: ~8 ms of
    a ~70 ms run. The stand-in is dataclasses' own global only; it is out of ``sys.modules`` again before
    anything else runs, so every other ``import inspect`` gets the real module. (importlib's LazyLoader cannot do
    this on 3.11: the import statement itself reads the lazy module's ``__spec__`` and so loads it.)
    A no-op where dataclasses or inspect is already imported."""
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        return
    from types import ModuleType

    stand_in = ModuleType("inspect", "dataclasses' inspect: the real module, imported on first use")

    def __getattr__(name: str) -> Any:
        import importlib

        return getattr(importlib.import_module("inspect"), name)

    stand_in.__getattr__ = __getattr__  # type: ignore[attr-defined]  # PEP 562
    sys.modules["inspect"] = stand_in
    try:
        import importlib

        importlib.import_module("dataclasses")
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]


def uninstall() -> None:
    import dataclasses

    vars(dataclasses).pop("exec", None)


def _read(path: Path) -> dict[str, CodeType]:
    from .cachefiles import read_private

    data = read_private(path)
    if data is None or not data.startswith(_HEADER):
        return {}
    try:
        table = marshal.loads(data[len(_HEADER):])
    except (ValueError, EOFError, TypeError):  # truncated or not marshal data
        return {}
    if type(table) is not dict:
        return {}
    return {text: code for text, code in table.items() if type(text) is str and type(code) is CodeType}
