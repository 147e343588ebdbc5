"""The cluster hooks shipped in examples/: Slurm's HealthCheckProgram, LBNL NHC, a Kubernetes pre-flight Job."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from gpudoctor.cli.check_cmd import check

from .helpers import report

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HEALTHCHECK = EXAMPLES / "slurm-healthcheck.sh"


@pytest.fixture
def fake_node(tmp_path):
    """A PATH with a gpudoctor that exits as told and a scontrol that records what it is asked."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gpudoctor").write_text('#!/bin/sh\n[ -n "$FAKE_SLEEP" ] && sleep "$FAKE_SLEEP"\n'
                                       'cat "$FAKE_REPORT"\nexit "$FAKE_RC"\n')
    (bin_dir / "scontrol").write_text('#!/bin/sh\nif [ "$1" = show ]; then cat "$FAKE_SHOW"; else echo "$@" >> "$FAKE_LOG"; fi\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    report_file = tmp_path / "report.json"
    report_file.write_text('{"schema": "gpudoctor.report/1"}\n')
    show = tmp_path / "show.txt"
    show.write_text("NodeName=gpu7 State=IDLE\n")

    def run(rc: int, drained_by_us: bool = False, sleep: str = "", limit: str = "45"):
        if drained_by_us:
            show.write_text("NodeName=gpu7 State=IDLE+DRAIN Reason=gpudoctor: error findings [root@2026]\n")
        env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", "FAKE_RC": str(rc), "FAKE_REPORT": str(report_file),
               "FAKE_SHOW": str(show), "FAKE_LOG": str(tmp_path / "scontrol.log"), "FAKE_SLEEP": sleep,
               "SLURMD_NODENAME": "gpu7", "GPUDOCTOR_REPORT_DIR": str(tmp_path / "reports"), "GPUDOCTOR_LIMIT_S": limit}
        done = subprocess.run(["bash", str(HEALTHCHECK)], env=env, capture_output=True, text=True, timeout=30)
        log = tmp_path / "scontrol.log"
        return done.returncode, log.read_text() if log.exists() else "", tmp_path / "reports" / "gpu7.json"

    return run


def test_an_error_finding_drains_the_node_and_keeps_the_report(fake_node):
    rc, scontrol, kept = fake_node(1)
    assert rc == 1
    assert scontrol.startswith("update NodeName=gpu7 State=DRAIN Reason=gpudoctor: error findings")
    assert kept.read_text().startswith('{"schema": "gpudoctor.report/1"}')


def test_a_healthy_node_is_left_alone(fake_node):
    assert fake_node(0)[:2] == (0, "")


def test_a_node_this_hook_drained_is_resumed_once_healthy(fake_node):
    assert fake_node(0, drained_by_us=True)[:2] == (0, "update NodeName=gpu7 State=RESUME\n")


def test_gpudoctor_itself_failing_never_drains(fake_node):
    assert fake_node(3)[:2] == (3, "")
    assert fake_node(2)[:2] == (2, "")


def test_a_hung_check_is_cut_well_inside_slurms_60_s_and_drains(fake_node):
    rc, scontrol, _ = fake_node(0, sleep="10", limit="1")
    assert rc == 124 and "Reason=gpudoctor: check timed out after 1s" in scontrol


def test_the_default_limit_leaves_room_inside_slurms_60_s():
    assert "LIMIT_S=${GPUDOCTOR_LIMIT_S:-45}" in HEALTHCHECK.read_text()


def test_the_nhc_line_runs_a_real_gpudoctor_check_inside_nhcs_timeout():
    (line,) = [ln for ln in (EXAMPLES / "nhc-gpudoctor.conf").read_text().splitlines() if ln and not ln.startswith("#")]
    target, check_call = (part.strip() for part in line.split("||"))
    words = shlex.split(check_call)
    assert target == "*" and words[0] == "check_cmd_status"
    timeout = int(words[words.index("-t") + 1])
    assert timeout <= 30  # NHC's default TIMEOUT; check_cmd_status refuses a longer -t
    assert words[words.index("-r") + 1] == "0"
    command = words[words.index("-r") + 2:]
    assert Path(command[0]).name == "gpudoctor" and command[1] == "check"
    check.make_context("check", command[2:])  # the options are ones `gpudoctor check` has


def test_the_kubernetes_job_requests_a_gpu_and_writes_where_fleet_reads():
    job = yaml.safe_load((EXAMPLES / "k8s-preflight-job.yaml").read_text())
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    pod = job["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
    script = " ".join(container["args"])
    assert "gpudoctor check --json" in script and '"/reports/$NODE_NAME.json"' in script
    assert container["env"][0]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
    mount = container["volumeMounts"][0]["mountPath"]
    assert mount == "/reports" and pod["restartPolicy"] == "Never"


def test_the_job_script_writes_a_report_fleet_reads(tmp_path):
    """Run the Job's own shell line with a fake gpudoctor, then read the directory with `fleet --from`."""
    import json

    from gpudoctor.fleet.directory import read_directory

    job = yaml.safe_load((EXAMPLES / "k8s-preflight-job.yaml").read_text())
    script = " ".join(job["spec"]["template"]["spec"]["containers"][0]["args"]).replace("/reports", str(tmp_path))
    bin_dir = tmp_path.parent / "fakebin-k8s"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "gpudoctor").write_text(f"#!/bin/sh\ncat <<'EOF'\n{json.dumps(report())}\nEOF\nexit 0\n")
    (bin_dir / "gpudoctor").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", "NODE_NAME": "gpu-node-3"}
    assert subprocess.run(["/bin/sh", "-c", script], env=env, timeout=30).returncode == 0
    (node,) = read_directory(tmp_path)
    assert node.name == "gpu-node-3" and node.answered
