"""A ROCm build of torch judged against the AMD GPUs: is the GPU's gfx target compiled into the wheel (rocm.toml),
does the build's ROCm match the system's, and a CUDA build on a machine whose only GPUs are AMD's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..digits import is_ascii_int
from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import env, gpu_presence, package, symptoms, torch_build_kind
from .amd import amd_gpus, amd_label, override_target

if TYPE_CHECKING:
    from ..matrix import Matrix
    from ..matrix.tables.rocm import RocmTable, RocmWheel

SOURCE_BUILD = "https://github.com/ROCm/pytorch#readme"
# The gfx family whose official target an override commonly borrows (the same instruction set, unsupported).
_OVERRIDE_FOR = {"gfx103": "10.3.0", "gfx110": "11.0.0", "gfx120": "12.0.1"}


def _table(matrix: "Matrix | None") -> "RocmTable | None":
    return getattr(matrix, "rocm", None)


def _series(version: str | None) -> str | None:
    if not version:
        return None
    parts = version.split("+", 1)[0].split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 and all(is_ascii_int(p) for p in parts[:2]) else None


def wheel_for(facts: Facts, table: "RocmTable") -> "RocmWheel | None":
    """The official wheel row this torch is: by its release series, else (version unknown) by its ROCm alone
    when every wheel of that ROCm carries the same targets."""
    torch = facts.frameworks.torch if facts.frameworks else None
    if torch is None:
        return None
    series = _series(torch.version)
    if series:
        return table.for_torch(series)
    rows = table.for_rocm(torch.hip) if torch.hip else ()
    return rows[0] if rows and all(r.arch == rows[0].arch for r in rows) else None


def rocm_install_fix(table: "RocmTable | None", gfx: str | None, summary: str) -> Fix:
    """Install the newest official ROCm wheel that carries ``gfx``; when none does, the honest choices."""
    if table is None:
        return Fix(summary, (), "https://pytorch.org/get-started/locally/")
    wheel = table.newest_with(gfx) if gfx else table.wheels[-1]
    if wheel is not None:
        rocm = wheel.rocm[-1]
        return Fix(summary, ("pip uninstall -y torch torchvision torchaudio",
                             f"pip install 'torch=={wheel.torch}.*' torchvision --index-url {table.index_url}{wheel.tag(rocm)}"),
                   "https://pytorch.org/get-started/previous-versions/")
    override = _OVERRIDE_FOR.get((gfx or "")[:6])
    commands = []
    if override:
        commands.append(f"export HSA_OVERRIDE_GFX_VERSION={override}   # unsupported workaround: runs {override_target(override)} kernels on {gfx}")
    commands.append(f"PYTORCH_ROCM_ARCH={gfx} python setup.py develop   # build torch from source for {gfx} (ROCm/pytorch)")
    return Fix(f"No official PyTorch wheel carries {gfx}: use a supported GPU, build from source, or "
               + ("the unsupported override" if override else "an unofficial build"), tuple(commands), SOURCE_BUILD)


def gpu_gfx_not_in_rocm_build(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    torch = facts.frameworks.torch if facts.frameworks else None
    if not torch or torch_build_kind(torch) != "rocm":
        return
    table = _table(matrix)  # read only for a ROCm build: a matrix from the cache unpickles a table on first use
    if table is None:
        return
    tag = torch.version.split("+", 1)[1] if torch.version and "+" in torch.version else None
    if tag is not None and not tag.startswith("rocm"):
        return  # a distribution's or a container's own build (e.g. rocm/pytorch "2.4.0a0+git..."): its targets are unknown
    wheel = wheel_for(facts, table)
    if wheel is None:
        return
    override = override_target(env(facts, "HSA_OVERRIDE_GFX_VERSION") or "")
    logged = symptoms(facts, "hip-no-binary-for-gpu")
    for gpu in amd_gpus(facts):
        if not gpu.gfx_target or gpu.gfx_target in wheel.arch:
            continue
        evidence = [amd_label(gpu), f"torch {torch.version or '(version unknown)'} (ROCm {torch.hip or '?'}) official wheels carry: {' '.join(wheel.arch)}"]
        evidence += [f"log: {s.text}" for s in logged[:1]]
        if override and override in wheel.arch:
            severity = Severity.WARNING
            title = f"{gpu.gfx_target} is not in this ROCm build; HSA_OVERRIDE_GFX_VERSION makes it run {override} kernels (unsupported)"
        else:
            severity = Severity.ERROR if (wheel.arch_confirmed or logged) else Severity.WARNING
            title = f"{amd_label(gpu)} is not a target of this ROCm build of torch: kernels fail with 'invalid device function'"
        if not wheel.arch_confirmed:
            evidence.append("the arch list of this release comes from the build scripts, not from the wheel itself")
        yield Finding("gpu-gfx-not-in-rocm-build", severity, Section.TORCH, title, tuple(evidence),
                      rocm_install_fix(table, gpu.gfx_target, f"Install an official build that carries {gpu.gfx_target}"))


def rocm_version_mismatch(facts: Facts, matrix: object) -> Iterator[Finding]:
    torch = facts.frameworks.torch if facts.frameworks else None
    system = facts.rocm.version if facts.rocm else None
    if not torch or not torch.hip or not system:
        return
    built, installed = torch.hip.split(".")[0], system.split(".")[0]
    if built == installed:
        return
    yield Finding(
        "rocm-version-mismatch", Severity.WARNING, Section.TORCH,
        f"torch was built with ROCm {torch.hip}, the system has ROCm {system}: a different major release",
        (f"torch.version.hip = {torch.hip}", f"/opt/rocm: {system}",
         "the wheel brings its own ROCm libraries, but the amdgpu kernel driver and any extension build use the system's"),
        Fix(f"Install the torch build for ROCm {'.'.join(system.split('.')[:2])}, or upgrade ROCm to match",
            ("python -c \"import torch; print(torch.__version__, torch.version.hip)\"",), "https://pytorch.org/get-started/previous-versions/"),
    )


def torch_cuda_build_on_amd_gpu(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    torch = facts.frameworks.torch if facts.frameworks else None
    found = amd_gpus(facts)
    if not torch or not found or torch_build_kind(torch) not in ("cuda", "cpu"):
        return
    nvidia = gpu_presence(facts)
    if nvidia is True or (facts.host and facts.host.notebook):
        return  # an NVIDIA GPU too: the CUDA build may be meant for it; a hosted notebook runs on none of the reporter's GPUs
    # no word on an NVIDIA GPU (torch's "Found no NVIDIA driver" is that word in a paste): the AMD GPU is the one known,
    # so a CPU-only build is still the likeliest cause, a warning; a CUDA build may be meant for an unseen NVIDIA GPU
    unsure = nvidia is None and not symptoms(facts, "no-driver-found")
    if unsure and torch_build_kind(torch) == "cuda":
        return
    kind = "a CUDA" if torch_build_kind(torch) == "cuda" else "a CPU-only"
    gfx = next((g.gfx_target for g in found if g.gfx_target), None)
    name = f"torch {torch.version}" if torch.version else "torch"  # no gap where an unknown version would stand
    yield Finding(
        "torch-not-rocm-on-amd-gpu", Severity.WARNING if unsure else Severity.ERROR, Section.TORCH,
        f"{name} is {kind} build on a machine whose GPUs are AMD's: it runs on the CPU" + (" (whether it also has an NVIDIA GPU is not known)" if unsure else ""),
        tuple(amd_label(g) for g in found) + ("PyTorch reaches AMD GPUs only through its ROCm build (torch.version.hip)",),
        rocm_install_fix(_table(matrix), gfx, "Install PyTorch's ROCm build"),
    )


def tensorflow_on_amd_gpu(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    """TensorFlow's own builds reach GPUs through NVIDIA's CUDA only; on a machine whose GPUs are AMD's it runs on the
    CPU. A warning (an NVIDIA GPU may be there unseen), named no-nvidia-gpu: that is what the user is missing."""
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    in_use = tf is not None or any(package(facts, n) for n in ("tensorflow", "tensorflow-gpu", "tensorflow-cpu"))
    found = amd_gpus(facts)
    if not in_use or not found or gpu_presence(facts) is True or package(facts, "tensorflow-rocm"):
        return
    version = (tf.version if tf else None) or package(facts, "tensorflow") or package(facts, "tensorflow-gpu")
    yield Finding(
        "no-nvidia-gpu", Severity.WARNING, Section.TENSORFLOW,
        f"TensorFlow{' ' + version if version else ''} uses only NVIDIA GPUs (CUDA), and this machine's GPU is AMD's: it runs on the CPU",
        tuple(amd_label(g) for g in found) + ("TensorFlow's own builds support NVIDIA GPUs through CUDA; AMD publishes tensorflow-rocm for Linux",),
        Fix("For the AMD GPU use AMD's ROCm build of TensorFlow on Linux (for the GPUs ROCm supports), or PyTorch's ROCm build",
            (), "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/3rd-party/tensorflow-install.html"),
    )


def hip_no_binary_for_gpu(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    """The runtime's own word (hipErrorNoBinaryForGpu, "invalid device function") where the build or the GPU's gfx
    target is not known well enough for gpu-gfx-not-in-rocm-build to name the missing target."""
    logged = symptoms(facts, "hip-no-binary-for-gpu")
    if not logged or any(True for _ in gpu_gfx_not_in_rocm_build(facts, matrix)):
        return
    gfx = next((g.gfx_target for g in amd_gpus(facts) if g.gfx_target), None)
    evidence = [f"log: {s.text}" for s in logged[:1]]
    evidence += [amd_label(g) for g in amd_gpus(facts)]
    override = env(facts, "HSA_OVERRIDE_GFX_VERSION")
    if override:
        evidence.append(f"HSA_OVERRIDE_GFX_VERSION={override} is set, and the build still has no code object for it")
    yield Finding(
        "hip-no-binary-for-gpu", Severity.ERROR, Section.TORCH,
        f"The ROCm build has no code object for {gfx or 'this GPU'}'s gfx target: nothing can run on the GPU",
        tuple(evidence),
        rocm_install_fix(_table(matrix), gfx, "Use a build that carries this GPU's gfx target (rocminfo names it)"),
    )


CHECKS = (gpu_gfx_not_in_rocm_build, hip_no_binary_for_gpu, rocm_version_mismatch, torch_cuda_build_on_amd_gpu, tensorflow_on_amd_gpu)
