"""``gpudoctor check`` through click's CliRunner: every exit code, every output format, snapshots in and out."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main
from tests.conftest import FACTS_DIR, nvidia_gpus_here


def run(*args: str):
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


def fixture(name: str) -> str:
    return str(FACTS_DIR / f"{name}.json")


def test_this_machine_is_reported_as_what_it_has():
    # The expectation follows the machine (nvidia-smi -L, not gpudoctor's own probe), so a GPU host passes too.
    gpus = nvidia_gpus_here()
    result = run("-v")
    if gpus:
        assert result.exit_code in (0, 1), result.output  # a GPU host may well have something to fix
        assert "No NVIDIA GPU found" not in result.output
        assert f"{len(gpus)} NVIDIA GPU" in result.output
        assert all(name in result.output for name in gpus)
    else:
        assert result.exit_code == 0, result.output
        assert "No NVIDIA GPU found" in result.output
        assert "Summary: no problems found" in result.output


def test_broken_machine_exits_1_with_the_fix():
    result = run("--from", fixture("nouveau"))
    assert result.exit_code == 1
    assert "nouveau-loaded" in result.output
    assert "blacklist nouveau" in result.output


def test_warnings_pass_unless_strict(tmp_path):
    snapshot = json.loads(open(fixture("cuda-visible-devices-wrong")).read())
    snapshot["host"]["env"] = {}
    snapshot["gpus"][0]["ecc_uncorrected_errors"] = 0
    path = tmp_path / "warn.json"
    path.write_text(json.dumps(snapshot))
    assert run("--from", str(path)).exit_code == 0
    assert run("--from", str(path), "--strict").exit_code == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "not valid JSON"), ('{"gpus": {"name": 1}}', "key 'gpus' must be a list")],
)
def test_unreadable_snapshot_is_exit_2_with_one_line(tmp_path, content, message):
    path = tmp_path / "s.json"
    path.write_text(content)
    result = CliRunner().invoke(main, ["check", "--from", str(path)])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_missing_snapshot_file_is_exit_2(tmp_path):
    result = CliRunner().invoke(main, ["check", "--from", str(tmp_path / "nope.json")])
    assert result.exit_code == 2 and "cannot read" in result.output


def test_conflicting_options_are_usage_errors():
    assert CliRunner().invoke(main, ["check", "--json", "--markdown"]).exit_code == 2
    assert CliRunner().invoke(main, ["check", "--deep", "--from", fixture("nouveau")]).exit_code == 2


def test_crashing_check_is_exit_3(monkeypatch):
    import gpudoctor.checks as checks
    from gpudoctor.checks import RegisteredCheck

    def explodes(facts, matrix):
        raise RuntimeError("boom")

    real = checks.registry
    monkeypatch.setattr(checks, "registry", lambda: (*real(), RegisteredCheck("explodes", explodes)))
    result = run("--from", fixture("healthy-h100"))
    assert result.exit_code == 3
    assert "check explodes crashed: RuntimeError: boom" in result.output
    assert "gpus-found" in result.output  # the other checks still reported


def test_json_is_only_json_with_schema_and_exit_code():
    result = CliRunner().invoke(main, ["check", "--json", "--from", fixture("gpu-without-driver")])
    data = json.loads(result.stdout)
    assert data["schema"] == "gpudoctor.report/1"
    assert data["summary"]["exit_code"] == result.exit_code == 1
    assert "gpu-without-driver" in [f["id"] for f in data["findings"]]
    assert data["facts"]["pci_devices"][0]["driver"] is None


def test_save_then_from_gives_the_same_report(tmp_path):
    path = tmp_path / "me.json"
    saved = CliRunner().invoke(main, ["check", "--json", "--save", str(path)])
    assert saved.exit_code in (0, 1) and path.exists()  # 1: this machine has something to fix (a GPU host may)
    replay = CliRunner().invoke(main, ["check", "--json", "--from", str(path)])
    before, after = json.loads(saved.stdout), json.loads(replay.stdout)
    assert before["facts"] == after["facts"]
    assert before["findings"] == after["findings"]


def test_save_never_overwrites_without_force(tmp_path):
    path = tmp_path / "keep.json"
    path.write_text("precious")
    refused = CliRunner().invoke(main, ["check", "--save", str(path)])
    assert refused.exit_code == 2 and "already exists" in refused.output
    assert path.read_text() == "precious"
    forced = CliRunner().invoke(main, ["check", "--save", str(path), "--force"])
    assert forced.exit_code in (0, 1) and json.loads(path.read_text())["schema"] == "gpudoctor.facts/1"


def test_markdown_redacts_uuids_and_home(tmp_path):
    snapshot = json.loads(open(fixture("healthy-h100")).read())
    snapshot["host"]["env"]["LD_LIBRARY_PATH"] = "/home/alice/cuda/lib64"
    path = tmp_path / "h.json"
    path.write_text(json.dumps(snapshot))
    result = run("--markdown", "-v", "--from", str(path))
    assert "GPU-6d4bd2a8" not in result.output and "GPU-<redacted>" in result.output
    assert "alice" not in result.output and "/home/<user>/cuda/lib64" in result.output
    assert result.output.startswith("## gpudoctor")


def test_ignore_drops_a_finding_and_its_exit_code():
    assert run("--from", fixture("nouveau"), "--ignore", "nouveau-loaded").exit_code == 0


def test_verbose_shows_the_facts():
    result = run("-v", "--from", fixture("healthy-h100"))
    assert "driver: 570.124.06, CUDA 12.8" in result.output
    assert "torch 2.7.1+cu126 (CUDA 12.6)" in result.output


def test_no_colour_when_not_a_terminal():
    assert "\x1b[" not in run().output


def test_importing_the_cli_loads_no_framework():
    code = ("import sys, gpudoctor.cli, gpudoctor.cli.check_cmd, gpudoctor.probes, gpudoctor.checks;"
            "from gpudoctor.checks import registry; registry();"
            "bad = [m for m in ('torch', 'tensorflow', 'keras', 'jax') if m in sys.modules]; print(bad); sys.exit(bool(bad))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_check_run_loads_no_framework():
    code = ("import sys; from click.testing import CliRunner; from gpudoctor.cli import main;"
            "r = CliRunner().invoke(main, ['check']); bad = [m for m in ('torch', 'tensorflow') if m in sys.modules];"
            "print(r.exit_code, bad); sys.exit(2 if bad else r.exit_code)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: findings on this machine; 2: a framework loaded


@pytest.mark.slow
@pytest.mark.no_gpu
def test_deep_imports_each_framework_in_a_child(tmp_path):
    result = CliRunner().invoke(main, ["check", "--deep", "--json"])
    data = json.loads(result.stdout)
    torch = data["facts"]["frameworks"]["torch"]
    if torch is None:
        pytest.skip("torch not installed")
    assert torch["cuda_available"] is False  # a CUDA build on a machine without a GPU
    assert torch["device_count"] == 0
    if torch["cuda"]:  # the compiled list is read from the build even though CUDA is not available here
        assert torch["arch_list"] and all(a.startswith(("sm_", "compute_")) for a in torch["arch_list"])
    tf = data["facts"]["frameworks"]["tensorflow"]
    if tf is not None:
        assert tf["gpus_visible"] == 0
    assert result.exit_code == 0


def test_deep_empty_arch_list_stays_unknown():
    from gpudoctor.model import TorchBuild
    from gpudoctor.probes.deep import deepen_torch

    deepened = deepen_torch(TorchBuild(version="2.5.1+cu124", cuda="12.4"), {"cuda_available": False, "arch_list": []})
    assert deepened.arch_list is None and deepened.cuda_available is False


def test_deep_child_crash_is_a_probe_error_not_a_dead_doctor():
    from gpudoctor.errors import ProbeFailed
    from gpudoctor.probes.deep import run_child
    from gpudoctor.runner import CommandResult
    from tests.fakes import FakeRunner

    died = CommandResult((), -6, "", "Fatal Python error: Aborted")
    with pytest.raises(ProbeFailed, match="died \\(signal 6\\): Fatal Python error: Aborted"):
        run_child(FakeRunner({sys.executable: died}), "torch")
    hung = CommandResult((), None, error="python: timed out after 60s")
    with pytest.raises(ProbeFailed, match="timed out"):
        run_child(FakeRunner({sys.executable: hung}), "torch")


@pytest.mark.slow
@pytest.mark.gpu
def test_deep_on_a_gpu_host_sees_the_gpus():
    result = CliRunner().invoke(main, ["check", "--deep", "--json"])
    torch = json.loads(result.stdout)["facts"]["frameworks"]["torch"]
    if torch is None or torch.get("build") not in ("cuda", None) or not torch.get("cuda"):
        pytest.skip("no CUDA build of torch installed")
    assert torch["cuda_available"] is True
    assert torch["device_count"] == len(nvidia_gpus_here())
