"""The held-out fuzzing's findings on main 5bb4a09 (issue 21), each at its class: odd values are judged or ignored,
never a crash; a fault of the input is exit 2, never 3 ("gpudoctor itself failed"); a name written into a generated
file is escaped for that file's format; what a --deep child prints is never its answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudoctor.cli import main
from gpudoctor.digits import ascii_int
from gpudoctor.errors import ProbeFailed
from gpudoctor.model import Gpu
from gpudoctor.runner import CommandResult
from tests.conftest import DATA, FACTS_DIR

ROOT = Path(__file__).resolve().parents[1]
TWO_GPUS = (Gpu(index=0, uuid="GPU-aaaa"), Gpu(index=1, uuid="GPU-bbbb"))


# -- odd values: judged or ignored ----------------------------------------------------------------------------------

@given(st.text(max_size=12))
def test_ascii_int_is_a_short_run_of_ascii_digits_or_nothing(text):
    value = ascii_int(text)
    if text.isascii() and text.isdigit() and len(text) <= 18:
        assert value == int(text)
    else:
        assert value is None


@given(st.text(max_size=40))
def test_any_cuda_visible_devices_value_is_judged(value):
    from gpudoctor.checks.environment import visible_gpu_count

    assert 0 <= visible_gpu_count(value, TWO_GPUS) <= 2


@pytest.mark.parametrize("value", ["²", "٣", "0²", "9" * 5000])
def test_cuda_visible_devices_with_non_ascii_or_huge_digits_hides_every_gpu(value, tmp_path):
    snapshot = json.loads((FACTS_DIR / "healthy-h100.json").read_text())
    snapshot["host"]["env"]["CUDA_VISIBLE_DEVICES"] = value
    path = tmp_path / "s.json"
    path.write_text(json.dumps(snapshot))
    result = CliRunner().invoke(main, ["check", "--json", "--from", str(path)])
    report = json.loads(result.stdout)
    assert result.exit_code == 1 and report["crashes"] == []
    assert "cuda-visible-devices-hides-all-gpus" in {f["id"] for f in report["findings"]}


def _tensorflow(tmp_path: Path, build_info: str) -> Path:
    root = tmp_path / "tensorflow"
    (root / "python" / "platform").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "python" / "platform" / "build_info.py").write_text(build_info)
    return root


ODD_BUILD_INFOS = [
    "build_info = {'is_cuda_build': 'yes', 'cuda_version': 12.5, 'cudnn_version': 9}",
    "build_info = {'is_cuda_build': 1, 'cuda_version': '12.5', 'cuda_compute_capabilities': [80, 'sm_90', 8.6]}",
    "build_info = {'is_cuda_build': True, 'cuda_version': ['12'], 'cuda_compute_capabilities': 'sm_80'}",
    "build_info = {'is_cuda_build': None, 'cuda_compute_capabilities': [None, '']}",
]


@pytest.mark.parametrize("build_info", ODD_BUILD_INFOS)
def test_a_tensorflow_build_info_with_odd_types_is_read_as_unknown_and_judged(build_info, tmp_path):
    import dataclasses

    from gpudoctor.checks import run_checks
    from gpudoctor.matrix import load_matrix
    from gpudoctor.model import Frameworks
    from gpudoctor.probes.frameworks import probe_tensorflow
    from gpudoctor.render.text import render_text
    from gpudoctor.snapshot import facts_from_json, facts_to_json
    from tests.conftest import load_facts

    tf = probe_tensorflow(_tensorflow(tmp_path, build_info), version="2.16.1")
    assert tf.is_cuda_build in (True, False, None) and tf.cuda in (None, "12.5")
    assert tf.compute_capabilities is None or all(isinstance(c, str) and c for c in tf.compute_capabilities)
    facts = load_facts("healthy-h100")
    facts = dataclasses.replace(facts, frameworks=Frameworks(torch=None, tensorflow=tf))
    report = run_checks(facts, load_matrix())
    assert report.crashes == ()
    render_text(report, verbose=True)
    assert facts_from_json(facts_to_json(facts)) is not None  # what --save writes, --from reads back


def test_a_live_check_with_that_tensorflow_is_not_gpudoctor_failing(tmp_path):
    _tensorflow(tmp_path, ODD_BUILD_INFOS[1])
    done = subprocess.run([sys.executable, "-m", "gpudoctor", "check"], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(tmp_path)})  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "crashed" not in done.stdout


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(used=st.one_of(st.integers(min_value=0), st.text("0123456789²٣", max_size=400)),
       total=st.one_of(st.integers(min_value=0), st.text("0123456789", min_size=300, max_size=400)))
def test_odd_nvidia_smi_figures_are_unknown_or_judged(used, total):
    from gpudoctor.checks.gpu import gpu_memory_in_use
    from gpudoctor.model import Facts
    from gpudoctor.smi_xml import parse_nvidia_smi_xml

    xml = (DATA / "nvidia-smi" / "tesla-t4.xml").read_text()
    xml = xml.replace("<used>1032 MiB</used>", f"<used>{used} MiB</used>", 1)
    xml = xml.replace("<total>15360 MiB</total>", f"<total>{total} MiB</total>", 1)
    driver, gpus = parse_nvidia_smi_xml(xml)
    for gpu in gpus:
        for value in (gpu.memory_used_mib, gpu.memory_total_mib):
            assert value is None or 0 <= value < 10**18
    list(gpu_memory_in_use(Facts(driver=driver, gpus=gpus), None))


# -- the input at fault: exit 2 ------------------------------------------------------------------------------------

def test_env_for_dev_zero_is_a_usage_error(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    result = CliRunner().invoke(main, ["env", "-f", "torch", "--for", "/dev/zero", "-o", str(tmp_path / "out")])
    assert result.exit_code == 2 and "binary data" in result.stderr


@pytest.mark.parametrize("driver", ["9" * 5000, "²", "R" + "5" * 400])
def test_matrix_driver_with_an_impossible_number_is_a_usage_error(driver):
    result = CliRunner().invoke(main, ["matrix", "driver", driver])
    assert result.exit_code == 2 and result.stderr.startswith("gpudoctor: error: driver "), result.output


# -- names written into files, escaped for each format ---------------------------------------------------------------

_NAMES = st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1, max_size=30)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(stem=_NAMES)
def test_the_snapshot_file_name_cannot_break_any_generated_file(stem, tmp_path_factory):
    import yaml

    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    base = tmp_path_factory.mktemp("env")
    snapshot = base / (stem + "\nRUN echo forged\n.json")
    try:
        snapshot.write_text((FACTS_DIR / "healthy-h100.json").read_text())
    except OSError:
        return  # a name this file system refuses
    out = base / "out"
    result = CliRunner().invoke(main, ["env", "-f", "torch", "--for", str(snapshot), "-o", str(out), "--format", "all"])
    assert result.exit_code == 0, result.output
    for path in out.iterdir():
        text = path.read_text(encoding="utf-8")
        assert "echo forged" not in "".join(line for line in text.splitlines() if not line.startswith("#"))
        header = text.splitlines()[0]
        assert header.startswith(f"# {path.name}: written by gpudoctor") and header.endswith(".json')")
    yaml.safe_load((out / "environment.yml").read_text(encoding="utf-8"))
    tomllib.loads((out / "pyproject-uv.toml").read_text(encoding="utf-8"))


# -- check --markdown with a crashed check ---------------------------------------------------------------------------

def test_markdown_ends_the_crash_list_before_the_summary(monkeypatch):
    import gpudoctor.checks as checks
    from gpudoctor.checks import RegisteredCheck

    def explodes(facts, matrix):
        raise RuntimeError("boom")

    real = checks.registry
    monkeypatch.setattr(checks, "registry", lambda: (*real(), RegisteredCheck("explodes", explodes)))
    result = CliRunner().invoke(main, ["check", "--markdown", "--from", str(FACTS_DIR / "healthy-h100.json")])
    lines = result.stdout.splitlines()
    (crash,) = [i for i, line in enumerate(lines) if line.startswith("- crashed check `explodes`: RuntimeError: boom")]
    assert lines[crash + 1] == "" and lines[crash + 2].startswith("Summary")


# -- --deep: only the child's private result, each value of the snapshot's type ---------------------------------------

class _DeepChild:
    """The runner's run: writes ``answer`` to the result file the parent named, and prints ``stdout``."""

    def __init__(self, answer: object, stdout: str = ""):
        self.answer, self.stdout = answer, stdout

    def run(self, argv, timeout: float = 10.0) -> CommandResult:
        if self.answer is not None:
            Path(argv[-1]).write_text(json.dumps(self.answer))
        return CommandResult(tuple(argv), 0, self.stdout, "")


