"""NVIDIA Jetson: the GPU is integrated (no PCI device, no NVML, no nvidia-smi), CUDA comes with the JetPack release,
and PyTorch / TensorFlow must be NVIDIA's Jetson builds for that JetPack: the package index's aarch64 torch is a
CPU-only build (torch <= 2.10) or a CUDA 13 server (SBSA) build (2.11+), neither of which uses a Jetson's GPU."""

from __future__ import annotations

from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import jetson, torch_build_kind

JETSON_TORCH_URL = "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html"
JETSON_TF_URL = "https://docs.nvidia.com/deeplearning/frameworks/install-tf-jetson-platform/index.html"


def _release(facts: Facts, matrix: object):
    tables = getattr(matrix, "platform_tables", None)
    board = jetson(facts)
    return tables.jetpack_by_l4t(board.l4t) if tables and board else None


def _where(facts: Facts, matrix: object) -> str:
    board, release = jetson(facts), _release(facts, matrix)
    l4t = f"L4T {board.l4t}" if board and board.l4t else "L4T release unknown"
    return f"JetPack {release.jetpack} ({l4t})" if release else l4t


def jetson_integrated_gpu(facts: Facts, matrix: object) -> Iterator[Finding]:
    board = jetson(facts)
    if board is None:
        return
    release = _release(facts, matrix)
    evidence = [f"/etc/nv_tegra_release: L4T {board.l4t}" if board.l4t else "L4T release: unknown"]
    if board.l4t_core:
        evidence.append(f"nvidia-l4t-core {board.l4t_core}")
    if board.model:
        evidence.append(f"model: {board.model}")
    evidence.append("a Jetson's GPU is integrated: there is no nvidia-smi or NVML, and no PCI device to list")
    if release:
        stack = ", ".join(f"{name} {value}" for name, value in (("CUDA", release.cuda), ("cuDNN", release.cudnn),
                                                                ("TensorRT", release.tensorrt)) if value)
        evidence.append(f"JetPack {release.jetpack} ships {stack} (gpudoctor matrix jetpack {release.jetpack})")
        yield Finding("jetson-integrated-gpu", Severity.OK, Section.GPU,
                      f"NVIDIA Jetson, {_where(facts, matrix)}: integrated GPU (judged by its JetPack release, not nvidia-smi)",
                      tuple(evidence))
        return
    evidence.append("this L4T release is not in matrices/jetpack.toml: its CUDA and framework builds were not judged")
    yield Finding("jetson-integrated-gpu", Severity.INFO, Section.GPU,
                  f"NVIDIA Jetson, {_where(facts, matrix)}: integrated GPU (the JetPack release is not one gpudoctor knows)",
                  tuple(evidence))


def jetson_torch_not_jetson_build(facts: Facts, matrix: object) -> Iterator[Finding]:
    board = jetson(facts)
    torch = facts.frameworks.torch if facts.frameworks else None
    if board is None or torch is None:
        return
    kind, release = torch_build_kind(torch), _release(facts, matrix)
    label = f"torch {torch.version or '(version unknown)'}"
    if kind == "cpu":
        why = f"{label} is a CPU-only build (the package index's aarch64 wheel): it cannot use the Jetson's GPU"
    elif kind == "cuda" and release and torch.cuda and torch.cuda.split(".")[0] != release.cuda.split(".")[0]:
        why = (f"{label} is a CUDA {torch.cuda} build, but {_where(facts, matrix)} has CUDA {release.cuda}: "
               "it is a server (SBSA) or another JetPack's wheel, not NVIDIA's Jetson build for this board")
    else:
        return
    if release:
        fix = Fix(f"Install NVIDIA's PyTorch for JetPack {release.jetpack} (torch {', '.join(release.torch)}, Python {release.python})",
                  ("pip uninstall -y torch torchvision torchaudio", release.install_torch()), JETSON_TORCH_URL)
    else:
        fix = Fix("Install NVIDIA's PyTorch build for this JetPack release (or use the l4t-pytorch container of this L4T)",
                  ("pip uninstall -y torch torchvision torchaudio", "cat /etc/nv_tegra_release   # the L4T release to choose it by"),
                  JETSON_TORCH_URL)
    yield Finding("jetson-torch-not-jetson-build", Severity.ERROR, Section.TORCH, why,
                  (f"torch.version.cuda = {torch.cuda or 'None'}", f"this board: {_where(facts, matrix)}"), fix)


def jetson_tf_not_jetson_build(facts: Facts, matrix: object) -> Iterator[Finding]:
    board = jetson(facts)
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    if board is None or tf is None:
        return
    # NVIDIA's TensorFlow for Jetson carries a local tag (matrices/jetpack.toml: 2.11.0+nv23.01); a version without
    # it came from PyPI, whose aarch64 wheels have no CUDA for the Jetson's integrated GPU
    tables = getattr(matrix, "platform_tables", None)
    tag = tables.jetson_tf_local_tag if tables else None
    untagged = tag is not None and tf.version is not None and tf.is_cuda_build is not True and f"+{tag}" not in tf.version
    if tf.is_cuda_build is not False and not untagged:
        return
    yield Finding(
        "jetson-tf-not-jetson-build", Severity.ERROR, Section.TENSORFLOW,
        f"TensorFlow {tf.version or '(version unknown)'} is "
        + ("a CPU-only build" if tf.is_cuda_build is False else "not NVIDIA's build for Jetson") + ": it cannot use the Jetson's GPU",
        ("build_info: is_cuda_build = False" if tf.is_cuda_build is False else
         f"version {tf.version} has no +{tag} tag: NVIDIA's Jetson wheels are versioned like 2.11.0+{tag}23.01",
         f"this board: {_where(facts, matrix)}"),
        Fix("Install NVIDIA's TensorFlow for Jetson for this JetPack release, or use the l4t-tensorflow container of this L4T",
            ("pip uninstall -y tensorflow", "cat /etc/nv_tegra_release   # the L4T release to choose the build by"), JETSON_TF_URL),
    )


CHECKS = (jetson_integrated_gpu, jetson_torch_not_jetson_build, jetson_tf_not_jetson_build)
