"""`gpudoctor env --framework jax`: jax[cuda13] / jax[cuda12] pinned to a release this driver and GPU run, the CPU
build where there is no NVIDIA GPU (or no CUDA wheel for the OS), and exit 1 with the reasons when nothing fits."""

from __future__ import annotations

from click.testing import CliRunner

from gpudoctor.cli import main


def run(*args: str):
    return CliRunner().invoke(main, ["env", "--framework", "jax", *args], catch_exceptions=False)


def _requirements(tmp_path) -> list[str]:
    return [line for line in (tmp_path / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")]


def test_a_cuda13_driver_and_a_turing_or_newer_gpu_get_cuda13(tmp_path):
    result = run("--gpu", "RTX 4090", "--driver", "580.65.06", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert _requirements(tmp_path) == ["jax[cuda13]==0.10.2"]
    assert "RUN python -m pip install 'jax[cuda13]==0.10.2'" in (tmp_path / "Dockerfile").read_text()


def test_a_cuda12_driver_gets_cuda12_and_says_why_not_cuda13(tmp_path):
    result = run("--gpu", "RTX 4090", "--driver", "550.54.15", "--format", "pip", "-o", str(tmp_path))
    assert result.exit_code == 0
    assert _requirements(tmp_path) == ["jax[cuda12]==0.10.2"]
    assert "cuda13 needs NVIDIA driver >= 580 (installed: 550.54.15)" in result.stdout


def test_a_pascal_gpu_with_a_new_driver_stays_on_cuda12(tmp_path):
    result = run("--gpu", "GeForce GTX 1080", "--driver", "580.65.06", "--format", "pip", "-o", str(tmp_path))
    assert result.exit_code == 0
    assert _requirements(tmp_path) == ["jax[cuda12]==0.10.2"]
    assert "cuda13 needs compute capability >= 7.5" in result.stdout


def test_a_pinned_series_and_a_python(tmp_path):
    result = run("--gpu", "RTX 4090", "--driver", "580.65.06", "--framework-version", "0.7", "--python", "3.11",
                 "--format", "pip", "-o", str(tmp_path))  # fmt: skip
    assert result.exit_code == 0
    assert _requirements(tmp_path) == ["jax[cuda13]==0.7.2"]


def test_no_gpu_is_the_cpu_build(tmp_path):
    result = run("--cpu", "--format", "pip", "-o", str(tmp_path))
    assert result.exit_code == 0
    assert _requirements(tmp_path)[0].startswith("jax==")


def test_macos_is_the_cpu_build(tmp_path):
    result = run("--os", "darwin", "--arch", "arm64", "--format", "pip", "-o", str(tmp_path))
    assert result.exit_code == 0
    assert _requirements(tmp_path) == ["jax==0.10.2"]


def test_a_driver_too_old_for_any_plugin_is_exit_1_with_the_driver_to_install(tmp_path):
    result = run("--gpu", "GeForce GTX 1080", "--driver", "470.256.02", "-o", str(tmp_path))
    assert result.exit_code == 1
    assert "cuda12 needs NVIDIA driver >= 525 (installed: 470.256.02)" in result.output
    assert "upgrade the driver to >= 525" in result.output
    assert not any(tmp_path.iterdir())


def test_an_unknown_release_is_a_usage_error(tmp_path):
    result = run("--framework-version", "0.2", "-o", str(tmp_path))
    assert result.exit_code == 2
    assert "jax 0.2 is not in the compatibility matrix" in result.stderr
