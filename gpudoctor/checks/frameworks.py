"""PyTorch and TensorFlow builds: CPU-only wheels, shadowing packages, and what --deep saw at run time.
Version rules that need the compatibility matrix live in the matrix checks."""

from __future__ import annotations

from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import cudnn_version, driver_loaded, env, gpu_implied_but_unlisted, gpu_presence, jetson, package, symptoms, torch_build_kind
from ._builds import install_fix

_TF_CPU_DISTRIBUTIONS = ("tensorflow-cpu", "tensorflow-intel")


def _label(name: str, version: str | None) -> str:
    return f"{name} {version}" if version else f"{name} (version unknown)"


def _os(facts: Facts) -> str | None:
    return facts.host.os if facts.host else None


def torch_cpu_only_build(facts: Facts, matrix: object) -> Iterator[Finding]:
    torch = facts.frameworks.torch if facts.frameworks else None
    if not torch or torch_build_kind(torch) != "cpu" or jetson(facts):
        return  # on a Jetson, checks/platforms_jetson.py names NVIDIA's build for its JetPack
    if _os(facts) == "darwin":
        return  # no CUDA on macOS: the CPU/MPS wheel is the right one
    label = _label("torch", torch.version)
    evidence = [f"{label}: no CUDA in this build (torch.version.cuda is None)"]
    evidence += [f"log: {s.text}" for s in symptoms(facts, "torch-not-compiled-with-cuda")[:1]]
    presence = gpu_presence(facts)
    if presence is not True and facts.amd_gpus:
        return  # AMD GPUs (and no NVIDIA GPU known): torch-not-rocm-on-amd-gpu says what to install instead
    if presence is False:
        yield Finding("torch-cpu-only-build", Severity.INFO, Section.TORCH,
                      f"{label} is a CPU-only build (fine on this machine without an NVIDIA GPU)", tuple(evidence))
        return
    implied = gpu_implied_but_unlisted(facts)
    if implied:
        evidence.append(implied)
    fix = install_fix(facts, matrix, "torch", "Replace it with a CUDA build", first=("pip uninstall -y torch torchvision torchaudio",), gpu_build=True)
    if presence is None:
        yield Finding("torch-cpu-only-build", Severity.WARNING, Section.TORCH,
                      f"{label} is a CPU-only build: it cannot use an NVIDIA GPU (whether this machine has one is not known)",
                      tuple(evidence), fix)
        return
    yield Finding("torch-cpu-only-build", Severity.ERROR, Section.TORCH,
                  f"{label} is a CPU-only build on a machine with an NVIDIA GPU", tuple(evidence), fix)


# Lines that explain torch's missing CUDA by something other than its build: the driver, the container, the platform.
_EXPLAINED_BY = ("driver-too-old", "driver-insufficient", "no-driver-found", "nvidia-driver-not-loaded",
                 "driver-module-rejected-by-secure-boot", "cuinit-failed", "nvml-version-mismatch",
                 "container-no-gpu-runtime", "container-run-without-gpus", "container-banner-no-driver")


def torch_without_cuda_on_nvidia_gpu(facts: Facts, matrix: object) -> Iterator[Finding]:
    """torch has no CUDA ("torch.cuda.is_available() returns False", whisper's "FP16 is not supported on CPU",
    Lightning's "GPUs requested but none are available") on a machine with an NVIDIA GPU, and which torch build is
    installed is not in the evidence. A CPU-only wheel is the commonest cause by far (PyPI's default on Windows, a
    conda solve without the CUDA variant, an installer's CPU choice), so it is named as a warning that says how to
    tell; where the driver, a container, a Jetson, a Mac, a notebook or CUDA_VISIBLE_DEVICES explains it, their own
    findings do."""
    torch = facts.frameworks.torch if facts.frameworks else None
    said = symptoms(facts, "torch-without-cuda")
    if not said and not (torch and torch.cuda_available is False):
        return
    if (torch and torch_build_kind(torch)) or gpu_presence(facts) is not True or jetson(facts):
        return
    host = facts.host
    if host and (host.os == "darwin" or host.container or host.notebook) or env(facts, "CUDA_VISIBLE_DEVICES") is not None:
        return
    if any(symptoms(facts, kind) for kind in _EXPLAINED_BY):
        return
    gpu = facts.gpus[0].name if facts.gpus and facts.gpus[0].name else "an NVIDIA GPU"
    evidence = (f"log: {said[0].text}" if said else "torch.cuda.is_available() = False", f"this machine has {gpu}",
                "which torch build is installed is not in the evidence: "
                "`python -c \"import torch; print(torch.__version__, torch.version.cuda)\"` prints None for a CPU-only build")
    yield Finding(
        "torch-cpu-only-build", Severity.WARNING, Section.TORCH,
        "torch runs without CUDA on a machine with an NVIDIA GPU: most often a CPU-only torch build", evidence,
        install_fix(facts, matrix, "torch", "If torch.version.cuda is None, replace torch with a CUDA build",
                    first=("pip uninstall -y torch torchvision torchaudio",), gpu_build=True),
    )


