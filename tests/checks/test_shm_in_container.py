"""checks/shm.py: /dev/shm of a container as the host probe measured it (host.shm_mib), and the probe itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import shm
from gpudoctor.model import Facts, Finding, Fix, Frameworks, Gpu, Host, JaxBuild, Section, Severity, TensorflowBuild, TorchBuild
from gpudoctor.probes.host import _size_mib, probe_host

TORCH = Frameworks(torch=TorchBuild(version="2.5.1+cu124"))
TWO_GPUS = (Gpu(index=0, name="NVIDIA A100"), Gpu(index=1, name="NVIDIA A100"))
FIX = Fix("Start the container with the host's shared memory or a larger one (Kubernetes: an emptyDir with medium: Memory at /dev/shm)",
          ("docker run --gpus all --ipc=host ...   # or --shm-size=16g; docker compose: shm_size: '16gb'", "df -h /dev/shm"),
          "https://docs.nvidia.com/deeplearning/frameworks/user-guide/index.html#setincshmem")
WHY = ("PyTorch's DataLoader workers hand batches over through /dev/shm, and NCCL's transport between GPUs of one machine "
       "keeps its buffers there; NVIDIA recommends at least 1 GB (--shm-size=1g) or the host's (--ipc=host)")


def _run(host, frameworks=TORCH, gpus=()):
    return list(shm.shm_too_small_in_container(Facts(host=host, frameworks=frameworks, gpus=gpus), None))


def test_docker_default_with_two_gpus_is_a_warning_pinned():
    assert _run(Host(os="linux", container="docker", shm_mib=64), gpus=TWO_GPUS) == [Finding(
        "shm-too-small", Severity.WARNING, Section.ENVIRONMENT,
        "/dev/shm is only 64 MiB in this container: NCCL between its 2 GPUs and DataLoader workers need more",
        ("/dev/shm: 64 MiB, in a docker container", WHY), FIX)]


@pytest.mark.parametrize("frameworks", [TORCH, Frameworks(tensorflow=TensorflowBuild(version="2.17.0")), Frameworks(jax=JaxBuild(version="0.4.30"))])
def test_one_gpu_is_information(frameworks):
    (f,) = _run(Host(os="linux", container="kubernetes", shm_mib=1023), frameworks, gpus=TWO_GPUS[:1])
    assert (f.severity, f.title) == (Severity.INFO, "/dev/shm is only 1023 MiB in this container: DataLoader workers (num_workers > 0) may run out of it")
    assert f.evidence[0] == "/dev/shm: 1023 MiB, in a kubernetes container"


@pytest.mark.parametrize("host, frameworks", [
    (Host(os="linux", container="docker", shm_mib=1024), TORCH),  # NVIDIA's floor met
    (Host(os="linux", container=None, shm_mib=64), TORCH),  # outside a container: someone's choice
    (Host(os="linux", container="docker", shm_mib=None), TORCH),  # not measured (a paste)
    (Host(os="linux", container="docker", shm_mib=64), None),  # nothing that trains
    (Host(os="linux", container="docker", shm_mib=64), Frameworks()),
    (None, TORCH),
])
def test_nothing_otherwise(host, frameworks):
    assert _run(host, frameworks, TWO_GPUS) == []


def test_the_probe_measures_dev_shm_and_says_none_without_it(tmp_path: Path):
    assert _size_mib(tmp_path / "missing") is None
    assert isinstance(_size_mib(tmp_path), int) and _size_mib(tmp_path) > 0
    assert probe_host(environ={}, root=tmp_path).shm_mib is None  # no dev/shm under this root
    (tmp_path / "dev" / "shm").mkdir(parents=True)
    host = probe_host(environ={}, root=tmp_path)
    assert host.shm_mib == _size_mib(tmp_path) if host.os == "linux" else host.shm_mib is None
