"""PyTorch and TensorFlow build information, read from their own files without importing them.

torch/version.py and tensorflow/python/platform/build_info.py are generated at build time and hold plain
literals, so ``ast`` can read them safely; they are parsed, never executed. Importing either framework costs
seconds and may crash: that only happens with ``check --deep``, in a child process (probes/deep.py).
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from typing import Any

from ..errors import ProbeFailed
from ..model import TensorflowBuild, TorchBuild


def package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)  # for a top-level package this locates it without running it
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def probe_torch(root: Path | None = None) -> TorchBuild | None:
    """None when torch is not installed."""
    root = package_dir("torch") if root is None else root
    if root is None:
        return None
    values = literal_assignments(root / "version.py")
    version = values.get("__version__")
    if not isinstance(version, str):
        raise ProbeFailed(f"{root / 'version.py'} has no __version__")
    return TorchBuild(
        version=version,
        cuda=_str_or_none(values.get("cuda")),
        hip=_str_or_none(values.get("hip")),
        path=str(root),
    )


def probe_tensorflow(root: Path | None = None, version: str | None = None) -> TensorflowBuild | None:
    """None when tensorflow is not installed. ``version`` comes from the distribution (python_packages)."""
    root = package_dir("tensorflow") if root is None else root
    if root is None:
        return None
    info = literal_assignments(root / "python" / "platform" / "build_info.py").get("build_info")
    if not isinstance(info, dict):
        raise ProbeFailed(f"{root / 'python/platform/build_info.py'} has no build_info")
    capabilities = info.get("cuda_compute_capabilities")
    return TensorflowBuild(
        version=version,
        is_cuda_build=bool(info.get("is_cuda_build", False)),
        cuda=_short_version(info.get("cuda_version")),
        cudnn=_str_or_none(info.get("cudnn_version")),
        compute_capabilities=tuple(capabilities) if isinstance(capabilities, list) else None,
        path=str(root),
    )


def literal_assignments(path: Path) -> dict[str, Any]:
    """Module-level ``name = <literal>`` (and annotated) assignments of a Python file, evaluated as literals only.

    Understands ``collections.OrderedDict([...])``, which TensorFlow's build_info.py uses."""
    try:
        tree = ast.parse(path.read_text(), filename=str(path))
    except OSError as exc:
        raise ProbeFailed(f"cannot read {path}: {exc.strerror}") from None
    except SyntaxError as exc:
        raise ProbeFailed(f"cannot parse {path}: {exc.msg}") from None
    values: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target, value = node.target.id, node.value
        else:
            continue
        try:
            values[target] = _literal(value)
        except ValueError:
            continue  # not a literal (e.g. a function call we do not know): skipped, never executed
    return values


def _literal(node: ast.expr) -> Any:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, (ast.Attribute, ast.Name))
        and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) in ("OrderedDict", "dict")
        and len(node.args) == 1
    ):
        return dict(ast.literal_eval(node.args[0]))
    return ast.literal_eval(node)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _short_version(value: Any) -> str | None:
    """'12.5.1' -> '12.5': the granularity the compatibility rules work at."""
    if not isinstance(value, str) or not value:
        return None
    return ".".join(value.split(".")[:2])
