"""The real solver and matrix on a grid of described machines: the asserted choice for each, every template rendered
for each, and every generated file parsed back (YAML, requirements, Dockerfile pip line, TOML)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from click.testing import CliRunner

from packaging.requirements import Requirement

from gpudoctor.cli import main
from gpudoctor.envgen.describe import summarize_target, target_from_description
from gpudoctor.envgen.plan import make_plan
from gpudoctor.envgen.render import FILENAMES, FORMATS, FileSet, default_env_name, render_files
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.solver.solve import NoFit

from .grid_cases import more_cases
from .parsing import assert_files_mean

TORCH_INDEX = "https://download.pytorch.org/whl/"


@dataclass(frozen=True)
class Case:
    id: str
    framework: str
    gpus: tuple[str, ...]
    driver: str | None
    os: str = "linux"
    python: str | None = None
    cpu: bool = False
    # what the solver must choose
    version: str = ""
    variant: str | tuple[str, ...] = ""
    packages: tuple[str, ...] | None = None  # the requirements (see _assert_selects)
    want_python: str | None = None
    conda_packages: tuple[str, ...] = ()
    says: tuple[str, ...] = ()  # fragments the reasons + notes must contain
    docker: tuple[str, str] | None = None  # (version, variant) of the Dockerfile's own choice, when it differs
    extra: dict = field(default_factory=dict)
    arch: str | None = None
    pin: str | None = None  # --framework-version
    docker_image: str | None = None  # the Dockerfile's FROM when it is not python:X-slim


CASES = [
    Case("rtx5090-r570-torch", "torch", ("GeForce RTX 5090",), "570.124.04",
         version="2.11.0", variant="cu128", packages=("torch==2.11.0", "torchvision==0.26.0"),
         says=("sm_120", "torch 2.14.1+cu126 has no code for compute capability 12.0", "driver >= 580.65.06")),
    Case("rtx5090-r570-tf", "tensorflow", ("GeForce RTX 5090",), "570.124.04",
         version="2.21.0", variant="and-cuda", packages=("tensorflow[and-cuda]==2.21.0",), says=("PTX",)),
    Case("t4-r535-torch", "torch", ("Tesla T4",), "535.104.05",
         version="2.14.1", variant="cu126", packages=("torch==2.14.1", "torchvision==0.29.1"),
         says=("supports CUDA 12.2", "minor-version compatibility", "sm_75")),
    Case("t4-r535-tf", "tensorflow", ("Tesla T4",), "535.104.05",
         version="2.21.0", variant="and-cuda", packages=("tensorflow[and-cuda]==2.21.0",)),  # 7.5: no cuDNN pin
    Case("v100-r580-torch", "torch", ("Tesla V100-SXM2-16GB",), "580.65.06",
         version="2.14.1", variant="cu126", packages=("torch==2.14.1", "torchvision==0.29.1"),
         says=("sm_70", "torch 2.15.0+cu130 has no code for compute capability 7.0", "cuDNN 9.10.2.21 (compute capability >= 5.0)")),
    Case("v100-r580-tf", "tensorflow", ("Tesla V100-SXM2-16GB",), "580.65.06",
         version="2.21.0", variant="and-cuda", packages=("tensorflow[and-cuda]==2.21.0", "nvidia-cudnn-cu12==9.3.0.75"),
         says=("cuDNN >= 9.11 no longer supports compute capability < 7.5",)),
    Case("gtx1080-r470-torch", "torch", ("GeForce GTX 1080",), "470.256.02",
         version="2.7.1", variant="cu118", packages=("torch==2.7.1", "torchvision==0.22.1"),
         says=("supports CUDA 11.4", "driver >= 525.60.13", "ships cuDNN 9.1.0.70 (compute capability >= 5.0)")),
    Case("gtx1080-r470-tf", "tensorflow", ("GeForce GTX 1080",), "470.256.02",
         version="2.14.1", variant="and-cuda", packages=("tensorflow[and-cuda]==2.14.1",), want_python="3.10",
         says=("CUDA 11.8", "its `and-cuda` set needs Python <= 3.10 (tensorrt==8.5.3.1 has no newer wheels)")),
    Case("h100-r580-torch", "torch", ("NVIDIA H100 80GB HBM3",), "580.65.06",
         version="2.15.0", variant=("cu130", "cu132"), says=("sm_90",)),
    Case("h100-r580-torch-py310", "torch", ("NVIDIA H100 80GB HBM3",), "580.65.06", python="3.10",
         version="2.14.1", variant="cu130", want_python="3.10", says=("Python 3.10",)),
    Case("8xh100-r580-tf", "tensorflow", ("H100",) * 8, "580.65.06",
         version="2.21.0", variant="and-cuda", packages=("tensorflow[and-cuda]==2.21.0",)),
    Case("mixed-v100-a100-r580-torch", "torch", ("Tesla V100", "A100"), "580.65.06",
         version="2.14.1", variant="cu126", says=("compute capability 7.0", "compute capability 8.0")),
    Case("cpu-only-torch", "torch", (), None,
         version="2.15.0", variant="cpu", packages=("torch==2.15.0",), says=("no NVIDIA GPU",), extra={"index": "cpu"}),
    Case("cpu-only-tf", "tensorflow", (), None,
         version="2.21.0", variant="cpu", packages=("tensorflow==2.21.0",), says=("no NVIDIA GPU",)),
    Case("cpu-flag-on-gpu-torch", "torch", ("RTX 4090",), "550.54.15", cpu=True,
         version="2.15.0", variant="cpu", says=("CPU build was asked for",)),
    Case("windows-rtx3060-tf", "tensorflow", ("GeForce RTX 3060",), "551.86", os="windows",
         version="2.10.1", variant="cuda-11.2-conda", packages=("tensorflow==2.10.1",), want_python="3.10",
         conda_packages=("cudatoolkit=11.2", "cudnn=8.1.0"), says=("native Windows", "WSL2"),
         docker=("2.21.0", "and-cuda")),
    Case("windows-rtx3060-torch", "torch", ("GeForce RTX 3060",), "551.86", os="windows",
         version="2.14.1", variant="cu126", says=("CPU-only build",), docker=("2.14.1", "cu126")),
    Case("wsl-rtx4090-tf", "tensorflow", ("RTX 4090",), "551.86", os="wsl",
         version="2.21.0", variant="and-cuda"),
    Case("macos-torch", "torch", (), None, os="darwin",
         version="2.15.0", variant="cpu", says=("macOS arm64",), extra={"index": None}, docker=("2.15.0", "cpu")),
] + more_cases(Case)


def _assert_selects(requirements, expected) -> None:
    """The solver's requirements name the expected projects (with extras), each an == pin that selects the expected
    exact version (``==0.26.0``, or ``==0.26.*`` where the matrix knows only the companion's series)."""

    def key(req):
        return req.name + (f"[{','.join(sorted(req.extras))}]" if req.extras else "")

    got = {key(r): r for r in map(Requirement, requirements)}
    want = {key(r): next(iter(r.specifier)).version for r in map(Requirement, expected)}
    assert list(got) == list(want), requirements
    for name, version in want.items():
        (spec,) = got[name].specifier
        assert spec.operator == "==" and spec.contains(version), (str(got[name]), version)


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def _plan(matrix, case: Case):
    target = target_from_description(matrix, case.gpus, case.driver, case.os, case.python, case.arch)
    return make_plan(matrix, target, case.framework, case.pin, cpu=case.cpu)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_solver_choice(matrix, case):
    choice = _plan(matrix, case).choice
    assert choice.framework == case.framework
    assert choice.version == case.version
    variants = case.variant if isinstance(case.variant, tuple) else (case.variant,)
    assert choice.variant in variants
    if case.packages is not None:
        _assert_selects(choice.packages, case.packages)
    assert choice.packages[0] == (f"torch=={case.version}" if case.framework == "torch" else choice.packages[0])
    if case.want_python:
        assert choice.python == case.want_python
    assert choice.conda_packages == case.conda_packages
    explained = "\n".join(choice.reasons + choice.notes + choice.skipped)
    for fragment in case.says:
        assert fragment in explained, explained
    release = (matrix.torch_release if case.framework == "torch" else matrix.tf_release)(choice.version)
    assert release is not None and choice.version in release.versions  # every pin is a release the matrix knows
    assert choice.python in release.python
    if choice.cuda and case.framework == "torch" and target_arch(matrix, case) == "x86_64":
        assert release.variant(choice.variant).cuda == choice.cuda
    if case.framework == "torch":
        index = case.extra.get("index", choice.variant)
        assert choice.index_url == (TORCH_INDEX + index if index else None)
    else:
        assert choice.index_url is None
    assert (choice.cuda is None) == (choice.variant == "cpu")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_template_renders_and_parses(matrix, case):
    plan = _plan(matrix, case)
    assert plan.formats == FORMATS and not plan.skipped
    if case.docker:
        assert (plan.docker_choice.version, plan.docker_choice.variant) == case.docker
        assert plan.docker_target.os == "linux"
    else:
        assert plan.docker_choice == plan.choice
    assert plan.docker_image == case.docker_image
    fileset = FileSet(
        plan.choice, default_env_name(plan.choice), summarize_target(plan.target, case.gpus), docker_choice=plan.docker_choice,
        docker_image=plan.docker_image, docker_pip_upgrade=plan.docker_pip_upgrade, docker_conda_prefix=plan.docker_conda_prefix,
    )
    files = render_files(fileset, plan.formats)
    assert list(files) == [FILENAMES[f] for f in FORMATS]
    assert_files_mean(files, plan.choice, docker_choice=plan.docker_choice, docker_image=plan.docker_image)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cli_writes_the_same_choice(matrix, case, tmp_path):
    args = ["env", "--framework", "tf" if case.framework == "tensorflow" else "torch", "--os", case.os, "--json", "-o", str(tmp_path)]
    for gpu in case.gpus:
        args += ["--gpu", gpu]
    if case.driver:
        args += ["--driver", case.driver]
    if case.python:
        args += ["--python", case.python]
    if case.cpu:
        args.append("--cpu")
    if case.arch:
        args += ["--arch", case.arch]
    if case.pin:
        args += ["--framework-version", case.pin]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output + result.stderr
    data = json.loads(result.stdout)
    plan = _plan(matrix, case)
    assert data["choice"]["version"] == plan.choice.version and data["choice"]["packages"] == list(plan.choice.packages)
    written = {f["format"]: tmp_path / FILENAMES[f["format"]] for f in data["files"]}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in written.values())
    files = {p.name: p.read_text() for p in written.values()}
    assert_files_mean(files, plan.choice, docker_choice=plan.docker_choice, docker_image=plan.docker_image)
    if plan.docker_choice is not None and plan.docker_choice != plan.choice:  # the image is named after what it installs
        assert f"docker build -t {default_env_name(plan.docker_choice).lower()} " in files["Dockerfile"]


