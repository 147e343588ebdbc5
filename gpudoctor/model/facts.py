"""Facts: what the probes and readers observed. Field names are the public snapshot keys (docs/facts-format.md).

Every class is a frozen dataclass, so a Facts snapshot can be hashed, compared and round-tripped through JSON
(gpudoctor/snapshot.py). A field that is ``None`` is *unknown* (not probed, or the probe failed); an empty tuple or
``False`` is *probed and absent*. Checks must keep the two apart: unknown never raises an error by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # classes of their own modules (created only where such facts exist; gpudoctor.model exports them)
    from .gpu_facts import AmdGpu, Gpu, PciDevice
    from .node_health import KernelLog
    from .paste_facts import Contradiction, Symptom
    from .platform_facts import Apple, Jetson, Notebook

SNAPSHOT_SCHEMA = "gpudoctor.facts/1"


@dataclass(frozen=True)
class Host:
    """The machine and the Python running gpudoctor: OS, kernel, architecture, container and relevant variables."""
    os: str | None = None  # "linux" | "windows" | "darwin"
    os_release: str | None = None
    kernel: str | None = None
    arch: str | None = None
    wsl: int | None = None  # None when not WSL, else 1 or 2
    container: str | None = None  # None when not in a container, else its kind
    python: str | None = None
    env: dict[str, str] | None = None  # only the variables that matter, verbatim
    glibc: str | None = None
    apple: Apple | None = None  # only on a Mac
    notebook: Notebook | None = None  # only in Colab or Kaggle
    shm_mib: int | None = None  # the size of /dev/shm (Linux): DataLoader workers and NCCL put shared memory there


@dataclass(frozen=True)
class Driver:
    """The NVIDIA driver: its version, the newest CUDA it supports, and the kernel module loaded."""
    version: str | None = None
    cuda_version: str | None = None  # newest CUDA the driver supports
    kernel_module: str | None = None  # "nvidia" | "nouveau" | None (none loaded)
    kernel_module_version: str | None = None
    nvml_error: str | None = None


@dataclass(frozen=True)
class CudaToolkit:
    """An installed CUDA toolkit (nvcc): its version, where it is, and whether it is on PATH."""
    version: str | None = None
    path: str | None = None
    on_path: bool | None = None


@dataclass(frozen=True)
class Library:
    """One copy of a shared library found on the machine, with its version where readable."""
    path: str | None = None
    version: str | None = None


@dataclass(frozen=True)
class Libraries:
    """The copies of libcuda, libcudart and libcudnn the dynamic loader can find."""
    libcuda: tuple[Library, ...] | None = None
    libcudart: tuple[Library, ...] | None = None
    libcudnn: tuple[Library, ...] | None = None


@dataclass(frozen=True)
class TorchBuild:
    """The installed PyTorch: its version and build (CUDA, ROCm, CPU...), and with --deep what it saw."""
    version: str | None = None
    cuda: str | None = None  # torch.version.cuda; None when not a CUDA build OR not known: ``build`` tells which
    build: str | None = None  # "cuda" | "rocm" | "cpu" | "xpu" | ...; None: unknown (never read as CPU-only)
    hip: str | None = None
    cudnn: str | None = None
    arch_list: tuple[str, ...] | None = None
    cuda_available: bool | None = None  # only with --deep
    device_count: int | None = None  # only with --deep
    import_error: str | None = None
    path: str | None = None
    xpu: str | None = None  # torch.version.xpu (Intel GPU builds, "+xpu" wheels)
    mps_built: bool | None = None  # only with --deep: torch.backends.mps.is_built()
    mps_available: bool | None = None  # only with --deep: torch.backends.mps.is_available()
    xpu_available: bool | None = None  # only with --deep: torch.xpu.is_available()


@dataclass(frozen=True)
class TensorflowBuild:
    """The installed TensorFlow: its version, the CUDA and cuDNN it was built with, and with --deep what it saw."""
    version: str | None = None
    is_cuda_build: bool | None = None
    cuda: str | None = None
    cudnn: str | None = None
    compute_capabilities: tuple[str, ...] | None = None
    gpus_visible: int | None = None  # only with --deep
    import_error: str | None = None
    path: str | None = None


@dataclass(frozen=True)
class JaxBuild:
    """jax, jaxlib and the CUDA plugin, read from the installed distributions (python_packages); with --deep, what
    ``jax.devices()`` saw in a child process. Since jax 0.4.30 the CUDA support is a separate plugin
    (jax-cuda12-plugin / jax-cuda13-plugin with its -pjrt wheel); jaxlib alone is the CPU build."""

    version: str | None = None  # the jax distribution
    jaxlib: str | None = None  # the jaxlib distribution; None: unknown
    build: str | None = None  # "cuda12" | "cuda13" (a CUDA plugin or an old "+cuda12" jaxlib) | "cpu"; None: unknown
    plugin: str | None = None  # the CUDA plugin's version ("jax-cuda12-plugin" or its -pjrt wheel)
    pjrt: str | None = None  # the jax-cudaNN-pjrt version
    backend: str | None = None  # only with --deep: jax.default_backend() ("gpu" | "cpu" | ...)
    devices: tuple[str, ...] | None = None  # only with --deep: str() of each of jax.devices()
    gpu_devices: int | None = None  # only with --deep: how many of them are GPUs
    import_error: str | None = None


@dataclass(frozen=True)
class Frameworks:
    """The deep-learning frameworks found: PyTorch, TensorFlow and jax."""
    torch: TorchBuild | None = None
    tensorflow: TensorflowBuild | None = None
    jax: JaxBuild | None = None


@dataclass(frozen=True)
class Rocm:
    """The ROCm stack around the AMD GPUs. None = unknown; False / () = probed and absent."""

    version: str | None = None  # /opt/rocm/.info/version (or the rocm-core package): "6.4.1"
    hip_runtime: str | None = None  # "HIP runtime version" (collect_env): "6.4.43482"
    miopen: str | None = None  # "MIOpen runtime version" (collect_env)
    amdgpu_loaded: bool | None = None  # the amdgpu kernel module is loaded (/sys/module/amdgpu)
    kfd_present: bool | None = None  # /dev/kfd exists (the compute interface ROCm needs)
    device_groups: tuple[str, ...] | None = None  # groups that own /dev/kfd and /dev/dri/renderD* ("render", "video")
    user_groups: tuple[str, ...] | None = None  # groups of the user running gpudoctor
    user_is_root: bool | None = None
    source: str | None = None  # where the GPU list came from: "amdsmi" | "rocminfo" | "rocm-smi" | "sysfs"


@dataclass(frozen=True)
class ProbeError:
    """A probe that failed, and why (its facts stay unknown)."""
    probe: str
    error: str


@dataclass(frozen=True)
class Facts:
    """Everything observed about one machine (or read from a snapshot or a paste): the public snapshot."""
    schema: str = SNAPSHOT_SCHEMA
    host: Host | None = None
    driver: Driver | None = None
    gpus: tuple[Gpu, ...] | None = None
    pci_devices: tuple[PciDevice, ...] | None = None
    cuda_toolkits: tuple[CudaToolkit, ...] | None = None
    libraries: Libraries | None = None
    python_packages: dict[str, str | None] | None = None
    frameworks: Frameworks | None = None
    probe_errors: tuple[ProbeError, ...] = ()
    symptoms: tuple[Symptom, ...] | None = None  # messages read from pasted logs
    provenance: dict[str, str] | None = None  # fact key path -> where it was read ("collect_env, line 12")
    contradictions: tuple[Contradiction, ...] | None = None
    amd_gpus: tuple[AmdGpu, ...] | None = None  # added in 0.3: () = probed, no AMD GPU
    rocm: Rocm | None = None  # added in 0.3
    jetson: Jetson | None = None  # only on a Jetson (L4T); absent elsewhere
    kernel_log: KernelLog | None = None  # added in 0.4: Xid events since boot
