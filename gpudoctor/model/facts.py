"""Facts: what the probes and readers observed. Field names are the public snapshot keys (docs/facts-format.md).

Every class is a frozen dataclass, so a Facts snapshot can be hashed, compared and round-tripped through JSON
(gpudoctor/snapshot.py). A field that is ``None`` is *unknown* (not probed, or the probe failed); an empty tuple or
``False`` is *probed and absent*. Checks must keep the two apart: unknown never raises an error by itself.
"""

from __future__ import annotations

from dataclasses import dataclass

SNAPSHOT_SCHEMA = "gpudoctor.facts/1"



@dataclass(frozen=True)
class Host:
    os: str | None = None  # "linux" | "windows" | "darwin"
    os_release: str | None = None
    kernel: str | None = None
    arch: str | None = None
    wsl: int | None = None  # None when not WSL, else 1 or 2
    container: str | None = None  # None when not in a container, else its kind
    python: str | None = None
    env: dict[str, str] | None = None  # only the variables that matter, verbatim
    glibc: str | None = None


@dataclass(frozen=True)
class Driver:
    version: str | None = None
    cuda_version: str | None = None  # newest CUDA the driver supports
    kernel_module: str | None = None  # "nvidia" | "nouveau" | None (none loaded)
    kernel_module_version: str | None = None
    nvml_error: str | None = None


@dataclass(frozen=True)
class Pcie:
    gen_current: int | None = None
    gen_max: int | None = None
    width_current: int | None = None
    width_max: int | None = None


@dataclass(frozen=True)
class GpuProcess:
    pid: int | None = None
    name: str | None = None
    used_mib: int | None = None


@dataclass(frozen=True)
class Gpu:
    index: int | None = None
    name: str | None = None
    uuid: str | None = None
    pci_bus_id: str | None = None
    compute_capability: str | None = None
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    pcie: Pcie | None = None
    mig_enabled: bool | None = None
    ecc_uncorrected_errors: int | None = None
    processes: tuple[GpuProcess, ...] | None = None


@dataclass(frozen=True)
class PciDevice:
    bus_id: str | None = None
    vendor_id: str | None = None
    device_id: str | None = None
    driver: str | None = None  # the kernel driver bound to it; None when none is bound
    device_class: str | None = None  # e.g. "0x030000" (VGA), "0x030200" (3D controller)


@dataclass(frozen=True)
class CudaToolkit:
    version: str | None = None
    path: str | None = None
    on_path: bool | None = None


@dataclass(frozen=True)
class Library:
    path: str | None = None
    version: str | None = None


@dataclass(frozen=True)
class Libraries:
    libcuda: tuple[Library, ...] | None = None
    libcudart: tuple[Library, ...] | None = None
    libcudnn: tuple[Library, ...] | None = None


@dataclass(frozen=True)
class TorchBuild:
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


@dataclass(frozen=True)
class TensorflowBuild:
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
    torch: TorchBuild | None = None
    tensorflow: TensorflowBuild | None = None
    jax: JaxBuild | None = None


@dataclass(frozen=True)
class Symptom:
    """A message a framework or tool printed that states a fact ("libcudart.so.11.0: cannot open shared object
    file", "no kernel image is available"), read from a pasted log. ``kind`` is a stable key (evidence/messages.py)."""

    kind: str
    text: str
    framework: str | None = None  # "torch" | "tensorflow" | "jax" | None
    subject: str | None = None  # what it names: a library ("libcudnn.so.8"), an arch ("sm_120"), a package


@dataclass(frozen=True)
class Contradiction:
    """Two pieces of evidence that disagree about one fact; the first is kept, both are reported."""

    fact: str  # the snapshot key path, e.g. "driver.version"
    kept: str
    kept_from: str
    other: str
    other_from: str


@dataclass(frozen=True)
class ProbeError:
    probe: str
    error: str


@dataclass(frozen=True)
class Facts:
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


