"""A pasted `docker run` without GPUs, with CUDA unavailable inside: the container got no GPU (environment.py)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

# https://github.com/open-edge-platform/anomalib/issues/584 (the run line), then what the reporter saw inside
ANOMALIB_RUN = "1. build image: `docker build -t test .`\n2. run it: `docker run -it test`\n"
INSIDE_FALSE = ">>> import torch\n>>> torch.cuda.is_available()\nFalse\n"
# https://github.com/pytorch/serve/issues/478: started with --gpus all, CUDA still unavailable (another cause)
SERVE_RUN = "docker run --rm --shm-size=1g --gpus all --name=\"torchserve\" pytorch/torchserve:latest-gpu \\\n"


def _ids(text: str) -> set[str]:
    return {f.id for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings}


def test_a_run_without_gpus_and_cuda_unavailable_inside_is_the_cause():
    assert "container-without-gpu-runtime" in _ids(ANOMALIB_RUN + INSIDE_FALSE)


def test_a_run_with_gpus_is_not_blamed():
    assert "container-without-gpu-runtime" not in _ids(SERVE_RUN + INSIDE_FALSE)


def test_a_run_without_gpus_alone_is_a_cpu_container_and_fine():
    assert "container-without-gpu-runtime" not in _ids(ANOMALIB_RUN)


def test_cuda_unavailable_alone_does_not_guess_a_container():
    assert "container-without-gpu-runtime" not in _ids(INSIDE_FALSE)


# https://github.com/leejet/stable-diffusion.cpp/issues/1352 (round 5's frozen part, after its score): the program
# inside cannot load the driver's libcuda, which only the NVIDIA runtime mounts
LIBCUDA_MISSING = ("$ docker run -it --rm ghcr.io/leejet/stable-diffusion.cpp:master-cuda\n"
                   "/sd-cli: error while loading shared libraries: libcuda.so.1: cannot open shared object file: No such file or directory\n")


def test_a_run_without_gpus_and_no_libcuda_inside_is_the_cause():
    assert "container-without-gpu-runtime" in _ids(LIBCUDA_MISSING)
    # with --gpus the same line has another cause
    assert "container-without-gpu-runtime" not in _ids(LIBCUDA_MISSING.replace("docker run -it", "docker run --gpus all -it"))


def test_the_same_class_in_another_thread_a_framework_import():
    # https://github.com/openai/gpt-2/issues/204: the container started without GPUs, TensorFlow 1.x's import fails
    text = ("$ docker run -it gpt-2 bash\n"
            "root@a8c0f508dc92:/gpt-2# python3 src/interactive_conditional_samples.py \n"
            "Traceback (most recent call last):\n"
            "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory\n")
    assert "container-without-gpu-runtime" in _ids(text)


def test_the_toolkit_that_cannot_load_the_host_nvml_is_a_warning_naming_the_host_driver():
    # canonical/docker-snap#148 (Docker as a snap) and NVIDIA/libnvidia-container#231 print the same line
    line = ("nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared "
            "object file: no such file or directory: unknown.")
    (f,) = [f for f in run_checks(read_evidence(line, "paste"), load_matrix(), "paste").findings if f.id == "container-without-gpu-runtime"]
    assert f.severity.label == "warning" and "host" in f.title
    assert any(c.startswith("nvidia-smi") for c in f.fix.commands) and any("snap" in c for c in f.fix.commands)


# https://github.com/apptainer/singularity/issues/6203: a Singularity shell without --nv, Lightning then finds no GPU
SINGULARITY_SHELL = ("singularity shell nemo.sif\n"
                     "pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested GPUs: [0]\n"
                     " But your machine only has: []\n")


def _container_finding(text: str):
    found = [f for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings
             if f.id == "container-without-gpu-runtime"]
    return found[0] if found else None


def test_a_singularity_run_without_nv_and_no_gpu_inside_is_the_cause_and_its_fix_is_nv():
    f = _container_finding(SINGULARITY_SHELL)
    assert f is not None and "--nv" in f.title and f.fix.commands[0].startswith("singularity exec --nv")
    assert _container_finding(SINGULARITY_SHELL.replace("shell nemo", "shell --nv nemo")) is None
    assert _container_finding("singularity shell nemo.sif\n") is None  # a CPU container is fine


def test_the_same_class_in_another_thread_apptainer_run_and_cuda_false():
    # https://github.com/broadinstitute/CellBender/issues/280: `singularity run` of the GPU image, CUDA False inside
    text = ("  $ singularity run /risapps/singularity/repo/cellbender/0.3.0/cellbender.sif /bin/bash\n"
            ">>> import torch;\n>>> print(torch.cuda.is_available())\nFalse\n")
    assert _container_finding(text) is not None
    assert _container_finding(text.replace("apptainer", "x").replace("singularity run", "singularity run --nv")) is None


def test_a_podman_run_without_a_gpu_device_counts_as_docker_s():
    text = "$ podman run --rm -it docker.io/pytorch/pytorch bash\n" + INSIDE_FALSE
    assert _container_finding(text) is not None
    assert _container_finding(text.replace("--rm", "--rm --device nvidia.com/gpu=all")) is None


def test_the_daemon_s_newer_wordings_for_a_host_without_the_toolkit():
    # sair-lab/AirSLAM#113 (Docker 20+: "unknown or invalid runtime name") and basujindal/stable-diffusion#217 (a
    # compose file that names the "nvidia" device driver): the NVIDIA Container Toolkit is not configured on the host
    airslam = "docker: Error response from daemon: unknown or invalid runtime name: nvidia.\n"
    compose = '`Error response from daemon: could not select device driver "nvidia" with capabilities: [[gpu]]`\n'
    for text in (airslam, compose):
        f = _container_finding(text)
        assert f is not None and f.severity.label == "error"


def test_no_cdi_spec_is_a_warning_whose_fix_generates_it():
    # xencon/aixcl#1118: Ollama under podman got no GPU; `nvidia-ctk cdi list` found no device
    f = _container_finding("- podman inspect ollama shows: Devices: []\n- nvidia-ctk cdi list shows: Found 0 CDI devices\n")
    assert f is not None and f.severity.label == "warning"
    assert f.fix.commands[0] == "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"
    assert _container_finding("INFO[0000] Found 2 CDI devices\n") is None


def test_the_title_names_the_engine_the_run_line_used():
    assert "`podman run` has no --gpus" in _container_finding("$ podman run --rm -it docker.io/pytorch/pytorch bash\n" + INSIDE_FALSE).title
    assert "`docker run` has no --gpus" in _container_finding(ANOMALIB_RUN + INSIDE_FALSE).title
