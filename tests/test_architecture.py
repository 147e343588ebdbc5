"""The rules in DESIGN.md that keep the layers apart, checked on the source so a violation fails here first."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gpudoctor"

# Modules through which code reads the machine: the file system, processes, the environment, the packaged data,
# devices, the frameworks themselves.
OBSERVING_MODULES = {"os", "pathlib", "subprocess", "glob", "shutil", "socket", "ctypes", "io", "tempfile", "platform",
                     "psutil", "pynvml", "torch", "tensorflow", "importlib"}
OBSERVING_PACKAGE_PARTS = {"probes", "resources", "runner", "evidence"}
OBSERVING_CALLS = {"open", "load_matrix", "input", "exec", "eval", "__import__"}


def imported_names(tree: ast.AST, module_path: Path, package: Path = PACKAGE) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the package so `..probes` reads gpudoctor.probes
                parts = module_path.relative_to(package.parent).with_suffix("").parts[: -node.level]
                base = ".".join((*parts, base)) if base else ".".join(parts)
                names |= {f"{base}.{alias.name}" for alias in node.names}
            names.add(base)
    return names


def called_names(tree: ast.AST) -> set[str]:
    calls = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            calls.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
    return calls


def observing(path: Path, package: Path = PACKAGE) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for name in sorted(imported_names(tree, path, package)):
        parts = name.split(".")
        if parts[0] in OBSERVING_MODULES or (parts[0] == "gpudoctor" and OBSERVING_PACKAGE_PARTS & set(parts[1:2])):
            found.append(f"imports {name}")
    found += [f"calls {name}()" for name in sorted(called_names(tree) & OBSERVING_CALLS)]
    return found


JUDGING = (sorted((PACKAGE / "checks").glob("*.py")) + sorted((PACKAGE / "matrix").glob("*solve*.py"))
           + [PACKAGE / "bench" / "assess.py", PACKAGE / "matrix" / "gpu_specs.py"]
           + [PACKAGE / "fleet" / name for name in ("digest.py", "drift.py", "aggregate.py", "model.py")])


@pytest.mark.parametrize("path", JUDGING, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_checks_and_the_solver_judge_and_never_observe(path):
    assert observing(path) == []


def test_the_scan_sees_a_violation(tmp_path):
    # The scan must be able to fail: a check that reads the environment and loads the matrix behind the caller's back.
    package = tmp_path / "gpudoctor"
    (package / "checks").mkdir(parents=True)
    bad = package / "checks" / "bad.py"
    bad.write_text("import os\nfrom ..matrix import load_matrix\nfrom ..probes import collect\n\n"
                   "def rule(facts, matrix):\n    return load_matrix(), os.environ\n")
    assert observing(bad, package) == ["imports gpudoctor.probes", "imports gpudoctor.probes.collect", "imports os",
                                       "calls load_matrix()"]


def test_no_module_is_longer_than_300_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 300}
    assert long == {}