def test_a_json_line_printed_at_exit_is_not_the_deep_answer():
    from gpudoctor.probes.deep import run_child

    forged = json.dumps({"cuda_available": True, "device_count": 8})
    seen = run_child(_DeepChild({"cuda_available": False, "device_count": 0}, stdout="\n" + forged + "\n"), "torch")
    assert seen == {"cuda_available": False, "device_count": 0}
    with pytest.raises(ProbeFailed, match="died"):
        run_child(_DeepChild(None, stdout=forged + "\n"), "torch")  # printed, never written: no answer


@pytest.mark.parametrize("answer", [
    {"cuda_available": "yes"}, {"device_count": "8"}, {"device_count": 2**70}, {"arch_list": [90, "sm_80"]},
    {"cudnn": 90100}, {"import_error": ["x"]},
])
def test_a_forged_deep_answer_is_a_probe_error_and_never_a_fact(answer):
    from gpudoctor.probes.deep import run_child

    with pytest.raises(ProbeFailed, match="unusable answer"):
        run_child(_DeepChild(answer), "torch")


def test_keys_the_child_may_not_give_are_dropped():
    from gpudoctor.probes.deep import run_child

    assert run_child(_DeepChild({"version": "9.9", "path": "/x", "gpus_visible": 1}), "tensorflow") == {"gpus_visible": 1}
