from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.model import Facts
from gpudoctor.snapshot import facts_from_json

DATA = Path(__file__).parent / "data"
FACTS_DIR = DATA / "facts"


def load_facts(name: str) -> Facts:
    path = FACTS_DIR / f"{name}.json"
    return facts_from_json(path.read_text(), str(path))


@pytest.fixture
def facts_fixture():
    return load_facts


@pytest.fixture(autouse=True, scope="session")
def _private_matrix_cache(tmp_path_factory):
    """The suite keeps the matrix cache (gpudoctor/matrix/cache.py) in its own directory, not the user's ~/.cache;
    child processes the tests start inherit it through the environment."""
    import os

    previous = os.environ.get("GPUDOCTOR_CACHE_DIR")
    os.environ["GPUDOCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("gpudoctor-cache"))
    yield
    if previous is None:
        os.environ.pop("GPUDOCTOR_CACHE_DIR", None)
    else:
        os.environ["GPUDOCTOR_CACHE_DIR"] = previous


def needs(*modules: str) -> pytest.MarkDecorator:
    """A mark that skips the test, saying why, where one of these Python modules is not installed: the suite follows
    the machine's framework mix (none, torch only, torch and JAX as on the H200 host, all three). Asked with
    importlib.util.find_spec, so nothing is imported (TensorFlow and JAX stay out of the test process)."""
    import importlib.util

    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except (ImportError, ValueError):
            return True

    missing = [m for m in modules if absent(m)]
    return pytest.mark.skipif(bool(missing), reason=f"needs {' and '.join(missing)}, not installed here")


def nvidia_gpus_here() -> tuple[str, ...]:
    """The NVIDIA GPUs this machine has, as `nvidia-smi -L` names them (independent of gpudoctor's own probes).
    Empty on a machine without nvidia-smi or without a GPU. Tests whose expectation depends on the machine ask this,
    so the suite passes on a GPU host as well as on the CPU-only machines it is built on."""
    import re
    import shutil
    import subprocess

    smi = shutil.which("nvidia-smi")
    if smi is None:
        return ()
    try:
        done = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(m.group(1) for m in re.finditer(r"^GPU \d+: (.+?) \(UUID", done.stdout, re.MULTILINE)) if done.returncode == 0 else ()


def cuda_devices_torch_sees() -> int | None:
    """How many CUDA devices torch can use here, asked in a child process (CUDA initialised in the test process
    would make later forks unsafe). None when torch is not installed or the child fails. nvidia-smi listing a GPU is
    not the same: a fake nvidia-smi or NVML (tests/data/fakebin, tests/fake_nvml_lib.py), or a driver too old for
    this torch build, lists a GPU that CUDA cannot use."""
    import subprocess
    import sys

    code = "import torch; print(torch.cuda.device_count())"
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    last = done.stdout.strip().splitlines()[-1:] if done.returncode == 0 else []
    return int(last[0]) if last and last[0].isdigit() else None


def pytest_collection_modifyitems(config, items):
    marked = {name: [i for i in items if i.get_closest_marker(name)] for name in ("gpu", "no_gpu")}
    gpus = nvidia_gpus_here() if marked["gpu"] or marked["no_gpu"] else ()
    for item in marked["no_gpu"]:
        if gpus:
            item.add_marker(pytest.mark.skip(reason="states what a machine without a GPU sees; this one has a GPU"))
    if not marked["gpu"]:
        return
    if not gpus:
        reason = "needs an NVIDIA GPU (nvidia-smi -L lists none)"
    else:
        usable = cuda_devices_torch_sees()  # asked only where nvidia-smi lists a GPU: a CPU-only run pays nothing
        if usable:
            return
        seen = "torch.cuda sees no device" if usable == 0 else "torch could not be asked (not installed, or import failed)"
        reason = (f"needs a GPU that CUDA can use: nvidia-smi lists {', '.join(gpus)} but {seen} "
                  "(a fake GPU, or a driver this torch cannot use)")
    for item in marked["gpu"]:
        item.add_marker(pytest.mark.skip(reason=reason))


# TensorFlow, JAX and torch (with triton) abort the interpreter when loaded into one process; the suite imports torch
# in-process for the GPU-code-on-CPU tests, so TensorFlow and JAX may only run in child processes. A test that loads
# either here fails at once, naming itself, instead of aborting a later test (pytest.importorskip imports the module).
@pytest.fixture(autouse=True)
def _tensorflow_and_jax_stay_in_child_processes(request):
    import sys

    before = {name for name in ("tensorflow", "jax") if name in sys.modules}
    yield
    loaded = sorted(name for name in ("tensorflow", "jax") if name in sys.modules and name not in before)
    assert not loaded, f"{request.node.nodeid} imported {loaded} into the test process: run it in a child process"