def torch_cuda_build_without_gpu(facts: Facts, matrix: object) -> Iterator[Finding]:
    torch = facts.frameworks.torch if facts.frameworks else None
    if not torch or torch_build_kind(torch) != "cuda" or gpu_presence(facts) is not False or facts.amd_gpus or jetson(facts):
        return
    yield Finding(
        "torch-cuda-build-no-gpu", Severity.INFO, Section.TORCH,
        f"{_label('torch', torch.version)} is a CUDA {torch.cuda or '(version unknown)'} build; no NVIDIA GPU or driver found, so it will run on the CPU",
        (f"torch.version.cuda = {torch.cuda or 'unknown'}",),
    )


def torch_runtime(facts: Facts, matrix: object) -> Iterator[Finding]:
    """Only with --deep: what importing torch really showed."""
    torch = facts.frameworks.torch if facts.frameworks else None
    if not torch:
        return
    if torch.import_error:
        yield _import_failed(facts, matrix, "torch", torch.version, torch.path, torch.import_error)
        return
    if torch.cuda_available is None or torch_build_kind(torch) != "cuda":
        return
    if torch.cuda_available:
        cudnn = f", cuDNN {cudnn_version(str(torch.cudnn))}" if torch.cudnn else ""
        yield Finding("torch-cuda-available", Severity.OK, Section.TORCH,
                      f"{_label('torch', torch.version)} sees {torch.device_count} CUDA device(s){cudnn}" if torch.device_count is not None
                      else f"{_label('torch', torch.version)} has CUDA available{cudnn}",
                      (f"arch list: {' '.join(torch.arch_list or ())}",))
    elif gpu_presence(facts) is not False:
        known = gpu_presence(facts) is True and driver_loaded(facts)
        yield Finding(
            "torch-cuda-unavailable", Severity.ERROR if known else Severity.WARNING, Section.TORCH,
            f"{_label('torch', torch.version)} is a CUDA{' ' + torch.cuda if torch.cuda else ''} build but torch.cuda.is_available() is False",
            ("the GPU and the NVIDIA driver are present (see above); the driver or environment findings say why",) if known else
            ("whether a GPU and a working NVIDIA driver are present is not known: `nvidia-smi` tells",),
            install_fix(facts, matrix, "torch", "If no other finding explains it, install the build that fits this machine"),
        )


