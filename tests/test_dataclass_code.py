"""The compiled-dataclass-method cache (gpudoctor/dataclass_code.py): classes made through it are the classes the
plain decorator makes, a second run compiles nothing, and a broken or foreign table file only costs a rebuild.

Each run happens in a child process, so this test process's dataclasses module and classes are never touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor import dataclass_code
from gpudoctor.dataclass_code import _HEADER, CodeTable

ROOT = Path(__file__).resolve().parent.parent

# Imports every gpudoctor module that defines dataclasses (not the framework-importing smoke-test cases), optionally
# with the cache installed, and prints a fingerprint of every generated method: its code object (marshal: bytecode,
# constants, names, line table, file name), defaults, annotations, and the class's __doc__ and signature.
_FINGERPRINT = r"""
import dataclasses, importlib, inspect, json, marshal, pkgutil, sys
from pathlib import Path
table = None
if sys.argv[1] == "cached":
    from gpudoctor.dataclass_code import install
    table = install(Path(sys.argv[2]))
import gpudoctor
names = sorted(m.name for m in pkgutil.walk_packages(gpudoctor.__path__, "gpudoctor.")
               if "_cases" not in m.name and not m.name.endswith("__main__"))
if sys.argv[3] == "model":
    names = ["gpudoctor.model.facts", "gpudoctor.model.node_health", "gpudoctor.model.report"]
for name in names:
    importlib.import_module(name)
def _default(field):  # MISSING and factories print with their addresses, which differ between processes
    if field.default is not dataclasses.MISSING:
        return repr(field.default)
    return getattr(field.default_factory, "__qualname__", "MISSING")
out = {}
for name in names:
    for attr, cls in sorted(vars(sys.modules[name]).items()):
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == name):
            continue
        methods = {}
        for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
            fn = cls.__dict__.get(method)
            fn = getattr(fn, "__wrapped__", fn)  # __repr__ is wrapped by reprlib.recursive_repr
            if fn is None or not hasattr(fn, "__code__"):
                methods[method] = repr(fn)
                continue
            methods[method] = [marshal.dumps(fn.__code__).hex(), repr(fn.__defaults__), repr(fn.__kwdefaults__),
                               repr(fn.__annotations__), fn.__qualname__]
        params = dataclasses.fields(cls)
        out[f"{name}.{attr}"] = [methods, cls.__doc__, str(inspect.signature(cls)),
                                 [(f.name, _default(f), f.compare, f.hash) for f in params],
                                 cls.__dataclass_params__.frozen]
