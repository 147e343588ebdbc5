"""verify's child imports the framework the user's Python imports: gpudoctor is loaded in the child from its own
directory (gpudoctor/child_start.py), never by putting that directory in front of the user's PYTHONPATH, and the
report names the package that was tested."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from gpudoctor import child_start
from gpudoctor.verify.child import child_env
from tests.conftest import needs
from tests.verify.helpers import ROOT, cli_json, only


def test_child_env_leaves_pythonpath_as_the_user_set_it(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/opt/modules/pytorch/lib/python3/site-packages")
    assert child_env()["PYTHONPATH"] == "/opt/modules/pytorch/lib/python3/site-packages"
    monkeypatch.delenv("PYTHONPATH")
    assert "PYTHONPATH" not in child_env()


def test_child_start_runs_a_module_with_this_gpudoctor_and_the_users_path_order(tmp_path):
    shadow = tmp_path / "shadow"
    (shadow / "gpudoctor").mkdir(parents=True)
    (shadow / "gpudoctor" / "__init__.py").write_text("raise ImportError('another gpudoctor')\n")
    (shadow / "mymod.py").write_text("import sys, gpudoctor\nprint(gpudoctor.__file__, sys.path[0] == '%s', "
                                     "sys.path.index('%s') < len(sys.path))\n" % (tmp_path, shadow))  # fmt: skip
    done = subprocess.run(child_start.argv("mymod"), capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(shadow)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    path, cwd_first, on_path = done.stdout.split()
    assert Path(path) == ROOT / "gpudoctor" / "__init__.py" and cwd_first == "True" and on_path == "True"


def _gpudoctor_beside_a_torch(site: Path) -> None:
    """A site directory as a venv has it: gpudoctor installed next to a torch (here one that cannot be imported)."""
    shutil.copytree(ROOT / "gpudoctor", site / "gpudoctor", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "torch").mkdir()
    (site / "torch" / "__init__.py").write_text("raise ImportError('the torch installed beside gpudoctor')\n")


def test_a_broken_torch_first_on_pythonpath_is_the_one_tested_and_fails_with_the_reason(tmp_path):
    site, first = tmp_path / "site", tmp_path / "module-load"
    _gpudoctor_beside_a_torch(site)
    (first / "torch").mkdir(parents=True)
    (first / "torch" / "__init__.py").write_text("raise ImportError('the broken torch first on PYTHONPATH')\n")
    # `python -c "import torch"` with this PYTHONPATH imports first/torch; so must verify's child, even though
    # gpudoctor itself lives beside another torch (the old child put gpudoctor's directory first and tested that one).
    code = ("import sys; sys.path.insert(0, %r); from gpudoctor.cli import run; "
            "sys.argv = ['gpudoctor', 'verify', '--framework', 'torch', '--test', 'cnn', '--json']; run()") % str(site)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(first)})  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    result = only(json.loads(done.stdout))
    assert result["status"] == "failed"
    assert result["reason"] == "import of PyTorch failed: ImportError: the broken torch first on PYTHONPATH"
    assert result["framework_path"] == str(first / "torch")


def test_the_report_names_the_package_that_was_tested(tmp_path, monkeypatch):
    fake = tmp_path / "fake"
    (fake / "torch").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text("__version__ = '0.0.fake'\n")  # imports, then cannot train
    monkeypatch.setenv("PYTHONPATH", str(fake))
    monkeypatch.syspath_prepend(str(fake))  # the parent's "is it installed?" sees what the child will import
    code, report = cli_json("--framework", "torch", "--test", "cnn")
    result = only(report)
    assert code == 1 and result["status"] == "failed" and result["framework_path"] == str(fake / "torch")
    assert result["reason"].startswith("import of PyTorch failed: ImportError: cannot import name")


def test_the_text_names_the_tested_package_escaped():
    from gpudoctor.verify.model import SmokeResult, SmokeStatus, VerifyOptions, VerifyReport
    from gpudoctor.verify.render import to_text

    result = SmokeResult("torch", "cnn", SmokeStatus.PASSED, device="cpu", framework_version="2.14.1+cpu",
                         framework_path="/opt/venv/lib/python3.12/site-packages/torch\nForged: line")  # fmt: skip
    text = to_text(VerifyReport(VerifyOptions(), (result,), wall_s=1.0))
    assert "    PyTorch tested: 2.14.1+cpu from /opt/venv/lib/python3.12/site-packages/torch\\nForged: line\n" in text


@needs("torch")
def test_the_real_torch_is_named_with_its_directory():
    import importlib.util

    from gpudoctor.matrix.tables.framework import Framework
    from gpudoctor.verify.worker import framework_path

    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None
    assert framework_path(Framework.TORCH) == str(Path(spec.origin).parent)
