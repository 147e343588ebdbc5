"""What the written files say for the cases their rules single out (issue 11): the environment a conda TensorFlow
1.x needs (in the header too), the pre-2.1 TensorFlow smoke test in the Dockerfile, the uv index named after the
PyTorch wheel index, and ROCm containers given the AMD devices instead of --gpus."""

from __future__ import annotations

import dataclasses

from gpudoctor.envgen.generate import EnvRequest, generate
from gpudoctor.envgen.render import ROCM_DEVICES, next_commands
from gpudoctor.matrix import load_matrix

MATRIX = load_matrix()


def test_tf114_files_say_what_the_environment_needs_and_smoke_test_with_the_old_api(tmp_path):
    generate(EnvRequest(framework="tf", version="1.14", output_dir=tmp_path, gpus=("GTX 1080",), driver="410.48", formats=("conda", "docker")),
             MATRIX)
    assert "# Needs in the environment: LD_LIBRARY_PATH=$CONDA_PREFIX/lib/\n" in (tmp_path / "environment.yml").read_text()
    dockerfile = (tmp_path / "Dockerfile").read_text()
    assert "tf.test.is_gpu_available()" in dockerfile and "list_physical_devices" not in dockerfile  # that API came with 2.1


def test_the_uv_index_is_named_after_the_pytorch_wheel_index(tmp_path):
    result = generate(EnvRequest(framework="torch", output_dir=tmp_path, gpus=("RTX 4090",), driver="560.94", formats=("uv",)), MATRIX)
    assert f'name = "pytorch-{result.plan.choice.variant}"' in (tmp_path / "pyproject-uv.toml").read_text()


def test_a_rocm_container_gets_the_amd_devices(tmp_path):
    result = generate(EnvRequest(framework="torch", output_dir=tmp_path, gpus=("RTX 4090",), driver="560.94", formats=("docker",)), MATRIX)
    rocm = dataclasses.replace(result.plan.choice, accelerator="rocm", variant="rocm6.2", cuda=None)
    build, run = next_commands("docker", "Dockerfile", "Proj", rocm, "out")
    assert run == f"docker run {ROCM_DEVICES} --rm -it proj"