def tf_cpu_package_shadows_gpu(facts: Facts, matrix: object) -> Iterator[Finding]:
    cpu_dists = [name for name in _TF_CPU_DISTRIBUTIONS if package(facts, name)]
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    on_linux_gpu = gpu_presence(facts) is True and _os(facts) == "linux"
    if cpu_dists and package(facts, "tensorflow"):
        evidence = tuple(f"{n}=={package(facts, n)} is installed beside tensorflow=={package(facts, 'tensorflow')}" for n in cpu_dists)
        title = "A CPU-only TensorFlow package is installed beside tensorflow and overwrites the same files"
    elif cpu_dists and on_linux_gpu:
        evidence = tuple(f"{n}=={package(facts, n)} is installed (no GPU support)" for n in cpu_dists)
        title = "Only a CPU-only TensorFlow package is installed on a machine with an NVIDIA GPU"
    elif _cpu_only_tensorflow_package(facts, matrix) and gpu_presence(facts) is not False:
        version = package(facts, "tensorflow")
        evidence = (f"tensorflow=={version} is installed: {_gpu_split_text(matrix, version)}",)
        title = f"tensorflow {version} is a CPU-only package: the GPU build of this release is the tensorflow-gpu distribution"
        severity = Severity.ERROR if gpu_presence(facts) else Severity.WARNING
        yield Finding("tf-cpu-package-shadows-gpu", severity, Section.TENSORFLOW, title, evidence, _same_release_gpu_fix(facts, matrix, version))
        return
    elif tf and tf.is_cuda_build is False and on_linux_gpu:
        evidence = (f"{_label('tensorflow', tf.version)}: build_info is_cuda_build = False",)
        title = f"{_label('TensorFlow', tf.version)} is a CPU-only build on a machine with an NVIDIA GPU"
    else:
        yield from _no_device_and_no_cuda_library_tried(facts, matrix)
        return
    both_installed = bool(cpu_dists) and bool(package(facts, "tensorflow"))
    severity = Severity.ERROR if both_installed or gpu_presence(facts) else Severity.WARNING
    yield Finding(
        "tf-cpu-package-shadows-gpu", severity, Section.TENSORFLOW, title, evidence,
        install_fix(facts, matrix, "tensorflow", "Remove every TensorFlow package, then install the GPU one",
                    first=(f"pip uninstall -y tensorflow {' '.join(cpu_dists)}".rstrip(),)),
    )


def _no_device_and_no_cuda_library_tried(facts: Facts, matrix: object) -> Iterator[Finding]:
    """TensorFlow's device placement log shows no device ("Device mapping: no known devices.") and nothing in the
    evidence shows it trying a CUDA library: a CUDA build that cannot use the GPU logs the library it failed to open
    (or cuInit's error), a CPU-only package logs nothing. Having installed tensorflow-gpu does not rule it out: a CPU
    package installed after it (a dependency's `tensorflow` requirement) overwrites the same files. A warning: the
    package list would settle it."""
    mapped_none = symptoms(facts, "tf-no-device-mapped")
    tried = any(symptoms(facts, kind) for kind in ("library-not-loadable", "tf-gpu-libs-missing", "cuinit-failed", "no-driver-found",
                                                       "nvidia-driver-not-loaded", "cuda-no-device"))
    if not mapped_none or tried or gpu_presence(facts) is False:
        return
    yield Finding(
        "tf-cpu-package-shadows-gpu", Severity.WARNING, Section.TENSORFLOW,
        "TensorFlow mapped no GPU device and tried to load no CUDA library: most often the TensorFlow installed is a CPU-only package",
        (f"log: {mapped_none[0].text}",
         "a CUDA build that cannot use the GPU logs which CUDA library or driver call failed; no such line is in the evidence",
         "`pip list | grep -i tensorflow` settles it (before 1.15 the GPU build was the tensorflow-gpu package)"),
        # (not the solver's pick: with the GPU unknown it fits a CPU build, the opposite of this fix)
        Fix("Remove the CPU-only TensorFlow and install TensorFlow's GPU build of your release",
            ("pip uninstall -y tensorflow tensorflow-cpu",
             "pip install tensorflow-gpu==<release>   # 1.x; 2.1-2.14: tensorflow; 2.15+ on Linux: 'tensorflow[and-cuda]'"),
            "https://www.tensorflow.org/install/pip"),
    )


def _tf_release(matrix: object, version: str | None):
    finder = getattr(matrix, "tf_release", None)
    return finder(version) if finder and version else None


def _cpu_only_tensorflow_package(facts: Facts, matrix: object) -> bool:
    """The plain `tensorflow` distribution is installed, without `tensorflow-gpu`, in a release where it has no CUDA
    code: before 1.15, 1.15.2 and later 1.15 patches, and 2.0 (the matrix's tensorflow_gpu_versions; the wheels)."""
    from ..matrix.tables.model import try_vtuple

    name = package(facts, "tensorflow")
    version = try_vtuple(name)
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    if not version or package(facts, "tensorflow-gpu") or (tf is not None and tf.is_cuda_build):
        return False
    release = _tf_release(matrix, name)
    if release is not None:
        return release.tensorflow_has_gpu(name) is False
    return version[:2] < (1, 15)  # no matrix: the 1.x rule everybody knows


