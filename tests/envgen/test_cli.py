"""`gpudoctor env` end to end (real solver, real matrix, described machines and snapshots): exit codes, one-line
errors, files written only when they may be, stdout and --json."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main
from gpudoctor.envgen.render import FILENAMES, FORMATS

from . import parsing

V100_R580 = ["--gpu", "Tesla V100", "--driver", "580.65.06"]
GTX1080_R470 = ["--gpu", "GeForce GTX 1080", "--driver", "470.256.02"]


def run(*args: str):
    return CliRunner().invoke(main, ["env", *args], catch_exceptions=False)


def one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output + result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpudoctor: error: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def test_writes_every_file_prints_paths_and_next_commands(tmp_path):
    result = run("--framework", "torch", *V100_R580, "-o", str(tmp_path))
    assert result.exit_code == 0, result.output + result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(FILENAMES.values())
    for name in FILENAMES.values():
        assert str(tmp_path / name) in result.stdout
    assert f"conda env create -f {tmp_path / 'environment.yml'}" in result.stdout
    assert "gpudoctor verify" in result.stdout
    assert "V100 (CC 7.0), NVIDIA driver 580.65.06" in result.stdout
    _, requirements = parsing.requirements_file((tmp_path / "requirements.txt").read_text())
    assert "torch" in parsing.pins(requirements)


@pytest.mark.parametrize("fmt", FORMATS)
def test_format_writes_only_that_file(tmp_path, fmt):
    result = run("--framework", "torch", *V100_R580, "--format", fmt, "-o", str(tmp_path))
    assert result.exit_code == 0, result.output + result.stderr
    assert [p.name for p in tmp_path.iterdir()] == [FILENAMES[fmt]]


def test_existing_file_is_refused_byte_identical_and_nothing_else_written(tmp_path):
    mine = b"# mine\nnumpy==1.26.4\r\n"
    (tmp_path / "requirements.txt").write_bytes(mine)
    result = run("--framework", "torch", *V100_R580, "-o", str(tmp_path))
    line = one_line_error(result)
    assert "requirements.txt already exists" in line and "--force" in line
    assert (tmp_path / "requirements.txt").read_bytes() == mine
    assert [p.name for p in tmp_path.iterdir()] == ["requirements.txt"]


def test_second_run_is_refused_and_force_overwrites(tmp_path):
    assert run("--framework", "tf", *V100_R580, "-o", str(tmp_path)).exit_code == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    one_line_error(run("--framework", "torch", *V100_R580, "-o", str(tmp_path)))
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    result = run("--framework", "torch", *V100_R580, "-o", str(tmp_path), "--force")
    assert result.exit_code == 0
    assert "torch" in (tmp_path / "requirements.txt").read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--gpu", "GeForce RTX 9999 Hyper", "--driver", "550.54.15"], "unknown GPU 'GeForce RTX 9999 Hyper'"),
        (["--gpu", "RTX 4090", "--driver", "five-fifty"], "--driver 'five-fifty'"),
        (["--driver", "550.54.15"], "--driver describes the GPU's driver"),
        (["--gpu", "RTX 4090", "--python", "3"], "--python '3'"),
        (["--gpu", "RTX 4090", "--name", "my env"], "--name 'my env'"),
        (["--for", "snap.json", "--gpu", "RTX 4090"], "--for SNAPSHOT and --gpu/--driver/--os"),
        (["--for", "does-not-exist.json"], "cannot read does-not-exist.json"),
        (["--gpu", "RTX 4090", "--framework-version", "latest"], "--framework-version 'latest'"),
    ],
)
def test_usage_errors_are_one_line_exit_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    line = one_line_error(run("--framework", "torch", *args))
    assert message in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "content, message",
    [("{not json", "not valid JSON"), ('{"gpus": "RTX 4090"}', "key 'gpus' must be a list"), ("[]", "JSON object")],
)
def test_bad_snapshot_is_one_line_exit_2(tmp_path, content, message):
    snap = tmp_path / "snap.json"
    snap.write_text(content)
    line = one_line_error(run("--framework", "torch", "--for", str(snap), "-o", str(tmp_path / "out")))
    assert message in line
    assert not (tmp_path / "out").exists()


def test_snapshot_and_description_give_the_same_choice(tmp_path):
    snap = tmp_path / "v100.json"
    snap.write_text(json.dumps({
        "schema": "gpudoctor.facts/1",
        "host": {"os": "linux", "arch": "x86_64", "wsl": None, "python": "3.12.3"},
        "driver": {"version": "580.65.06", "cuda_version": "13.0", "kernel_module": "nvidia"},
        "gpus": [{"index": 0, "name": "Tesla V100-SXM2-16GB", "compute_capability": "7.0"}],
    }))
    from_snapshot = run("--framework", "torch", "--for", str(snap), "--python", "3.12", "--json", "--format", "pip", "-o", str(tmp_path / "a"))
    described = run("--framework", "torch", *V100_R580, "--python", "3.12", "--json", "--format", "pip", "-o", str(tmp_path / "b"))
    assert from_snapshot.exit_code == described.exit_code == 0, from_snapshot.output + described.output
    a, b = json.loads(from_snapshot.stdout), json.loads(described.stdout)
    assert a["choice"] == b["choice"]
    assert a["source"] == f"snapshot {snap}"
    assert "Tesla V100-SXM2-16GB (CC 7.0)" in a["target"]["summary"]


def test_nothing_fits_exit_1_with_reasons_and_what_to_change(tmp_path):
    result = run("--framework", "torch", "--framework-version", "2.8.0", *GTX1080_R470, "-o", str(tmp_path))
    assert result.exit_code == 1, result.output + result.stderr
    assert result.stdout.startswith("No torch build fits GeForce GTX 1080 (CC 6.1), NVIDIA driver 470.256.02")
    assert "What to change:" in result.stdout
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_nothing_fits_json(tmp_path):
    result = run("--framework", "torch", "--framework-version", "2.8.0", *GTX1080_R470, "--json", "-o", str(tmp_path))
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["files"] == [] and data["reasons"]
    assert data["schema"] == "gpudoctor.env/1"


def test_release_the_matrix_does_not_know_is_a_usage_error(tmp_path):
    line = one_line_error(run("--framework", "torch", "--framework-version", "9.9", *V100_R580, "-o", str(tmp_path)))
    assert "--framework-version 9.9: torch 9.9 is not in the compatibility matrix" in line
    assert list(tmp_path.iterdir()) == []


def test_json_prints_only_json_with_choice_and_files(tmp_path):
    result = run("--framework", "torch", *V100_R580, "--json", "-o", str(tmp_path))
    assert result.exit_code == 0
    data = json.loads(result.stdout)  # nothing but JSON on stdout
    assert data["ok"] is True and data["schema"] == "gpudoctor.env/1"
    assert [f["format"] for f in data["files"]] == list(FORMATS)
    assert all(os.path.exists(f["path"]) for f in data["files"])
    assert data["choice"]["framework"] == "torch" and data["choice"]["packages"]
    assert data["target"]["compute_capabilities"] == ["7.0"]


def test_json_usage_error_is_json_too(tmp_path):
    result = run("--framework", "torch", "--gpu", "RTX 9999 Hyper", "--json", "-o", str(tmp_path))
    assert result.exit_code == 2
    assert json.loads(result.stdout)["ok"] is False


def test_cpu_flag_says_so_plainly(tmp_path):
    result = run("--framework", "torch", *V100_R580, "--cpu", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "CPU-only build" in result.stdout
    assert "--gpus all" not in (tmp_path / "Dockerfile").read_text()


def test_name_option(tmp_path):
    result = run("--framework", "tf", *V100_R580, "--name", "Team.TF", "-o", str(tmp_path))
    assert result.exit_code == 0
    assert parsing.environment_yml((tmp_path / "environment.yml").read_text())["name"] == "Team.TF"
    assert "docker build -t team.tf" in result.stdout


def test_importing_the_command_loads_no_framework_and_no_jinja():
    code = (
        "import sys, gpudoctor.cli, gpudoctor.cli.env_cmd;"
        "bad = [m for m in ('torch', 'tensorflow', 'jinja2') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_help_runs():
    result = run("--help")
    assert result.exit_code == 0 and "--framework" in result.stdout and "--for" in result.stdout


# -- this machine (probed) and real snapshots --------------------------------------------------------------------

FACTS = os.path.join(os.path.dirname(__file__), os.pardir, "data", "facts")


def _facts(name: str):
    from gpudoctor.snapshot import facts_from_json

    with open(os.path.join(FACTS, name), encoding="utf-8") as handle:
        return facts_from_json(handle.read())


def test_probed_machine_is_solved_like_its_snapshot(tmp_path, monkeypatch):
    import gpudoctor.probes

    monkeypatch.setattr(gpudoctor.probes, "collect", lambda *a, **k: _facts("healthy-h100.json"))
    probed = run("--framework", "torch", "--json", "-o", str(tmp_path / "a"))
    from_file = run("--framework", "torch", "--for", os.path.join(FACTS, "healthy-h100.json"), "--json", "-o", str(tmp_path / "b"))
    assert probed.exit_code == from_file.exit_code == 0, probed.output + probed.stderr
    a, b = json.loads(probed.stdout), json.loads(from_file.stdout)
    assert a["source"] == "this machine" and a["choice"] == b["choice"]
    assert a["target"]["compute_capabilities"] == ["9.0"]


def test_probe_crash_is_exit_3_one_line(tmp_path, monkeypatch):
    import gpudoctor.probes

    def boom(*a, **k):
        raise RuntimeError("sysfs exploded")

    monkeypatch.setattr(gpudoctor.probes, "collect", boom)
    line = one_line_error(run("--framework", "torch", "-o", str(tmp_path)), code=3).replace("error: ", "")
    assert "sysfs exploded" in line and "--gpu" in line


@pytest.mark.parametrize("fixture", ["gpu-without-driver.json", "nouveau.json", "driver-library-mismatch.json"])
def test_gpu_no_driver_reports_is_warned_about_not_silently_cpu(tmp_path, fixture):
    result = run("--framework", "torch", "--for", os.path.join(FACTS, fixture), "-o", str(tmp_path))
    assert result.exit_code == 0, result.output + result.stderr
    assert "Warning: an NVIDIA GPU is on the PCI bus" in result.stdout
    for path in tmp_path.iterdir():
        assert "# Warning: an NVIDIA GPU is on the PCI bus" in path.read_text()
    data = json.loads(run("--framework", "torch", "--for", os.path.join(FACTS, fixture), "--json", "--format", "pip", "-o", str(tmp_path / "j")).stdout)
    assert data["choice"]["variant"] == "cpu" and data["warnings"]


def test_healthy_snapshot_has_no_warnings(tmp_path):
    data = json.loads(run("--framework", "tf", "--for", os.path.join(FACTS, "healthy-h100.json"), "--json", "-o", str(tmp_path)).stdout)
    assert data["warnings"] == [] and data["choice"]["variant"] == "and-cuda"


def test_real_run_on_this_machine(tmp_path):
    """The real probes, in a child process, as a user runs it (CI machines have no GPU; any machine must work)."""
    proc = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "env", "--framework", "tf", "--format", "pip", "-o", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Target (this machine)" in proc.stdout
    _, requirements = parsing.requirements_file((tmp_path / "requirements.txt").read_text())
    assert list(parsing.pins(requirements))[0].startswith("tensorflow")


# -- issue 10/11: inputs that used to be accepted or mis-read ------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["--gpu", "RTX 4090", "--python", "3.99"], "--python 3.99: no release in the compatibility matrix has wheels for it"),
        (["--gpu", "RTX 4090", "--python", ""], "--python '': expected a Python minor version"),
        (["--gpu", "RTX 4090", "--driver", ""], "--driver '': expected an NVIDIA driver version"),
        (["--gpu", "RTX 4090", "--framework-version", "9.9"], "torch 9.9 is not in the compatibility matrix"),
        (["--os", "darwin", "--gpu", "RTX 4090", "--driver", "550.54.15"], "macOS has no CUDA"),
        (["--gpu", "Jetson AGX Orin", "--arch", "x86_64"], "only comes in aarch64 machines"),
        (["--os", "windows", "--arch", "aarch64"], "Windows on x86_64 only"),
    ],
)
def test_more_usage_errors(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert message in one_line_error(run("--framework", "torch", *args))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("framework, container", [("torch", "nvcr.io/nvidia/l4t-pytorch"), ("tf", "nvcr.io/nvidia/l4t-tensorflow")])
def test_jetson_is_refused_with_the_jetpack_route(tmp_path, framework, container):
    result = run("--framework", framework, "--gpu", "Jetson AGX Orin", "-o", str(tmp_path / "out"))
    assert result.exit_code == 1, result.output
    assert "Linux aarch64" in result.stdout and "x86_64" not in result.stdout
    assert "install-pytorch-jetson-platform" in result.stdout and container in result.stdout
    assert not (tmp_path / "out").exists()


def test_driver_branch_reads_as_the_branch(tmp_path):
    result = run("--framework", "torch", "--gpu", "A10", "--driver", "550", "--json", "--format", "pip", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert "NVIDIA driver branch R550" in data["target"]["summary"]
    assert any("driver R550 supports CUDA 12.4" in r for r in data["choice"]["reasons"])


def test_skipped_releases_all_listed_with_verbose(tmp_path):
    args = ("--framework", "tf", "--gpu", "A100", "--driver", "470.82.01", "--format", "pip")
    short = run(*args, "-o", str(tmp_path / "a"))
    full = run(*args, "-v", "-o", str(tmp_path / "b"))
    assert short.exit_code == full.exit_code == 0
    assert "more skipped: -v lists them all" in short.stdout
    for series in ("2.21.0", "2.20.0", "2.19.1", "2.18.1", "2.17.1", "2.16.2", "2.15.1"):
        assert f"skipped: tensorflow {series} needs CUDA" in full.stdout, series


def test_untrusted_gpu_name_cannot_inject_lines(tmp_path):
    snap = tmp_path / "evil.json"
    snap.write_text(json.dumps({
        "schema": "gpudoctor.facts/1",
        "host": {"os": "linux", "arch": "x86_64", "python": "3.12.3"},
        "driver": {"version": "580.65.06", "cuda_version": "13.0"},
        "gpus": [{"index": 0, "name": "RTX 4090\nRUN rm -rf /\x1b[31m\r\n- evil: 1", "compute_capability": "8.9"}],
    }))
    result = run("--framework", "torch", "--for", str(snap), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output + result.stderr
    assert "\x1b" not in result.stdout
    docker = (tmp_path / "out" / "Dockerfile").read_text()
    assert "\nRUN rm -rf" not in docker and "\x1b" not in docker and "\r" not in docker
    parsing.environment_yml((tmp_path / "out" / "environment.yml").read_text())
    assert not any(line.startswith("- evil") for line in (tmp_path / "out" / "requirements.txt").read_text().splitlines())


def test_failed_write_leaves_no_empty_directory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    target = tmp_path / "new" / "deeper"
    os.chmod(tmp_path, 0o555)
    try:
        result = run("--framework", "torch", "--gpu", "A100", "--driver", "580.65.06", "-o", str(target))
    finally:
        os.chmod(tmp_path, 0o755)
    if os.geteuid() == 0:  # root ignores the permission: then the files are written, and that is all
        assert result.exit_code == 0
        return
    one_line_error(result)
    assert not (tmp_path / "new").exists()


def test_tf_114_writes_a_python_37_cuda_100_environment_that_parses(tmp_path):
    """Issue 10: a pinned TF 1.14 gets tensorflow-gpu 1.14.0 on Python 3.7 with CUDA 10.0 / cuDNN 7.x from conda-forge,
    the loader path, and a Dockerfile that takes the same CUDA / cuDNN from conda-forge on a conda base image (NVIDIA
    deleted the nvidia/cuda:10.0 images in 2023)."""
    result = run("--framework", "tf", "--framework-version", "1.14", "--gpu", "GTX 1080 Ti", "--driver", "418.87.00", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output + result.stderr
    env = parsing.environment_yml((tmp_path / "environment.yml").read_text())
    deps = [d for d in env["dependencies"] if isinstance(d, str)]
    assert deps[0] == "python=3.7" and "cudatoolkit=10.0" in deps
    (cudnn,) = [d for d in deps if d.startswith("cudnn=")]
    assert cudnn.split("=")[1].startswith("7.")
    _, in_conda = parsing.conda_pip_section(env)
    assert parsing.pins(in_conda)["tensorflow-gpu"] == "1.14.0"
    _, requirements = parsing.requirements_file((tmp_path / "requirements.txt").read_text())
    assert parsing.pins(requirements)["tensorflow-gpu"] == "1.14.0"
    assert "conda install -c conda-forge cudatoolkit=10.0" in (tmp_path / "requirements.txt").read_text()
    dockerfile = (tmp_path / "Dockerfile").read_text()
    _, in_docker, image = parsing.dockerfile_pip(dockerfile)
    assert image.startswith("mambaorg/micromamba:") and parsing.base_image_status(image) == "available"
    assert parsing.pins(in_docker)["tensorflow-gpu"] == "1.14.0"
    assert parsing.conda_packages(dockerfile) == ["python=3.7", "pip", *deps[2:]]  # environment.yml's own list
    assert "ENV LD_LIBRARY_PATH=/opt/conda/lib/\n" in dockerfile and "/opt/conda/bin/python -m pip install" in dockerfile
    uv = parsing.uv_pyproject((tmp_path / "pyproject-uv.toml").read_text())
    if uv is not None:
        assert uv["project"]["requires-python"] == "==3.7.*"
    assert "LD_LIBRARY_PATH=$CONDA_PREFIX/lib/" in result.stdout


@pytest.mark.parametrize("version, cudnn", [("1.2", "5"), ("1.4", "6")])
def test_tf_before_1_5_on_a_gpu_is_refused_with_the_real_reason(tmp_path, version, cudnn):
    # TensorFlow 1.0-1.4 need CUDA 8.0 and cuDNN 5.1/6: no conda-forge build and no nvidia/cuda:8.0 image remains.
    result = run("--framework", "tf", "--framework-version", version, "--gpu", "GeForce GTX 1080", "--driver", "384.130", "-o", str(tmp_path))
    assert result.exit_code == 1, result.output + result.stderr
    assert f"needs CUDA 8.0 with exactly cuDNN {cudnn} (libcudnn.so.{cudnn})" in result.output
    assert "deleted the nvidia/cuda:8.0 images" in result.output
    assert "upgrade the driver" not in result.output  # driver 384.130 runs CUDA 8.0: the driver is not the blocker
    assert "tensorflow 1.12.3" in result.output  # the newest release this machine runs
    assert list(tmp_path.iterdir()) == []
    cpu = run("--framework", "tf", "--framework-version", version, "--cpu", "-o", str(tmp_path / "cpu"))
    assert cpu.exit_code == 0 and "CPU build" in cpu.output
