"""Bad input gives one sanitised error line (the same format for every command) or a report, never a traceback;
what the CLI writes survives a terminal that cannot encode it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main
from gpudoctor.errors import MAX_ERROR_CHARS, error_line
from tests.conftest import FACTS_DIR

REPO = Path(__file__).resolve().parent.parent


def check(*args: str, **kwargs):
    return CliRunner().invoke(main, ["check", *args], **kwargs)


def one_error_line(result, code: int = 2) -> str:
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("gpudoctor: error: "), result.stderr
    return result.stderr.rstrip("\n")


def test_error_line_is_one_capped_line_with_control_characters_shown():
    line = error_line("key 'gpus[0].name': \x1b[2J\nSummary: no problems found" + "x" * 1000)
    assert line.startswith("gpudoctor: error: key 'gpus[0].name': \\x1b[2J\\nSummary")
    assert "\n" not in line and "\x1b" not in line
    assert len(line) == MAX_ERROR_CHARS and line.endswith("…")


def test_every_command_uses_the_same_error_line(tmp_path):
    missing = str(tmp_path / "nope.json")
    lines = [
        one_error_line(check("--from", missing)),
        one_error_line(CliRunner().invoke(main, ["env", "-f", "torch", "--for", missing, "-o", str(tmp_path / "out")])),
        one_error_line(CliRunner().invoke(main, ["matrix", "torch", "3.0"])),
    ]
    assert all(line.startswith("gpudoctor: error: ") for line in lines)


@pytest.mark.parametrize("content, words", [
    ('{"gpus": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ('{"host": ' * 5000 + "1" + "}" * 5000, "nested too deeply"),
    ('{"gpus": [{"index": ' + "9" * 5000 + "}]}", "4300 digits"),
    ('{"gpus": [{"memory_total_mib": ' + "9" * 30 + "}]}", "out of range"),
    ('{"gpus": [{"name": 5}], "x": "\\u001b[31m"}', "gpus[0].name' must be a string"),
])
def test_hostile_json_is_one_error_line(tmp_path, content, words):
    path = tmp_path / "s.json"
    path.write_text(content)
    line = one_error_line(check("--from", str(path)))
    assert words in line


def test_a_key_with_control_characters_is_shown_escaped_in_the_error(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"python_packages": {"evil\x1b[2J\nSummary: ok": 5}}))
    line = one_error_line(check("--from", str(path)))
    assert "evil\\x1b[2J\\nSummary" in line


def test_dev_zero_is_a_bounded_one_line_error():
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    start = time.perf_counter()
    line = one_error_line(check("--from", "/dev/zero"))
    assert "binary data" in line
    assert time.perf_counter() - start < 10  # read up to a bound, not forever


def test_odd_spellings_in_a_snapshot_are_normalised(tmp_path):
    snapshot = json.loads((FACTS_DIR / "healthy-h100.json").read_text())
    snapshot["gpus"][0]["compute_capability"] = "sm_90"
    snapshot["driver"]["cuda_version"] = "cu128"
    snapshot["frameworks"]["torch"]["cuda"] = "cu126"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(snapshot))
    facts = json.loads(check("--json", "--from", str(path)).stdout)["facts"]
    assert facts["gpus"][0]["compute_capability"] == "9.0"
    assert facts["driver"]["cuda_version"] == "12.8"
    assert facts["frameworks"]["torch"]["cuda"] == "12.6"


def test_a_value_that_is_no_version_is_unknown_and_said_so(tmp_path):
    snapshot = json.loads((FACTS_DIR / "healthy-h100.json").read_text())
    snapshot["gpus"][0]["compute_capability"] = "weird"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(snapshot))
    result = check("-v", "--from", str(path))
    assert result.exit_code == 0, result.output
    assert "probe snapshot failed: gpus[0].compute_capability 'weird' is not a compute capability: read as unknown" in result.output


def test_a_thousand_gpus_are_judged_quickly(tmp_path):
    snapshot = json.loads((FACTS_DIR / "healthy-h100.json").read_text())
    snapshot["gpus"] = [dict(snapshot["gpus"][0], index=i, uuid=f"GPU-{i:08d}-0000-0000-0000-000000000000") for i in range(1000)]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(snapshot))
    start = time.perf_counter()
    result = check("--from", str(path))
    elapsed = time.perf_counter() - start
    assert result.exit_code == 0 and "1000 NVIDIA GPUs" in result.output
    assert elapsed < 5, elapsed  # ~0.15 s measured; quadratic work in a check would take far longer


def _subprocess_check(path: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--from", str(path), *args], capture_output=True,
                          cwd=REPO, env={**os.environ, **env}, timeout=60)


@pytest.mark.parametrize("args", [(), ("--markdown",), ("-v",)])
def test_a_latin1_terminal_and_a_lone_surrogate_do_not_crash(tmp_path, args):
    path = tmp_path / "s.json"
    path.write_text('{"gpus": [{"index": 0, "name": "T4 \\ud800 ✓", "compute_capability": "7.5"}], '
                    '"driver": {"version": "535.54.03", "cuda_version": "12.2"}}')
    done = _subprocess_check(path, *args, env={"PYTHONIOENCODING": "latin-1"})
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert b"1 NVIDIA GPU" in done.stdout or b"T4" in done.stdout


def test_an_unexpected_failure_is_one_line_and_exit_3(monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("probe exploded\nwith a second line")

    monkeypatch.setattr("gpudoctor.probes.collect", boom)
    monkeypatch.delenv("GPUDOCTOR_DEBUG", raising=False)
    line = one_error_line(check(), code=3)
    assert "RuntimeError: probe exploded\\nwith a second line" in line
