"""Install commands for THIS machine, computed by the solver when the matrix is loaded (a fix names the exact
release to install), with the framework's own selector page as the fallback when it is not."""

from __future__ import annotations

from ..model import Facts, Fix

TORCH_GET_STARTED = "https://pytorch.org/get-started/locally/"
TF_PIP = "https://www.tensorflow.org/install/pip"


def install_fix(facts: Facts, matrix: object, framework: str, summary: str, uninstall: tuple[str, ...] = ()) -> Fix:
    url = TORCH_GET_STARTED if framework == "torch" else TF_PIP
    choice = _solve(facts, matrix, framework)
    if choice is None:
        generic = "pip install torch --index-url https://download.pytorch.org/whl/<cuXXX>" if framework == "torch" else "pip install 'tensorflow[and-cuda]'"
        return Fix(summary + " (pick the CUDA variant on the selector page)", (*uninstall, generic), url)
    return Fix(f"{summary}: {choice.framework} {choice.version} ({choice.variant})", (*uninstall, pip_command(choice)), url)


def pip_command(choice: object) -> str:
    packages = " ".join(_quote(p) for p in choice.packages)  # type: ignore[attr-defined]
    index = f" --index-url {choice.index_url}" if choice.index_url else ""  # type: ignore[attr-defined]
    return f"pip install {packages}{index}"


def _quote(requirement: str) -> str:
    return f"'{requirement}'" if any(c in requirement for c in "[]<>*") else requirement


def _solve(facts: Facts, matrix: object, framework: str) -> object | None:
    if matrix is None:
        return None
    try:
        from ..matrix.solver import solve, target_from_facts
    except ImportError:
        return None
    try:
        return solve(matrix, target_from_facts(facts, matrix), framework)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - NoFit or a gap in the matrix: fall back to the selector page
        return None
