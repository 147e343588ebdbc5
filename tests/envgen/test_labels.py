"""What a chosen build is called in file headers and on stdout (envgen/labels.py), for each kind of build, and the
line under "Chosen:" saying what accelerates it (issue 11)."""

from __future__ import annotations

import dataclasses

from gpudoctor.envgen.labels import accelerated_line, build_label
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.solver.solve import Target, solve

MATRIX = load_matrix()
GPU = Target("linux", None, "560.94", None, ("8.9",))


def test_cuda_wheels_and_the_and_cuda_extra():
    torch = solve(MATRIX, GPU, "torch")
    assert build_label(torch) == f"torch {torch.version} ({torch.variant} wheels, CUDA {torch.cuda})"
    tf = solve(MATRIX, GPU, "tensorflow")
    assert build_label(tf) == f"tensorflow {tf.version} (and-cuda extra: CUDA {tf.cuda} as nvidia-* wheels)"
    assert build_label(dataclasses.replace(tf, cuda=None)) == f"tensorflow {tf.version} (and-cuda extra)"
    assert accelerated_line(torch) is None and accelerated_line(tf) is None


def test_conda_and_system_cuda_builds():
    tf210 = solve(MATRIX, Target("windows", "3.10", "551.61", None, ("8.6",)), "tensorflow", "2.10")
    assert build_label(tf210) == "tensorflow 2.10.1 (CUDA 11.2 and cuDNN from conda-forge)"
    system = dataclasses.replace(tf210, variant="cuda-11.2-system")
    assert build_label(system) == "tensorflow 2.10.1 (needs CUDA 11.2 and cuDNN installed on the system)"


def test_cpu_builds_say_so():
    cpu = solve(MATRIX, Target("linux", None, None, None, ()), "torch")
    assert build_label(cpu) == f"torch {cpu.version} (CPU build)"
    assert accelerated_line(cpu) == "  This is a CPU-only build: it will not use a GPU."


def test_apple_silicon_is_accelerated_by_mps():
    mac = solve(MATRIX, Target("darwin", None, None, None, (), arch="arm64"), "torch")
    assert build_label(mac) == f"torch {mac.version} (macOS arm64 build: CPU and MPS (Metal))"
    assert accelerated_line(mac) == ("  Accelerated by MPS (Metal) on the Apple GPU (torch.backends.mps.is_available() says whether "
                                     "this Mac runs it).")
    tf_mac = dataclasses.replace(mac, framework="tensorflow")
    assert build_label(tf_mac).endswith("(macOS arm64 build: CPU and MPS (Metal) through tensorflow-metal)")
    assert accelerated_line(tf_mac) == ("  Accelerated by MPS (Metal) on the Apple GPU (tf.config.list_physical_devices('GPU') says "
                                        "whether this Mac runs it).")


def test_amd_and_jetson_builds():
    torch = solve(MATRIX, GPU, "torch")
    rocm = dataclasses.replace(torch, accelerator="rocm", variant="rocm6.2", cuda=None)
    assert build_label(rocm) == f"torch {torch.version} (ROCm 6.2 wheels for AMD GPUs)"
    assert accelerated_line(rocm) == "  Accelerated by ROCm on the AMD GPU (torch's \"cuda\" device; torch.version.hip is set)."
    jetson = dataclasses.replace(torch, accelerator="jetson", variant="jp6.2", cuda="12.6")
    assert build_label(jetson) == f"torch {torch.version} (NVIDIA's JetPack 6.2 build, CUDA 12.6)"
