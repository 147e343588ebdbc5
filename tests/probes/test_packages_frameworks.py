"""Python packages and framework builds, read from files without importing the frameworks."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.errors import ProbeFailed
from gpudoctor.probes.frameworks import literal_assignments, probe_tensorflow, probe_torch
from gpudoctor.probes.packages import probe_python_packages


def test_packages_from_dist_info_names(tmp_path):
    for folder in ("torch-2.5.1+cu124.dist-info", "nvidia_cudnn_cu12-9.1.0.70.dist-info", "tensorflow_cpu-2.16.1.dist-info",
                   "requests-2.32.0.dist-info", "Keras-3.3.3.dist-info"):
        (tmp_path / folder).mkdir()
    packages = probe_python_packages([str(tmp_path)])
    assert packages["torch"] == "2.5.1+cu124"
    assert packages["tensorflow-cpu"] == "2.16.1"
    assert packages["keras"] == "3.3.3"
    assert packages["nvidia-cudnn-cu12"] == "9.1.0.70"
    assert packages["tensorflow"] is None  # looked for, not installed
    assert "requests" not in packages


def test_first_path_entry_wins(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a/torch-2.7.1.dist-info").mkdir()
    (tmp_path / "b/torch-2.0.0.dist-info").mkdir()
    assert probe_python_packages([str(tmp_path / "a"), str(tmp_path / "b")])["torch"] == "2.7.1"


def test_torch_version_py_is_parsed_not_executed(tmp_path):
    (tmp_path / "version.py").write_text(
        "from typing import Optional\nimport os\nos.system('exit 1')\n"
        "__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\nhip: Optional[str] = None\n"
    )
    build = probe_torch(tmp_path)
    assert (build.version, build.cuda, build.hip) == ("2.5.1+cu124", "12.4", None)


def test_torch_cpu_build(tmp_path):
    (tmp_path / "version.py").write_text("__version__ = '2.13.0+cpu'\ncuda = None\n")
    assert probe_torch(tmp_path).cuda is None


@pytest.mark.parametrize("content", ["this is not python (", "x = 1\n"])
def test_broken_torch_version_file_is_a_probe_failure(tmp_path, content):
    (tmp_path / "version.py").write_text(content)
    with pytest.raises(ProbeFailed):
        probe_torch(tmp_path)


def test_tensorflow_build_info_ordered_dict(tmp_path):
    info = tmp_path / "python/platform"
    info.mkdir(parents=True)
    (info / "build_info.py").write_text(
        "import collections\n"
        "build_info = collections.OrderedDict([('cuda_compute_capabilities', ['sm_60', 'sm_70', 'compute_90']),"
        " ('cuda_version', '12.3.2'), ('cudnn_version', '8'), ('is_cuda_build', True)])\n"
    )
    build = probe_tensorflow(tmp_path, version="2.16.1")
    assert (build.version, build.cuda, build.cudnn, build.is_cuda_build) == ("2.16.1", "12.3", "8", True)
    assert build.compute_capabilities == ("sm_60", "sm_70", "compute_90")


def test_real_installed_frameworks_are_read_without_import():
    # A fresh interpreter: in this one an earlier test may already have imported a framework.
    code = (
        "import sys, json; from gpudoctor.probes.frameworks import probe_torch, probe_tensorflow; "
        "t = probe_torch(); probe_tensorflow(version='x'); "
        "print(json.dumps([t and t.version, t and t.path, 'torch' in sys.modules, 'tensorflow' in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    version, path, imported_torch, imported_tf = json.loads(out)
    assert (imported_torch, imported_tf) == (False, False)
    try:
        installed = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        assert version is None
    else:  # the probe reads torch/version.py, which carries the local build tag (+cpu, +cu126) that metadata may too
        assert version.split("+")[0] == installed.split("+")[0] and Path(path).is_dir()


def test_literal_assignments_skip_calls(tmp_path):
    (tmp_path / "m.py").write_text("a = 1\nb = compute()\nc: int = 3\n")
    assert literal_assignments(tmp_path / "m.py") == {"a": 1, "c": 3}