def target_arch(matrix, case):
    return target_from_description(matrix, case.gpus, case.driver, case.os, case.python, case.arch).arch


# -- nothing fits ------------------------------------------------------------------------------------------------


def test_pinned_release_the_driver_cannot_run(matrix):
    target = target_from_description(matrix, ("GeForce GTX 1080",), "470.256.02")
    with pytest.raises(NoFit) as info:
        make_plan(matrix, target, "torch", "2.8")
    assert any("driver >= 525.60.13" in r for r in info.value.reasons), info.value.reasons
    assert "2.7.1+cu118" in info.value.suggestion and ">= 525.60.13" in info.value.suggestion


def test_pinned_release_without_the_gpus_architecture(matrix):
    target = target_from_description(matrix, ("Tesla V100",), "580.65.06")
    with pytest.raises(NoFit) as info:
        make_plan(matrix, target, "torch", "2.15.0")
    assert any("compute capability 7.0" in r for r in info.value.reasons)


def test_nofit_cli_says_why_and_what_to_change(tmp_path):
    result = CliRunner().invoke(
        main,
        ["env", "--framework", "torch", "--framework-version", "2.8", "--gpu", "GTX 1080", "--driver", "470.256.02", "-o", str(tmp_path)],
    )
    assert result.exit_code == 1
    assert "driver >= 525.60.13" in result.stdout
    assert "What to change: the newest torch this machine runs is torch 2.7.1+cu118" in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_windows_tf_pinned_past_2_10_fails_with_the_wsl2_route(matrix):
    target = target_from_description(matrix, ("RTX 3060",), "551.86", "windows")
    with pytest.raises(NoFit) as info:
        make_plan(matrix, target, "tensorflow", "2.16")
    assert "WSL2" in " ".join(info.value.reasons) + (info.value.suggestion or "")


def test_dockerfile_only_for_windows_uses_the_linux_choice(matrix):
    target = target_from_description(matrix, ("RTX 3060",), "551.86", "windows")
    plan = make_plan(matrix, target, "tensorflow", formats=("docker",))
    assert plan.formats == ("docker",)
    assert plan.docker_choice.variant == "and-cuda" and plan.choice.variant == "cuda-11.2-conda"
