"""How gpudoctor starts its child processes: ``python /path/to/gpudoctor/child_start.py MODULE ARGS...`` runs
MODULE as ``python -m MODULE ARGS...`` would, with two guarantees:

- the child imports this very gpudoctor, loaded from the directory this file lies in, wherever the parent was
  started from (a source checkout, a wheel, an editable install);
- every other module (torch, tensorflow, jax, numpy ...) is imported as the user's own ``python -c "import torch"``
  imports it: PYTHONPATH, the user site and site-packages keep their order, and nothing of gpudoctor's is put in
  front of them. (Putting gpudoctor's directory first on PYTHONPATH, as verify once did, made a venv's torch win
  over a torch the user had first on PYTHONPATH, and verify then tested a torch the user does not import.)

Python puts this script's directory first on sys.path; it is replaced by the working directory, as ``-m`` has it,
before anything else is imported. Standard library only until gpudoctor is loaded."""

from __future__ import annotations

import importlib.util
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def argv(module: str, *args: str) -> list[str]:
    """The command line that runs ``module`` (a gpudoctor module, or any module such as torch.distributed.run)."""
    return [sys.executable, os.path.join(HERE, "child_start.py"), module, *args]


def _load_gpudoctor() -> None:
    spec = importlib.util.spec_from_file_location("gpudoctor", os.path.join(HERE, "__init__.py"),
                                                  submodule_search_locations=[HERE])  # fmt: skip
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpudoctor"] = module
    spec.loader.exec_module(module)


def main() -> None:
    if sys.path and os.path.realpath(sys.path[0] or ".") == os.path.realpath(HERE):
        sys.path[0] = os.getcwd()
    if len(sys.argv) < 2:
        sys.exit("usage: python child_start.py MODULE [ARGS...]")
    _load_gpudoctor()
    module = sys.argv[1]
    del sys.argv[1]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
