"""The command's contract: options, usage errors (exit 2), frameworks not installed (skipped, exit 0), JSON purity,
and that importing the CLI loads neither torch nor tensorflow."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import gpudoctor.verify as verify_pkg
from tests.conftest import needs
from tests.verify.helpers import ROOT, cli, cli_json, only, subprocess_cli


def test_importing_the_cli_loads_no_framework():
    code = (
        "import sys\n"
        "import gpudoctor.cli, gpudoctor.cli.verify_cmd, gpudoctor.verify, gpudoctor.verify.child, gpudoctor.runner, "
        "gpudoctor.verify.render, gpudoctor.workloads.weights, gpudoctor.verify.assess, gpudoctor.verify.model\n"
        "from gpudoctor.cli import main\n"
        "main.get_command(None, 'verify')\n"
        "heavy = sorted(m for m in ('torch', 'tensorflow', 'keras', 'torchvision', 'numpy') if m in sys.modules)\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT), check=True)
    assert out.stdout.strip() == "[]"


def test_help_lists_the_options():
    result = cli("--help")
    assert result.exit_code == 0
    for option in ("--framework", "--test", "--device", "--amp / --no-amp", "--weights", "--timeout", "--json"):
        assert option in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--test", "cnn,gan"], "'gan': choose from cnn, lstm, transfer"),
        (["--test", ","], "choose from cnn, lstm, transfer"),
        (["--device", "gpu"], "'gpu': use auto, cpu, cuda or cuda:N"),
        (["--device", "cuda:x"], "use auto, cpu, cuda or cuda:N"),
        (["--framework", "mxnet"], "'mxnet' is not one of"),
        (["--weights", "/nonexistent/weights.pth"], "does not exist"),
        (["--timeout", "0"], "--timeout"),
        (["--timeout", "1e308"], "1e+308 is not in the range 1.0<=x<=86400.0"),
        (["--timeout", "inf"], "inf is not in the range"),
        (["--timeout", "nan"], "nan is not a number of seconds"),
        (["--device", "cuda:99999999999999999999"], "use auto, cpu, cuda or cuda:N (N a device index, 0 to 9999)"),
        (["--device", "cuda:\u0663"], "use auto, cpu, cuda or cuda:N"),  # an Arabic-Indic 3: int() would take it
    ],
)
def test_usage_errors_exit_2(args, message):
    result = cli(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_weights_of_an_unknown_kind_is_a_usage_error(tmp_path):
    path = tmp_path / "weights.txt"
    path.write_text("not weights")
    result = cli("--weights", str(path))
    assert result.exit_code == 2
    assert "not a weights file gpudoctor knows" in result.stderr


def _hide(monkeypatch, *names: str) -> None:
    """These modules look absent and every other one present, whatever this machine has (keras, torchvision and
    jaxlib come and go with their frameworks: the H200 host has torch and JAX but no Keras)."""
    monkeypatch.setattr(verify_pkg, "_find_spec", lambda name: None if name in names else object())


def test_no_framework_installed_skips_every_test_and_proves_nothing(monkeypatch):
    _hide(monkeypatch, "tensorflow", "torch", "jax")
    code, report = cli_json()
    assert code == 1  # skipped is not failed, but a run where nothing ran is not a success
    assert [(r["framework"], r["test"], r["status"]) for r in report["results"]] == [
        ("torch", "cnn", "skipped"), ("torch", "lstm", "skipped"), ("torch", "transfer", "skipped"),
        ("tf", "cnn", "skipped"), ("tf", "lstm", "skipped"), ("tf", "transfer", "skipped"),
        ("jax", "cnn", "skipped"), ("jax", "lstm", "skipped"), ("jax", "transfer", "skipped"),
    ]  # fmt: skip
    assert report["results"][0]["reason"] == "PyTorch is not installed (pip install torch)"
    assert report["results"][3]["reason"] == "TensorFlow is not installed (pip install tensorflow)"
    assert report["results"][6]["reason"].startswith("JAX")
    assert report["summary"]["skipped"] == 9 and report["summary"]["ok"] is False and report["exit_code"] == 1
    text = cli()
    assert text.exit_code == 1
    assert re.fullmatch(r"0 passed, 0 failed, 9 skipped in \d+\.\ds: nothing was proved: no test ran",
                        text.stdout.rstrip().splitlines()[-1])  # fmt: skip


def test_a_test_named_twice_runs_once(monkeypatch):
    _hide(monkeypatch, "tensorflow", "torch", "jax")  # skipped, so nothing trains: only the selection is looked at
    code, report = cli_json("--test", "cnn,CNN", "--test", "cnn", "--test", "lstm")
    assert [(r["framework"], r["test"]) for r in report["results"]] == [
        ("torch", "cnn"), ("torch", "lstm"), ("tf", "cnn"), ("tf", "lstm"), ("jax", "cnn"), ("jax", "lstm"),
    ]  # fmt: skip


@pytest.mark.slow
@needs("torch")
def test_torchvision_missing_skips_only_transfer(monkeypatch):
    _hide(monkeypatch, "torchvision", "tensorflow")
    result = cli("--framework", "torch", "--test", "transfer,lstm")
    assert result.exit_code == 0, result.output
    assert "- PyTorch transfer learning: skipped - torchvision is not installed (pip install torchvision)" in result.stdout
    assert "✓ PyTorch LSTM: passed" in result.stdout


@pytest.mark.slow
@needs("tensorflow", "keras")
def test_json_output_is_only_json_even_with_tensorflow_spam():
    # A real subprocess: TensorFlow and the children print to their stderr; stdout must be exactly one JSON document.
    done = subprocess_cli("--framework", "tf", "--test", "cnn", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["schema"] == "gpudoctor.verify/1"
    assert only(report)["status"] == "passed"
    assert report["ran_on"] == ("on the CPU: no CUDA device is visible" if only(report)["device"] == "cpu"
                                else f"on {only(report)['device_name']} (cuda:0)")  # fmt: skip
    assert "@@gpudoctor-progress" not in done.stdout + done.stderr  # progress lines never leak
