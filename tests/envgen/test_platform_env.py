"""env on Apple silicon: TensorFlow with the tensorflow-metal of its release (matrices/apple.toml), where the plug-in
has a wheel for the Python; and the JetPack route for a Jetson GPU (already in envgen: checked here, not rebuilt)."""

from __future__ import annotations

from click.testing import CliRunner

from gpudoctor.cli import main


def _env(tmp_path, *args: str) -> tuple[str, str]:
    result = CliRunner().invoke(main, ["env", *args, "--format", "pip", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return result.output, (tmp_path / "requirements.txt").read_text()


def test_apple_silicon_tensorflow_gets_its_metal_plugin(tmp_path):
    output, requirements = _env(tmp_path, "--framework", "tf", "--os", "darwin", "--arch", "arm64", "--python", "3.12")
    assert "tensorflow-metal==1.2.*" in requirements.splitlines()
    assert "tensorflow-metal 1.2" in output


def test_apple_silicon_on_a_python_without_a_metal_wheel_says_so(tmp_path):
    output, requirements = _env(tmp_path, "--framework", "tf", "--os", "darwin", "--arch", "arm64", "--python", "3.13")
    assert not [line for line in requirements.splitlines() if line.startswith("tensorflow-metal")]
    assert "no wheel for Python 3.13" in output and "--python 3.12" in output


def test_an_older_tensorflow_pins_the_older_plugin(tmp_path):
    _, requirements = _env(tmp_path, "--framework", "tf", "--framework-version", "2.16.2", "--os", "darwin", "--arch", "arm64", "--python", "3.11")
    assert "tensorflow-metal==1.1.*" in requirements.splitlines()


def test_torch_on_apple_silicon_is_the_package_index_wheel(tmp_path):
    output, requirements = _env(tmp_path, "--framework", "torch", "--os", "darwin", "--arch", "arm64")
    assert "download.pytorch.org" not in requirements
    assert any(line.startswith("torch==") for line in requirements.splitlines())