print(json.dumps({"classes": out, "added": table.added if table else None}))
"""


def fingerprint(mode: str, where: Path, modules: str = "all") -> dict:
    """``modules``: "all" (every module with dataclasses) or "model" (gpudoctor.model only: quicker)."""
    done = subprocess.run([sys.executable, "-c", _FINGERPRINT, mode, str(where), modules], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def table_file(where: Path, command: str = "") -> Path:
    return where / f"dataclass-code-{sys.implementation.cache_tag}{'-' + command if command else ''}.marshal"


@pytest.fixture(scope="module")
def plain_and_cached(tmp_path_factory):
    where = tmp_path_factory.mktemp("dataclass-code")
    plain = fingerprint("plain", where)
    first = fingerprint("cached", where)  # compiles and stores
    second = fingerprint("cached", where)  # reads every method from the table
    return plain, first, second, where


def test_classes_made_through_the_cache_are_the_plain_decorators_classes(plain_and_cached):
    plain, first, second, _ = plain_and_cached
    assert len(plain["classes"]) > 50  # the model, the matrix, the checks, the runner...
    assert first["classes"] == plain["classes"]
    assert second["classes"] == plain["classes"]


def test_the_first_run_stores_the_methods_and_the_second_compiles_none(plain_and_cached):
    _, first, second, where = plain_and_cached
    assert first["added"] > 5 * 50  # several methods for each class
    assert second["added"] == 0
    assert table_file(where).read_bytes().startswith(_HEADER)


@pytest.mark.parametrize("content", [b"", b"not marshal at all", _HEADER + b"\xff\x00 truncated", _HEADER[:-3]],
                         ids=["empty", "foreign", "truncated", "other-interpreter"])
def test_a_broken_table_is_rebuilt_and_the_classes_are_still_right(plain_and_cached, tmp_path, content):
    plain = plain_and_cached[0]
    table_file(tmp_path).write_bytes(content)
    again = fingerprint("cached", tmp_path, "model")
    assert again["classes"] == {name: cls for name, cls in plain["classes"].items() if name.startswith("gpudoctor.model.")}
    assert again["added"] > 5 * 20  # nothing was taken from the broken file
    assert fingerprint("cached", tmp_path, "model")["added"] == 0  # and it was replaced by a good one


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_table_others_could_have_written_is_not_used(plain_and_cached, tmp_path):
    plain, _, _, where = plain_and_cached
    path = table_file(tmp_path)
    path.write_bytes(table_file(where).read_bytes())
    path.chmod(0o666)
    again = fingerprint("cached", tmp_path, "model")
    assert again["added"] > 5 * 20  # the file holds every method, yet each was compiled again
    assert again["classes"] == {name: cls for name, cls in plain["classes"].items() if name.startswith("gpudoctor.model.")}


def test_the_cli_reports_the_same_with_and_without_the_cache(tmp_path):
    facts = ROOT / "tests" / "data" / "facts"
    snapshot = next(iter(sorted(facts.glob("*.json"))))

    def check(cache: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--json", "--from", str(snapshot)],
                              capture_output=True, text=True, timeout=120, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "GPUDOCTOR_CACHE_DIR": cache})
    off = check("")
    cold = check(str(tmp_path))
    warm = check(str(tmp_path))
    assert table_file(tmp_path, "check").exists()
    assert (cold.returncode, cold.stdout) == (warm.returncode, warm.stdout) == (off.returncode, off.stdout)
    assert json.loads(off.stdout)["findings"] is not None


def define(table: CodeTable, name: str) -> object:
    namespace: dict = {}
    table.exec(f"def __create_fn__():\n def {name}(self):\n  return {name!r}\n return {name}", {}, namespace)
    return namespace["__create_fn__"]()


def test_a_run_that_finds_every_method_writes_nothing(tmp_path):
    path = tmp_path / "table.marshal"
    first = CodeTable(path)
    assert define(first, "a")(None) == "a"
    first.save()
    written = path.stat().st_mtime_ns
    path.chmod(0o600)
    second = CodeTable(path)
    assert define(second, "a")(None) == "a"
    second.save()
    assert second.added == 0 and path.stat().st_mtime_ns == written


def test_past_the_limit_a_writing_run_keeps_only_what_it_used(tmp_path, monkeypatch):
    path = tmp_path / "table.marshal"
    old = CodeTable(path)
    for name in ("a", "b", "c"):
        define(old, name)
    old.save()
    monkeypatch.setattr(dataclass_code, "_MAX_ENTRIES", 3)
    run = CodeTable(path)
    define(run, "a")
    define(run, "d")  # new: this run writes
    run.save()
    assert sorted(text.split("def ")[2].split("(")[0] for text in CodeTable(path).codes) == ["a", "d"]


# -- dataclasses imported without inspect: paid for only when something uses it -----------------------------------

_DEFERRED = r"""
import sys
from gpudoctor.dataclass_code import import_dataclasses_without_inspect
import_dataclasses_without_inspect()
import dataclasses
print("loaded after import:", "inspect" in sys.modules, "ast" in sys.modules)
@dataclasses.dataclass(frozen=True)
class Documented:
    "Has its own docstring."
    x: int
print("loaded after a documented class:", "inspect" in sys.modules, "ast" in sys.modules)
@dataclasses.dataclass
class Bare:
    x: int
    y: str = "a"
print("bare doc:", Bare.__doc__)
import inspect
print("signature:", inspect.signature(Bare), inspect is sys.modules["inspect"], hasattr(inspect, "getsource"))
"""


def test_dataclasses_without_inspect_loads_it_only_for_a_class_without_docstring_then_in_full():
    out = subprocess.run([sys.executable, "-c", _DEFERRED], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.splitlines() == [
        "loaded after import: False False",
        "loaded after a documented class: False False",
        "bare doc: Bare(x: int, y: str = 'a')",  # what the plain decorator writes
        "signature: (x: int, y: str = 'a') -> None True True",
    ]


def test_a_check_run_never_loads_inspect(tmp_path):
    """Every dataclass a `check` run defines carries a docstring: one without makes dataclasses call
    inspect.signature for its __doc__, and the import of inspect (with dis, tokenize) is paid again."""
    code = ("import atexit, sys\nsys.argv = ['gpudoctor', 'check', '--json']\nfrom gpudoctor.cli import run\n"
            "atexit.register(lambda: print('inspect' in sys.modules, file=sys.stderr))\nrun()\n")
    env = {**os.environ, "GPUDOCTOR_CACHE_DIR": str(tmp_path)}
    for _ in range(2):  # the first run fills the caches, the second is the everyday run
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
    assert done.stderr.splitlines()[-1] == "False"


def test_each_command_keeps_its_own_table(tmp_path):
    """A check run reads only the methods of the classes a check defines, not verify's, bench's or fleet's."""
    env = {**os.environ, "GPUDOCTOR_CACHE_DIR": str(tmp_path)}
    for argv in (["check", "--json"], ["matrix", "cuda", "12.8"]):
        subprocess.run([sys.executable, "-m", "gpudoctor", *argv], capture_output=True, cwd=ROOT, env=env, check=False)
    tag = sys.implementation.cache_tag
    assert sorted(p.name for p in tmp_path.glob("dataclass-code-*")) == [
        f"dataclass-code-{tag}-check.marshal", f"dataclass-code-{tag}-matrix.marshal"]


def test_the_command_names_are_the_click_groups():
    from gpudoctor.cli import COMMAND_NAMES
    from gpudoctor.cli.group import _COMMANDS

    assert set(COMMAND_NAMES) == set(_COMMANDS)
