"""`gpudoctor fleet --slurm` against a real Slurm: CI starts one with tools/slurm/start.sh (Debian's slurm-wlm and
munge, one host, two slurmd). Skipped, with the reason, where there is no srun or the cluster does not answer."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.slurm]


def _answering_nodes() -> list[str]:
    if shutil.which("srun") is None or shutil.which("sinfo") is None:
        pytest.skip("no srun/sinfo here: install slurm-wlm and munge, then run tools/slurm/start.sh")
    try:
        probe = subprocess.run(["srun", "-N1", "-t", "1", "--immediate=20", "true"], capture_output=True, text=True,
                               timeout=30)
        sinfo = subprocess.run(["sinfo", "--noheader", "--Node", "--format=%N %t"], capture_output=True, text=True,
                               timeout=30)
    except subprocess.TimeoutExpired:
        pytest.skip("the Slurm cluster did not answer within 30 s")
    if probe.returncode != 0:
        pytest.skip(f"the Slurm cluster does not run a job: {probe.stderr.strip()[:200]}")
    return sorted({line.split()[0] for line in sinfo.stdout.splitlines() if line.split()[1:] in (["idle"], ["mix"])})


def test_fleet_over_the_real_slurm_reports_every_node():
    nodes = _answering_nodes()
    command = f"{shlex.quote(sys.executable)} -m gpudoctor"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "gpudoctor", "fleet", "--slurm", "--json", "--time-limit", "120",
                           "--gpudoctor", command], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    answered = {n["name"]: n for n in report["nodes"] if n["answered"]}
    assert set(nodes) <= set(answered), report["nodes"]
    for node in answered.values():
        assert node["sections"] and node["facts"]["gpu_count"] is not None
