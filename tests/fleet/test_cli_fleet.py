import json

from click.testing import CliRunner

from gpudoctor.cli import main

from ..conftest import FACTS_DIR
from .helpers import report, write_reports


def fleet(*args):
    return CliRunner().invoke(main, ["fleet", *args])


def test_a_healthy_fleet_exits_0(tmp_path):
    write_reports(tmp_path, {"node1": report(), "node2": report()})
    result = fleet("--from", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "2 nodes, 0 with errors, 0 failed to answer, 0 facts drifting" in result.output


def test_a_failed_node_or_an_error_exits_1(tmp_path):
    write_reports(tmp_path, {"node1": report(), "node2": "garbage"})
    assert fleet("--from", str(tmp_path)).exit_code == 1


def test_golden_difference_exits_1_and_names_it(tmp_path):
    write_reports(tmp_path, {"node1": report(), "node17": report(driver="535.104.05")})
    result = fleet("--from", str(tmp_path), "--golden", str(FACTS_DIR / "healthy-h100.json"))
    assert result.exit_code == 1
    assert "node17: driver 535.104.05, golden 570.124.06" in result.output


def test_json_over_the_recorded_machines():
    result = fleet("--from", str(FACTS_DIR), "--json")
    data = json.loads(result.output)
    assert data["schema"] == "gpudoctor.fleet/1" and data["summary"]["nodes"] == len(list(FACTS_DIR.glob("*.json")))
    assert result.exit_code == 1  # several recorded machines are broken


def test_output_file_is_written_once_and_never_clobbered(tmp_path):
    write_reports(tmp_path / "r", {"node1": report()})
    page = tmp_path / "fleet.html"
    assert fleet("--from", str(tmp_path / "r"), "--html", "-o", str(page)).exit_code == 0
    assert page.read_text().startswith("<!DOCTYPE html>")
    again = fleet("--from", str(tmp_path / "r"), "--html", "-o", str(page))
    assert again.exit_code == 2 and "gpudoctor: error:" in again.output


def test_usage_errors_exit_2(tmp_path):
    assert fleet().exit_code == 2
    assert fleet("--slurm", "--from", str(tmp_path)).exit_code == 2
    assert fleet("--from", str(tmp_path), "--json", "--html").exit_code == 2
    assert fleet("--slurm", "--nodes", "2", "--nodelist", "n1").exit_code == 2
    empty = fleet("--from", str(tmp_path))
    assert empty.exit_code == 2 and "no *.json" in empty.output


def test_slurm_without_slurm_is_one_error_line(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no sinfo, no srun
    result = fleet("--slurm")
    assert result.exit_code == 2 and result.output.startswith("gpudoctor: error: sinfo failed")
