"""examples/github-triage-workflow.yml: its shape (pinned actions, issues: write only, no expression inside `run:`)
and its steps' shell run as GitHub would run them (bash -eo pipefail, the env the step names, $GITHUB_OUTPUT,
$RUNNER_TEMP), on `issues` event payloads, with the real gpudoctor and a fake `gh` that records what it was asked."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
WORKFLOW = ROOT / "examples" / "github-triage-workflow.yml"
EVENTS = ROOT / "tests" / "data" / "github-events"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
DOTTED = re.compile(r"(?<!['\w])(github|steps)(?:\.[\w-]+)+")

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the steps are bash scripts")


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def job() -> dict:
    return workflow()["jobs"]["triage"]


def lookup(path: str, context: dict):
    value = context
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def evaluate(condition: str, context: dict) -> bool:
    """The small part of GitHub's expression language the workflow uses: ==, ||, &&, always(), context values."""
    python = DOTTED.sub(lambda m: repr(lookup(m.group(0), context)), condition)
    python = python.replace("||", " or ").replace("&&", " and ").replace("always()", "True")
    return bool(eval(python, {"__builtins__": {}}, {}))  # noqa: S307 - our own workflow's conditions


def expand(value: str, context: dict) -> str:
    return EXPRESSION.sub(lambda m: str(lookup(m.group(1), context) or ""), value)


def run_job(event: str, tmp_path: Path) -> dict:
    """Run the job's steps on an event payload; returns the outputs, what gh was asked and the files it was given."""
    payload = json.loads((EVENTS / event).read_text(encoding="utf-8"))
    context = {"github": {"event": payload, "event_name": "issues", "token": "fake-token",
                          "repository": payload["repository"]["full_name"]}, "steps": {}}
    result = {"ran": False, "gh": [], "bodies": [], "steps": context["steps"]}
    if not evaluate(job()["if"], context):
        return result
    result["ran"] = True
    bin_dir, temp, work = tmp_path / "bin", tmp_path / "runner-temp", tmp_path / "work"
    for d in (bin_dir, temp, work):
        d.mkdir()
    gh_log = tmp_path / "gh.log"
    (bin_dir / "gh").write_text(
        "#!/bin/bash\nprintf '%s\\0' \"$@\" >> \"$GH_LOG\"; printf '\\n' >> \"$GH_LOG\"\n"
        "while [ $# -gt 0 ]; do if [ \"$1\" = --body-file ]; then cat \"$2\" >> \"$GH_LOG.bodies\"; fi; shift; done\n")
    (bin_dir / "gh").chmod(0o755)
    base_env = {"PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin",
                "RUNNER_TEMP": str(temp), "GH_LOG": str(gh_log), "HOME": str(tmp_path), "NO_COLOR": "1"}
    for step in job()["steps"]:
        if "run" not in step or step.get("name") == "Install gpudoctor":
            continue  # setup-python, and pip install: the test runs the gpudoctor of this checkout
        if "if" in step and not evaluate(step["if"], context):
            continue
        output = tmp_path / f"output-{len(os.listdir(tmp_path))}"
        output.touch()
        env = {**base_env, "GITHUB_OUTPUT": str(output),
               **{k: expand(str(v), context) for k, v in (step.get("env") or {}).items()}}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], env=env,
                              cwd=work, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (step["name"], done.stdout, done.stderr)
        if "id" in step:
            outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
            context["steps"][step["id"]] = {"outputs": outputs}
    if gh_log.exists():
        result["gh"] = [line.split("\0")[:-1] for line in gh_log.read_text().split("\n") if line]
    bodies = Path(f"{gh_log}.bodies")
    result["reply"] = bodies.read_text() if bodies.exists() else None
    result["work"] = sorted(p.name for p in work.iterdir()) + sorted(p.name for p in tmp_path.iterdir())
    return result


def test_every_action_is_pinned_by_a_full_commit_sha_and_the_token_only_writes_issues():
    data = workflow()
    uses = [s["uses"] for s in job()["steps"] if "uses" in s]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), uses
    assert data["permissions"] == {} and job()["permissions"] == {"issues": "write"}


def test_no_expression_is_expanded_inside_a_script():
    for step in job()["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]


def test_it_runs_on_new_issues_and_on_the_maintainers_label_only():
    on = workflow()[True]  # YAML 1.1 reads the key `on` as True
    assert on == {"issues": {"types": ["opened", "labeled"]}}


def test_a_broken_report_gets_the_reply_and_the_finding_label(tmp_path):
    result = run_job("issues-opened-broken.json", tmp_path)
    assert result["steps"]["triage"]["outputs"]["outcome"] == "cause"
    assert ["issue", "comment", "101", "--body-file", str(tmp_path / "runner-temp" / "reply.md")] in result["gh"]
    assert ["issue", "edit", "101", "--add-label", "gpu-arch-not-in-build"] in result["gh"]
    assert "`gpu-arch-not-in-build`" in result["reply"]


def test_a_healthy_report_gets_nothing(tmp_path):
    result = run_job("issues-opened-healthy.json", tmp_path)
    assert result["steps"]["triage"]["outputs"]["outcome"] == "none"
    assert result["gh"] == [] and result["reply"] is None


def test_an_unsure_report_gets_a_request_for_output_and_no_label(tmp_path):
    result = run_job("issues-opened-unsure.json", tmp_path)
    assert result["steps"]["triage"]["outputs"]["outcome"] == "ask"
    assert [c[:2] for c in result["gh"]] == [["issue", "comment"]]
    assert "gpudoctor cannot tell" in result["reply"]


def test_a_hostile_body_runs_no_command_pings_no_one_and_stays_inside_its_fences(tmp_path):
    from tests.triage.test_reply import assert_inert

    result = run_job("issues-opened-hostile.json", tmp_path)
    assert not [name for name in result["work"] if "pwned" in name]  # no $(...), backtick, ; or && ran
    assert ["issue", "edit", "103", "--add-label", "gpu-arch-not-in-build"] in result["gh"]
    assert_inert(result["reply"], ("https://pytorch.org/get-started/previous-versions/",))


def test_the_hostile_body_would_run_commands_in_a_careless_step(tmp_path):
    # The canary works: a step that let the shell read the body (as `run: echo "${{ ...body }}"` does) creates them.
    body = json.loads((EVENTS / "issues-opened-hostile.json").read_text(encoding="utf-8"))["issue"]["body"]
    first_line = body.splitlines()[3]  # $(touch ...) `touch ...` ; touch ... && ...
    subprocess.run(["bash", "-c", f"echo {first_line.split('&&')[0]}"], cwd=tmp_path, capture_output=True, timeout=30)
    assert {p.name for p in tmp_path.iterdir()} >= {"gpudoctor-pwned-1", "gpudoctor-pwned-2", "gpudoctor-pwned-3"}


def test_the_maintainers_label_triages_again_and_is_taken_off(tmp_path):
    result = run_job("issues-labeled-gpudoctor.json", tmp_path)
    assert result["ran"] and ["issue", "edit", "101", "--remove-label", "gpudoctor"] in result["gh"]


def test_any_other_label_runs_nothing(tmp_path):
    assert run_job("issues-labeled-other.json", tmp_path)["ran"] is False


def test_zizmor_finds_nothing_even_pedantic():
    zizmor = shutil.which("zizmor") or str(Path(sys.executable).parent / "zizmor")
    if not Path(zizmor).exists():
        pytest.skip("zizmor is not installed (pip install -e '.[dev]')")
    done = subprocess.run([zizmor, "--offline", "--persona=pedantic", str(WORKFLOW)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings" in done.stdout
