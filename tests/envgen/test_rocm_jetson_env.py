"""`env` for AMD GPUs (the ROCm wheel index), Jetson modules (NVIDIA's JetPack wheel index) and Apple silicon's MPS
wording. Every generated file is parsed back and its pins checked against matrices/rocm.toml, amd_gpus.toml and
jetpack.toml (read through the loaded matrix, never restated here)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from packaging.version import Version

from gpudoctor.cli import main
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.solver.solve import target_from_facts
from gpudoctor.matrix.tables.versions import vtuple
from gpudoctor.model import AmdGpu, Facts, Host, Jetson

from .parsing import conda_pip_section, dockerfile_pip, environment_yml, pins, requirements_file, uv_pyproject

MATRIX = load_matrix()
ROCM = MATRIX.rocm


def _env(tmp_path, *args: str):
    result = CliRunner().invoke(main, ["env", *args, "-o", str(tmp_path)])
    written = {p.name: p.read_text() for p in tmp_path.iterdir()} if tmp_path.exists() else {}
    return result, written


def _expected_rocm_wheel(gpu: str):
    """The newest rocm.toml row whose arch list carries the GPU's gfx target (amd_gpus.toml) and whose torch
    release the matrix knows, and the index it is published to."""
    gfx = ROCM.gfx_for(gpu)
    assert gfx, gpu
    row = next(w for w in reversed(ROCM.wheels) if gfx in w.arch and MATRIX.torch_release(w.torch))
    rocm = max(row.rocm, key=vtuple)
    return row, rocm, f"{ROCM.index_url}rocm{rocm}"


@pytest.mark.parametrize("gpu", ["Radeon RX 7900 XTX", "AMD Instinct MI300X", "MI250X", "Radeon PRO W7900", "RX 6800 XT"])
def test_amd_gpu_gets_the_newest_rocm_wheel_that_carries_its_gfx_target(tmp_path, gpu):
    result, files = _env(tmp_path, "--framework", "torch", "--gpu", gpu)
    assert result.exit_code == 0, result.output
    row, rocm, index = _expected_rocm_wheel(gpu)
    exact = MATRIX.torch_release(row.torch).latest

    options, requirements = requirements_file(files["requirements.txt"])
    assert options == [f"--index-url {index}"]
    assert pins(requirements)["torch"] == exact
    conda_options, conda_requirements = conda_pip_section(environment_yml(files["environment.yml"]))
    assert conda_options == [f"--index-url {index}"] and pins(conda_requirements)["torch"] == exact
    assert "not PyTorch's official ROCm route" in files["environment.yml"]
    uv = uv_pyproject(files["pyproject-uv.toml"])
    if uv is not None:
        assert [i["url"] for i in uv["tool"]["uv"]["index"]] == [index]
    assert f"ROCm {rocm}" in result.output and "CPU-only" not in result.output
    if not row.arch_confirmed:
        assert "unconfirmed" in result.output  # the report says the arch list was not read from the wheel

    image = ROCM.image_for(rocm)
    if image is None:
        assert "Dockerfile" not in files and "no confirmed rocm/dev-ubuntu-22.04 image tag" in result.output
    else:
        docker_options, docker_requirements, base = dockerfile_pip(files["Dockerfile"])
        assert base == image.image and docker_options == [f"--index-url {index}"]
        assert pins(docker_requirements)["torch"] == exact
        assert "--device /dev/kfd --device /dev/dri" in files["Dockerfile"] and "--gpus all" not in files["Dockerfile"]
        assert f"python{image.python} -m pip install" in files["Dockerfile"]


def test_a_pinned_release_without_a_confirmed_image_tag_writes_no_dockerfile(tmp_path):
    result, files = _env(tmp_path, "--framework", "torch", "--framework-version", "2.5", "--gpu", "Radeon RX 7900 XTX")
    assert result.exit_code == 0, result.output
    row = ROCM.for_torch("2.5")
    rocm = max(row.rocm, key=vtuple)
    assert ROCM.image_for(rocm) is None  # the premise: rocm.toml names no image for this ROCm
    assert requirements_file(files["requirements.txt"])[0] == [f"--index-url {ROCM.index_url}rocm{rocm}"]
    assert "Dockerfile" not in files
    assert f"Not written: Dockerfile (gpudoctor has no confirmed rocm/dev-ubuntu-22.04 image tag for ROCm {rocm}" in result.output


def test_a_gfx_target_no_official_wheel_carries_is_refused_with_the_override_named(tmp_path):
    assert all("gfx1010" not in w.arch for w in ROCM.wheels)  # the premise, from rocm.toml
    result, files = _env(tmp_path, "--framework", "torch", "--gpu", "RX 5700 XT")
    assert result.exit_code == 1, result.output
    assert files == {}
    assert "gfx1010" in result.output and "HSA_OVERRIDE_GFX_VERSION" in result.output
    assert "AMD does not support" in result.output and "PYTORCH_ROCM_ARCH=gfx1010" in result.output


def test_tensorflow_on_an_amd_gpu_is_refused_plainly(tmp_path):
    result, files = _env(tmp_path, "--framework", "tf", "--gpu", "AMD Instinct MI300X")
    assert result.exit_code == 1 and files == {}
    assert "tensorflow-rocm" in result.output


def test_amd_on_native_windows_is_refused_and_cpu_still_works(tmp_path):
    result, files = _env(tmp_path / "w", "--framework", "torch", "--gpu", "Radeon RX 7900 XTX", "--os", "windows")
    assert result.exit_code == 1 and "Linux x86_64 only" in result.output and files == {}
    result, files = _env(tmp_path / "c", "--framework", "torch", "--gpu", "Radeon RX 7900 XTX", "--cpu", "--format", "pip")
    assert result.exit_code == 0, result.output
    assert requirements_file(files["requirements.txt"])[0] == [f"--index-url {MATRIX.torch_index('cpu')}"]


@pytest.mark.parametrize("args", [("--gpu", "RTX 4090", "--gpu", "MI300X"), ("--gpu", "MI300X", "--driver", "550.54")])
def test_amd_descriptions_that_make_no_sense_are_usage_errors(tmp_path, args):
    result, files = _env(tmp_path, "--framework", "torch", *args)
    assert result.exit_code == 2 and files == {}
    assert "Traceback" not in result.output


def test_a_snapshot_with_an_amd_gpu_targets_its_gfx(tmp_path):
    facts = Facts(host=Host(os="linux", arch="x86_64", python="3.12"), gpus=(), amd_gpus=(AmdGpu(0, "AMD Radeon RX 7900 XTX", "gfx1100"),))
    target = target_from_facts(facts, MATRIX)
    assert target.gfx == ("gfx1100",) and target.compute_capabilities == ()


# -- Jetson ------------------------------------------------------------------------------------------------------


def _confirmed_jetpacks():
    return [r for r in MATRIX.platform_tables.jetpack if "torch_index" not in r.unconfirmed and not r.torch_index.endswith("/pytorch/")]


def _unconfirmed_jetpacks():
    return [r for r in MATRIX.platform_tables.jetpack if r not in _confirmed_jetpacks()]


@pytest.mark.parametrize("row", _confirmed_jetpacks(), ids=lambda r: f"jp{r.jetpack}")
def test_jetson_with_a_confirmed_jetpack_gets_its_wheel_index(tmp_path, row):
    result, files = _env(tmp_path, "--framework", "torch", "--gpu", "Jetson AGX Orin", "--jetpack", row.jetpack)
    assert result.exit_code == 0, result.output
    assert set(files) == {"requirements.txt"}  # no conda, uv or Docker file: jetpack.toml confirms no image
    options, requirements = requirements_file(files["requirements.txt"])
    assert options == [f"--index-url {row.torch_index}"]
    torch = next(r for r in requirements if r.name == "torch")
    newest = max(row.torch, key=vtuple)
    assert torch.specifier.contains(Version(f"{newest}.0")) and all(torch.specifier.contains(Version(f"{s}.0")) for s in row.torch)
    assert not torch.specifier.contains(Version(f"{vtuple(newest)[0]}.{vtuple(newest)[1] + 1}.0"))
    assert f"Python {row.python}" in files["requirements.txt"]
    assert "Not written: Dockerfile" in result.output and "Not written: environment.yml" in result.output


@pytest.mark.parametrize("row", _unconfirmed_jetpacks(), ids=lambda r: f"jp{r.jetpack}")
def test_jetson_with_an_unconfirmed_wheel_index_writes_nothing_and_says_why(tmp_path, row):
    result, files = _env(tmp_path, "--framework", "torch", "--gpu", "Jetson AGX Orin", "--jetpack", row.jetpack)
    assert result.exit_code == 1 and files == {}
    assert "unconfirmed" in result.output and row.torch_index in result.output


def test_jetson_without_its_jetpack_release_asks_for_it(tmp_path):
    result, files = _env(tmp_path, "--framework", "torch", "--gpu", "Jetson AGX Orin")
    assert result.exit_code == 1 and files == {}
    assert "--jetpack" in result.output


@pytest.mark.parametrize("args", [("--gpu", "RTX 4090", "--jetpack", "6.2"), ("--gpu", "Jetson AGX Orin", "--jetpack", "9.9"), ("--jetpack", "6.2",)])
def test_jetpack_misuse_is_a_usage_error(tmp_path, args):
    result, files = _env(tmp_path, "--framework", "torch", *args)
    assert result.exit_code == 2 and files == {} and "--jetpack" in result.output


def test_a_jetson_snapshot_knows_its_jetpack_from_the_l4t_release():
    row = _confirmed_jetpacks()[0]
    facts = Facts(host=Host(os="linux", arch="aarch64"), jetson=Jetson(l4t=row.l4t))
    assert target_from_facts(facts, MATRIX).jetpack == row.jetpack


# -- Apple silicon ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("framework,extra", [("torch", ()), ("tf", ("--python", "3.12"))])
def test_apple_silicon_builds_say_mps_not_cpu_only(tmp_path, framework, extra):
    result, files = _env(tmp_path, "--framework", framework, "--os", "darwin", "--arch", "arm64", "--format", "pip", *extra)
    assert result.exit_code == 0, result.output
    assert "MPS (Metal)" in result.output and "CPU-only" not in result.output
    assert "MPS (Metal)" in files["requirements.txt"]


def test_apple_silicon_tensorflow_without_a_metal_wheel_stays_cpu_only(tmp_path):
    result, _ = _env(tmp_path, "--framework", "tf", "--os", "darwin", "--arch", "arm64", "--python", "3.13", "--format", "pip")
    assert result.exit_code == 0 and "CPU-only" in result.output and "MPS" not in result.output


def test_intel_mac_torch_is_the_last_x86_64_release(tmp_path):
    result, files = _env(tmp_path, "--framework", "torch", "--os", "darwin", "--arch", "x86_64", "--format", "pip")
    assert result.exit_code == 0, result.output
    torch = pins(requirements_file(files["requirements.txt"])[1])["torch"]
    assert vtuple(torch)[:2] == vtuple(MATRIX.platforms.torch_macos_x86_64_last)[:2]
