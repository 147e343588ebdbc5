"""The rules of DESIGN.md that import-linter cannot say, checked on the source. The layers, the independences and
the absence of circles are import-linter's contracts ([tool.importlinter] in pyproject.toml, docs/architecture.md;
`lint-imports` in .ci/run): what is here is about calls, names, where a framework is imported and docstrings."""

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


JUDGING = (sorted((PACKAGE / "checks").glob("*.py")) + sorted((PACKAGE / "matrix" / "solver").glob("*.py"))
           + [PACKAGE / "bench" / "assess.py", PACKAGE / "matrix" / "tables" / "gpu_specs.py"]
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


# Names that several modules share because they are the same concept, each seen from its own layer or framework.
# Everything else must have one meaning: grepping a name must not land on the wrong thing.
SHARED_MODULE_NAMES = {
    "__init__",  # every package has one
    # One subject, one module per layer: probes/readers observe it, matrix/ holds its data, checks/ judge it.
    "amd", "arch", "frameworks", "jax", "keras", "kernel_log", "messages", "packages", "platforms", "versions", "xid",
    # verify's cases, one module per job for each framework (tf_cases/ and jax_cases/ mirror each other; torch's
    # model and device live in workloads/, which bench shares); bench's measures/training.py times the same CNN.
    "case", "checks", "device", "models", "training",
    # Each package that measures in child processes has the same three jobs: assess (pure judging), child (the
    # parent side), worker (the child's entry point): bench/, verify/ (and verify/multigpu/ for assess).
    "assess", "child", "worker",
    "model",  # a package's own dataclasses (matrix rows, verify/bench/multigpu results, fleet reports)
    "render",  # a package's renderer: returns strings (envgen: files from templates; verify: the results text)
}
SHARED_CLASS_NAMES: dict[str, str] = {  # name -> why it is one concept
    "PlacementLog": "where a training loop's batches and outputs lived, one per framework's case package "
                    "(torch_cases/, jax_cases/), the same job in each framework's own tensor API",
}


def duplicates(package: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    classes: dict[str, list[str]] = {}
    modules: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        where = str(path.relative_to(package))
        modules.setdefault(path.stem, []).append(where)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, []).append(f"{where}:{node.lineno}")
    return ({k: v for k, v in classes.items() if len(v) > 1}, {k: v for k, v in modules.items() if len(v) > 1})


def test_no_two_classes_share_a_name():
    classes, _ = duplicates(PACKAGE)
    assert {k: v for k, v in classes.items() if k not in SHARED_CLASS_NAMES} == {}


def test_no_two_modules_share_a_name_for_different_things():
    _, modules = duplicates(PACKAGE)
    assert sorted(set(modules) - SHARED_MODULE_NAMES) == []


def test_the_duplicate_scan_sees_a_violation(tmp_path):
    (tmp_path / "envgen").mkdir()
    (tmp_path / "verify").mkdir()
    (tmp_path / "envgen" / "plan.py").write_text("class Plan:\n    pass\n")
    (tmp_path / "verify" / "plan.py").write_text("import x\n\nclass Plan:\n    pass\n")
    assert duplicates(tmp_path) == ({"Plan": ["envgen/plan.py:1", "verify/plan.py:3"]},
                                    {"plan": ["envgen/plan.py", "verify/plan.py"]})



def _module_file(dotted: str) -> Path | None:
    base = PACKAGE.parent.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _top_level_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    if "__getattr__" in names:  # a lazy package (gpudoctor/matrix): the names its table of lazy attributes lists
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names.update(k.value for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
                     for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
    return names


def test_every_gpudoctor_import_names_a_module_and_a_name_that_exist():
    """A module renamed or a class renamed leaves no stale import behind, in any module or test. Checked statically:
    pyflakes does not see a missing module, the child processes that import some of these modules run only in the
    slow tests, and importing every module into one process would load torch, TensorFlow and JAX together."""
    stale = []
    for path in sorted(PACKAGE.rglob("*.py")) + sorted((PACKAGE.parent / "tests").rglob("*.py")):
        package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                if not base.startswith("gpudoctor"):
                    continue
                module = _module_file(base)
                if module is None:
                    stale.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: no module {base}")
                    continue
                defined = _top_level_names(module)
                stale += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {base} has no {a.name}"
                          for a in node.names if a.name != "*" and a.name not in defined and _module_file(f"{base}.{a.name}") is None]
            elif isinstance(node, ast.Import):
                stale += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: no module {a.name}"
                          for a in node.names if a.name.startswith("gpudoctor") and _module_file(a.name) is None]
    assert stale == []


FRAMEWORKS = ("torch", "tensorflow", "keras", "jax", "torchvision")


def test_frameworks_are_imported_at_module_level_only_by_child_process_modules():
    """Frameworks load only in child processes (DESIGN rule 5). A module that imports one at its top may only be a
    child's own code: verify's per-framework case packages, torch's model and device in workloads/ and the workers
    they are started as. Everything else (bench's measurements included) imports a framework inside the function
    that runs in the child."""
    child_only = ("verify/torch_cases/", "verify/tf_cases/", "verify/jax_cases/", "workloads/torch_models.py",
                  "workloads/torch_device.py")
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where.startswith(child_only) or where.endswith("_worker.py"):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # top-level statements only
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            offenders += [f"{where}:{node.lineno}: {n}" for n in names if n.split(".")[0] in FRAMEWORKS]
    assert offenders == []


def test_importing_the_bench_measurements_loads_no_framework():
    import subprocess
    import sys

    code = ("import sys, gpudoctor.bench.measures, gpudoctor.workloads.allreduce; "
            f"print(sorted(m for m in {FRAMEWORKS!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True,
                          cwd=PACKAGE.parent)
    assert done.stdout.strip() == "[]"


def _is_dataclass_decorator(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Name) and target.id == "dataclass") or (
        isinstance(target, ast.Attribute) and target.attr == "dataclass")


def undocumented_dataclasses(package: Path) -> list[str]:
    undocumented = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.ClassDef) and any(map(_is_dataclass_decorator, node.decorator_list))
                    and ast.get_docstring(node) is None):
                undocumented.append(f"{path.relative_to(package).as_posix()}:{node.lineno} {node.name}")
    return undocumented


def test_every_dataclass_has_a_docstring():
    # Without a docstring @dataclass makes a __doc__ of the class's signature, which says nothing a reader needs.
    # Say in a line what the class is.
    undocumented = undocumented_dataclasses(PACKAGE)
    assert undocumented == [], "these dataclasses have no docstring: give each a one-line docstring: " + (
        ", ".join(undocumented))


def test_the_docstring_scan_sees_a_violation(tmp_path):
    (tmp_path / "plain.py").write_text(
        "import dataclasses\nfrom dataclasses import dataclass\n\n@dataclass\nclass Bare:\n    x: int\n\n"
        "@dataclasses.dataclass(frozen=True)\nclass AlsoBare:\n    x: int\n\n"
        "@dataclass\nclass Documented:\n    \"\"\"A thing.\"\"\"\n\nclass NotADataclass:\n    pass\n")
    assert undocumented_dataclasses(tmp_path) == ["plain.py:5 Bare", "plain.py:9 AlsoBare"]