def _gpu_split_text(matrix: object, version: str) -> str:
    release = _tf_release(matrix, version)
    if release is None:
        return "before 1.15 the 'tensorflow' package was CPU-only; GPU support was 'tensorflow-gpu'"
    return (f"the 'tensorflow' {version} wheel has no CUDA code; GPU support of TensorFlow {release.series} is the "
            f"'{release.package}' distribution (tested with CUDA {release.cuda}, cuDNN {release.cudnn})")


def _same_release_gpu_fix(facts: Facts, matrix: object, version: str) -> Fix:
    """The GPU build of the SAME release: the user chose this version, so the fix does not move them to another one."""
    from ..matrix.tables.model import python_span

    release = _tf_release(matrix, version)
    if release is None:
        return install_fix(facts, matrix, "tensorflow", "Remove every TensorFlow package, then install the GPU one",
                           first=("pip uninstall -y tensorflow",))
    exact = version if version in release.versions else release.latest
    gpu_package = release.package if release.package != "tensorflow" else "tensorflow-gpu"
    summary = (f"Replace it with {gpu_package} {exact}, the CUDA build of the same release; it loads CUDA {release.cuda} and "
               f"cuDNN {release.cudnn} (or a newer {release.cudnn.split('.')[0]}.x) from the system (check it again once it is installed: the library findings judge them)")
    py = facts.host.python if facts.host else None
    minor = ".".join(py.split(".")[:2]) if py else None
    finder = getattr(matrix, "python_for", None)
    pythons = (finder("tensorflow", exact) if finder else None) or release.python  # the wheels' where known
    if minor and minor not in pythons:
        summary += f"; this Python {minor} has no wheel of it (it has {python_span(pythons)})"
    return Fix(summary, ("pip uninstall -y tensorflow", f"pip install {gpu_package}=={exact}"), "https://www.tensorflow.org/install/source#gpu")


def tf_cuda_build_without_gpu(facts: Facts, matrix: object) -> Iterator[Finding]:
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    if not tf or not tf.is_cuda_build or gpu_presence(facts) is not False or jetson(facts):
        return
    yield Finding(
        "tf-cuda-build-no-gpu", Severity.INFO, Section.TENSORFLOW,
        f"{_label('TensorFlow', tf.version)} is a CUDA {tf.cuda or '(version unknown)'} build; no NVIDIA GPU or driver found, so it will run on the CPU",
        (f"build_info: cuda {tf.cuda or 'unknown'}, cuDNN {tf.cudnn or 'unknown'}",),
    )


def tf_runtime(facts: Facts, matrix: object) -> Iterator[Finding]:
    """Only with --deep."""
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    if not tf:
        return
    if tf.import_error:
        yield _import_failed(facts, matrix, "tensorflow", tf.version, tf.path, tf.import_error)
        return
    if tf.gpus_visible is None or not tf.is_cuda_build:
        return
    if tf.gpus_visible:
        yield Finding("tf-gpus-visible", Severity.OK, Section.TENSORFLOW,
                      f"{_label('TensorFlow', tf.version)} sees {tf.gpus_visible} GPU(s)", ())
    elif gpu_presence(facts) is True and driver_loaded(facts):
        yield Finding(
            "tf-gpu-not-visible", Severity.ERROR, Section.TENSORFLOW,
            f"{_label('TensorFlow', tf.version)} is a CUDA build but tf.config.list_physical_devices('GPU') is empty",
            ("the GPU and the NVIDIA driver are present; the CUDA library findings say why",),
            install_fix(facts, matrix, "tensorflow", "Install TensorFlow with its CUDA libraries"),
        )


def _import_failed(facts: Facts, matrix: object, framework: str, version: str | None, path: str | None, error: str) -> Finding:
    section = Section.TORCH if framework == "torch" else Section.TENSORFLOW
    return Finding(
        "framework-import-failed", Severity.ERROR, section, f"import {framework} fails: {error}",
        (f"{framework} {version or '(version unknown)'} at {path or '(path unknown)'}",),
        install_fix(facts, matrix, framework, f"Reinstall {framework}", first=(f"pip uninstall -y {framework}",)),
    )


CHECKS = (
    torch_cpu_only_build,
    torch_without_cuda_on_nvidia_gpu,
    torch_cuda_build_without_gpu,
    torch_runtime,
    tf_cpu_package_shadows_gpu,
    tf_cuda_build_without_gpu,
    tf_runtime,
)
