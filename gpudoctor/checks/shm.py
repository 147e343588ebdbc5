"""shm-too-small on the machine itself: /dev/shm in a container is Docker's 64 MB unless it was started with
--ipc=host or --shm-size, and PyTorch's DataLoader workers and NCCL between GPUs put their shared memory there.
(The same id from a pasted log's own lines is matrices/signatures.toml's.)"""

from __future__ import annotations

from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity

# NVIDIA's containers guide recommends --shm-size=1g at least (its images warn at Docker's 64 MB default)
SHM_FLOOR_MIB = 1024
NVIDIA_SHM = "https://docs.nvidia.com/deeplearning/frameworks/user-guide/index.html#setincshmem"


def shm_too_small_in_container(facts: Facts, matrix: object) -> Iterator[Finding]:
    host = facts.host
    if host is None or host.shm_mib is None or host.shm_mib >= SHM_FLOOR_MIB or not host.container:
        return  # outside a container /dev/shm is half the RAM unless someone shrank it on purpose
    frameworks = facts.frameworks
    if frameworks is None or (frameworks.torch, frameworks.tensorflow, frameworks.jax) == (None, None, None):
        return  # no framework that trains here
    gpus = len(facts.gpus or ())
    several = gpus >= 2
    title = (f"/dev/shm is only {host.shm_mib} MiB in this container: NCCL between its {gpus} GPUs and DataLoader workers need more"
             if several else f"/dev/shm is only {host.shm_mib} MiB in this container: DataLoader workers (num_workers > 0) may run out of it")
    yield Finding(
        "shm-too-small", Severity.WARNING if several else Severity.INFO, Section.ENVIRONMENT, title,
        (f"/dev/shm: {host.shm_mib} MiB, in a {host.container} container",
         "PyTorch's DataLoader workers hand batches over through /dev/shm, and NCCL's transport between GPUs of one "
         "machine keeps its buffers there; NVIDIA recommends at least 1 GB (--shm-size=1g) or the host's (--ipc=host)"),
        Fix("Start the container with the host's shared memory or a larger one (Kubernetes: an emptyDir with medium: Memory at /dev/shm)",
            ("docker run --gpus all --ipc=host ...   # or --shm-size=16g; docker compose: shm_size: '16gb'", "df -h /dev/shm"),
            NVIDIA_SHM),
    )


CHECKS = (shm_too_small_in_container,)
