"""The commands `gpudoctor env` prints after writing (issue 11): the container runs with the GPUs only for a GPU
build, under the lower-cased name; gpudoctor itself is installed only where it can run; the header's command line
repeats every option given."""

from __future__ import annotations

import shlex

from gpudoctor.envgen.generate import EnvRequest, generate, invocation
from gpudoctor.envgen.render import gpudoctor_requirement
from gpudoctor.matrix import load_matrix

MATRIX = load_matrix()


def test_a_gpu_build_runs_its_container_with_the_gpus(tmp_path):
    out = tmp_path / "My Env"
    result = generate(EnvRequest(framework="torch", version="2.4.1", python="3.11", output_dir=out, gpus=("RTX 4090",), driver="560.94",
                                 os="linux", arch="x86_64", name="Proj"), MATRIX)
    own = shlex.quote(gpudoctor_requirement("3.11"))
    conda, pip, docker, uv, verify = result.next_steps
    assert conda == f"conda env create -f {shlex.quote(str(out / 'environment.yml'))} && conda activate Proj && pip install {own}"
    assert pip == f"python3.11 -m venv .venv && . .venv/bin/activate && pip install -r {shlex.quote(str(out / 'requirements.txt'))} && pip install {own}"
    assert docker == f"docker build -t proj {shlex.quote(str(out))} && docker run --gpus all --rm -it proj"
    assert uv == f"use {out / 'pyproject-uv.toml'} as (or merge it into) pyproject.toml, then: uv sync"
    assert verify.startswith("gpudoctor verify   (inside the new environment") and verify.endswith("proves that it trains on the GPU)")


def test_a_cpu_container_runs_without_gpus(tmp_path):
    result = generate(EnvRequest(framework="torch", output_dir=tmp_path, os="linux", formats=("docker",)), MATRIX)
    docker, verify = result.next_steps
    assert docker.endswith(" && docker run --rm -it " + result.docker_name.lower())
    assert verify.endswith("proves that it trains on the CPU)")


def test_no_gpudoctor_install_where_it_cannot_run(tmp_path):
    result = generate(EnvRequest(framework="tf", version="1.14", output_dir=tmp_path, gpus=("GTX 1080",), driver="410.48", formats=("pip",)), MATRIX)
    pip, check = result.next_steps
    assert "pip install -r" in pip and pip.count("pip install") == 1  # no gpudoctor install after it
    assert check == 'python -c "import tensorflow"   (gpudoctor needs Python >= 3.10 and cannot run in this Python 3.7 environment)'


def test_the_header_command_repeats_every_option():
    request = EnvRequest(framework="torch", version="2.4.1", python="3.11", gpus=("RTX 4090",), driver="560.94", os="linux", arch="x86_64",
                         name="Proj", cpu=True)
    assert invocation(request, "torch") == ("gpudoctor env --framework torch --framework-version 2.4.1 --python 3.11 --gpu 'RTX 4090' "
                                            "--driver 560.94 --os linux --arch x86_64 --cpu --name Proj")
