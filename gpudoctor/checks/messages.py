"""Judging what a pasted log says happened. A framework's own error line is the strongest evidence there is
("The NVIDIA driver on your system is too old", "Loaded runtime CuDNN library ... but source was compiled with"),
so each becomes the finding it proves, with the line as evidence, even when the facts around it are unknown. These
checks run after the fact rules; where both find one problem, the report keeps the fact rule's finding and adds the
line to its evidence (checks/__init__.py)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..matrix.tables.framework import Framework
from ..model import Facts, Finding, Fix, Section, Severity
from . import _builds as b
from ._facts import gpu_presence, symptoms
from .cudnn_majors import not_on_loader_path, soname_cuda as _soname_cuda
from .log_rules import lines as _lines, log_rules

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix

# Pattern texts: re.match/re.search compile them on first use (re's own cache), since only pasted logs need them.
_CUDA_LIBS = r"^(?:lib)?(cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|cusparseLt|cudnn|nvrtc|nvJitLink|cudss|cufile|nccl)(?:64)?[._]"  # re.I
_SONAME_CUDNN = r"(?:lib)?cudnn(?:\.so\.|64_)(\d+)"
_LIBCUDA = r"^libcuda\.so|^nvcuda\.dll|^libnvidia-ml\.so"  # re.I


def _section(framework: str | None) -> Section:
    return Section.TENSORFLOW if framework == "tensorflow" else Section.TORCH


def _severity_for_unknown_gpu(facts: Facts) -> Severity | None:
    """A symptom that only matters on a GPU machine: an error there, a warning when the GPU is unknown."""
    presence = gpu_presence(facts)
    return Severity.ERROR if presence else Severity.WARNING if presence is None else None


def driver_too_old_from_message(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    found = symptoms(facts, "driver-too-old")
    if not found:
        return
    driver = facts.driver
    have = f"driver supporting CUDA {driver.cuda_version}" if driver and driver.cuda_version else "installed driver"
    torch = facts.frameworks.torch if facts.frameworks else None
    build = f"torch {torch.version}" + (f" (CUDA {torch.cuda})" if torch.cuda else "") if torch and torch.version else "this torch build"
    fix = b.install_fix(facts, matrix, "torch", "Install a torch build for the driver's CUDA", "or upgrade the NVIDIA driver") if matrix else None
    yield Finding(
        "driver-too-old-for-cuda-build", Severity.ERROR, Section.TORCH,
        f"The NVIDIA driver is too old for {build}: torch says so when it starts CUDA",
        _lines(found) + (f"torch reports the {have}",),
        fix or Fix("Upgrade the NVIDIA driver, or install a torch build for an older CUDA", (), b.TORCH_PREVIOUS_URL),
    )


def driver_insufficient_from_message(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    """"CUDA driver version is insufficient for CUDA runtime version": the program's CUDA runtime is newer than the
    driver. A local nvcc build: cuda-toolkit-newer-than-driver says so. No NVIDIA GPU (CUDA says it without a driver too): no-nvidia-gpu."""
    found = symptoms(facts, "driver-insufficient")
    if not found or _toolkit_too_new(facts, matrix) or gpu_presence(facts) is False:
        return
    driver = facts.driver
    have = f"driver {driver.version}" if driver and driver.version else "the installed NVIDIA driver"
    # CUDA returns the same error where no NVIDIA driver is installed at all (a CPU-only machine running a CUDA build):
    # only with an NVIDIA GPU known is an old driver the cause; otherwise it is one of the two, a warning
    known = gpu_presence(facts) is True
    yield Finding(
        "driver-too-old-for-cuda-build", Severity.ERROR if known else Severity.WARNING, Section.GPU,
        "The NVIDIA driver is older than the CUDA runtime the program was built with"
        + ("" if known else ", or no NVIDIA driver (or GPU) is here at all"),
        _lines(found) + ((f"{have} cannot run that CUDA runtime",) if known else
                         ("CUDA reports a missing driver with the same error; nothing here shows an NVIDIA GPU",)),
        Fix("Upgrade the NVIDIA driver (580 or newer runs CUDA 13), or use a build of the program for an older CUDA",
            ("nvidia-smi   # 'CUDA Version' is the newest CUDA this driver runs",), b.DRIVER_URL),
    )


def _toolkit_too_new(facts: Facts, matrix: "Matrix | None") -> bool:
    from ..matrix.solver.driver import driver_os, driver_verdict

    driver = facts.driver
    toolkit = (facts.cuda_toolkits or (None,))[0]
    if matrix is None or toolkit is None or b.vt(toolkit.version) is None or not driver or not (driver.version or driver.cuda_version):
        return False
    verdict = driver_verdict(matrix, toolkit.version, driver.version, driver.cuda_version, driver_os(b.host_os(facts), b.is_wsl(facts)))
    return verdict.ok is False


def toolkit_mismatch_from_message(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    found = symptoms(facts, "toolkit-mismatch")
    if not found:
        return
    toolkit, _, built = (found[0].subject or "").partition(" vs ")
    yield Finding(
        "cuda-toolkit-major-mismatch-for-extensions", Severity.WARNING, Section.CUDA,
        f"The CUDA toolkit that compiles extensions is {toolkit}, but torch was built with CUDA {built}",
        _lines(found),
        Fix(f"Point CUDA_HOME at a CUDA {built.split('.')[0]}.x toolkit, or install the torch build for CUDA {toolkit}",
            (f"export CUDA_HOME=/usr/local/cuda-{built}",), "https://pytorch.org/docs/stable/cpp_extension.html"),
    )


def arch_not_in_build_from_message(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    for framework in ("torch", "tensorflow"):
        found = [s for s in symptoms(facts, "arch-not-in-build") if s.framework == framework]
        if not found:
            continue
        gpu = facts.gpus[0] if facts.gpus else None
        cc = gpu.compute_capability if gpu else None
        name = Framework(framework).label
        what = f"{gpu.name if gpu and gpu.name else 'the GPU'}" + (f" (compute capability {cc})" if cc else "")
        fix = b.install_fix(facts, matrix, framework, f"Install a {name} build compiled for compute capability {cc or 'of this GPU'}") if matrix else None
        yield Finding(
            "gpu-arch-not-in-build", Severity.ERROR, _section(framework),
            f"The installed {name} build has no code for {what}: it says so itself",
            _lines(found),
            fix or Fix(f"Install a {name} build compiled for this GPU", (), b.TORCH_URL if framework == "torch" else b.TF_PIP_URL),
        )


def no_kernel_image_from_message(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    torch = facts.frameworks.torch if facts.frameworks else None  # on ROCm "invalid device function" is HIP's (rocm_builds.py)
    found = symptoms(facts, "no-kernel-image") + ([] if facts.amd_gpus or (torch and torch.hip) else symptoms(facts, "invalid-device-function"))
    if not found or symptoms(facts, "arch-not-in-build"):
        return
    yield Finding(
        "gpu-arch-not-in-build", Severity.ERROR, Section.TORCH,
        "\"no kernel image is available\": the build (or an extension) has no code for this GPU's architecture",
        _lines(found) + ("CUDA raises this when neither SASS for the GPU nor usable PTX is in the binary",),
        b.install_fix(facts, matrix, "torch", "Install a build compiled for this GPU's compute capability") if matrix else
        Fix("Install a build compiled for this GPU's compute capability (and rebuild CUDA extensions with TORCH_CUDA_ARCH_LIST set)", (), b.TORCH_URL),
    )


def cuda_libraries_not_loadable(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    found = [s for s in symptoms(facts, "library-not-loadable") if s.subject and re.match(_CUDA_LIBS, s.subject, re.I)]
    found += symptoms(facts, "tf-gpu-libs-missing")
    if not found:
        return
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    torch = facts.frameworks.torch if facts.frameworks else None
    # a line that names no framework belongs to the one the facts know (torch's own imports fail the same way)
    framework = next((s.framework for s in found if s.framework), None) or ("tensorflow" if tf else "torch" if torch else None)
    subjects = [s.subject for s in found if s.subject]
    needs = []
    for subject in subjects:
        cuda = _soname_cuda(subject)
        if cuda and f"CUDA {cuda}" not in needs:
            needs.append(f"CUDA {cuda}")
        m = re.search(_SONAME_CUDNN, subject)
        if m and f"cuDNN {m.group(1)}" not in needs:
            needs.append(f"cuDNN {m.group(1)}")
    evidence = _lines(found) + ((f"the build looks for {' and '.join(needs)} ({', '.join(dict.fromkeys(subjects))})",) if needs else ())
    if framework is None:  # no framework in the evidence: another program (onnxruntime, mxnet, CTranslate2) loads it
        yield from not_on_loader_path(found, _severity_for_unknown_gpu(facts), evidence)
        return
    if framework == "tensorflow":
        severity = _severity_for_unknown_gpu(facts)
        if severity is None:
            return  # no GPU: TensorFlow prints these warnings and runs on the CPU, as it should
        release = matrix.tf_release(tf.version) if matrix and tf and tf.version else None
        if release is not None:
            summary = f"Install what tensorflow {release.series} was built with: CUDA {release.cuda} and cuDNN {release.cudnn}"
            commands = ("pip install 'tensorflow[and-cuda]'   # TensorFlow 2.14+ on Linux: pip brings CUDA and cuDNN",) if release.has_and_cuda else (
                f"conda install -c conda-forge cudatoolkit={release.cuda} cudnn={release.cudnn}",)
        else:
            summary = f"Install the CUDA libraries this TensorFlow was built with{' (' + ', '.join(needs) + ')' if needs else ''}, or a TensorFlow built for the CUDA you have"
            commands = ("pip install 'tensorflow[and-cuda]'   # TensorFlow 2.14+ on Linux",)
        yield Finding(
            "tf-missing-gpu-libs", severity, Section.TENSORFLOW,
            "TensorFlow cannot load the CUDA libraries it was built for, so it runs on the CPU"
            + ("" if severity is Severity.ERROR else " (if this machine has an NVIDIA GPU)"),
            evidence, Fix(summary, commands, "https://www.tensorflow.org/install/source#gpu"),
        )
    else:
        yield Finding(
            "cuda-library-not-on-loader-path", Severity.ERROR, _section(framework),
            f"{'PyTorch' if framework == 'torch' else framework} cannot load a CUDA library it needs",
            evidence,
            b.install_fix(facts, matrix, "torch", "Reinstall torch so that pip brings its CUDA libraries", "and remove foreign CUDA directories from LD_LIBRARY_PATH",
                          gpu_build=True)  # it loads CUDA libraries: a CUDA build, whatever the solver fits an unknown GPU
            if matrix else Fix("Reinstall torch from the PyTorch index for your CUDA", (), b.TORCH_URL),
        )


def driver_library_not_loadable(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    found = [s for s in symptoms(facts, "library-not-loadable") if s.subject and re.match(_LIBCUDA, s.subject, re.I)]
    found += symptoms(facts, "no-driver-found") + symptoms(facts, "nvidia-driver-not-loaded")
    # WSL and containers have their own findings for a missing libcuda; an AMD GPU machine expects no NVIDIA driver
    if not found or (facts.host and (facts.host.wsl or facts.host.container)) or (facts.amd_gpus and gpu_presence(facts) is not True):
        return
    # Whether an NVIDIA GPU is here at all is a fact these lines do not give: the same words come from a Mac, an AMD
    # machine, a notebook's CPU runtime or a container started without GPUs. Unknown, the missing driver is a warning.
    known = gpu_presence(facts) is True
    yield Finding(
        "gpu-without-driver", Severity.ERROR if known else Severity.WARNING, Section.GPU,
        "The NVIDIA driver's user-space library (libcuda) is not installed or not found"
        + ("" if known else " (if this machine has an NVIDIA GPU)"),
        _lines(found) + ("libcuda comes with the NVIDIA driver; the CUDA toolkit or pip wheels do not provide it",)
        + (() if known else ("nothing here shows an NVIDIA GPU: the same words come from a machine without one (a Mac, an AMD GPU, "
                             "a notebook's CPU runtime) and from a container started without GPUs",)),
        Fix("Install the NVIDIA driver (580 or newer runs every current PyTorch and TensorFlow build), then reboot",
            ("nvidia-smi   # must list the GPU", "sudo ubuntu-drivers install   # Ubuntu; other distributions: the vendor's package"),
            "https://www.nvidia.com/en-us/drivers/"),
    )


def cudnn_mismatch_from_message(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    for framework in ("tensorflow", "torch", "jax"):
        found = [s for s in symptoms(facts, "cudnn-loaded-mismatch") if s.framework == framework]
        if not found:
            continue
        loaded, _, built = (found[0].subject or "").partition(" vs ")
        name = Framework(framework).label
        yield Finding(
            "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
            f"{name} was built with cuDNN {built or '?'} but loads cuDNN {loaded or '?'}, and refuses it",
            _lines(found) + (("older TensorFlow releases need the exact cuDNN major.minor they were built with",) if framework == "tensorflow" else ()),
            Fix(f"Install cuDNN {built} (first on the loader path), or a {name} release built with cuDNN {loaded}"
                if built and loaded else f"Install the cuDNN {name} was built with",
                (f"conda install cudnn={built}   # in a conda environment",) if built else (),
                {"tensorflow": "https://www.tensorflow.org/install/source#gpu", "jax": "https://docs.jax.dev/en/latest/installation.html"}.get(framework, b.TORCH_PREVIOUS_URL)),
        )


def cudnn_sublibraries_mixed(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    found = symptoms(facts, "cudnn-sublibrary-not-loadable") + symptoms(facts, "cudnn-undefined-symbol")
    if not found:
        return
    ld = facts.host.env.get("LD_LIBRARY_PATH") if facts.host and facts.host.env else None
    yield Finding(
        "loader-cudnn-shadows-framework-cudnn", Severity.ERROR, Section.CUDNN,
        "Two cuDNN installations are mixed: a cuDNN sub-library is loaded from another copy than the framework's",
        _lines(found) + ((f"LD_LIBRARY_PATH={ld}",) if ld else ())
        + ("cuDNN's sub-libraries (cnn, ops, adv) must all come from one release; mixing two fails even when the other is newer",),
        Fix("Remove the system CUDA/cuDNN directories from LD_LIBRARY_PATH so the framework's own pip cuDNN is used "
            "(or upgrade to torch 2.4+, which loads its own sub-libraries first)",
            ("export LD_LIBRARY_PATH=$(echo \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -v -e cuda -e cudnn | paste -sd:)",),
            "https://github.com/pytorch/pytorch/issues/119989"),
    )


def _installed_cudnn_majors(facts: Facts) -> dict[str, str]:
    """cuDNN majors known to be installed -> where: the loader's copies and pip's nvidia-cudnn wheels."""
    out: dict[str, str] = {}
    for lib in (facts.libraries.libcudnn or ()) if facts.libraries else ():
        if lib.version and lib.version.split(".")[0].isdigit():
            out.setdefault(lib.version.split(".")[0], f"cuDNN {lib.version}" + (f" at {lib.path}" if lib.path else ""))
    for name, version in (facts.python_packages or {}).items():
        if name.startswith("nvidia-cudnn") and version and version.split(".")[0].isdigit():
            out.setdefault(version.split(".")[0], f"pip: {name} {version}")
    return out


def cudnn_major_mismatch(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    """A program that names the cuDNN major it needs (libcudnn_ops_infer.so.8, "Require cuDNN 8.*") beside a
    cuDNN of another major that is installed: the installed one cannot serve it (cuDNN breaks its ABI per major)."""
    wanted = [(re.search(r"(?:\.so\.|64_)(\d+)", s.subject or "") or re.fullmatch(r"(\d+)", s.subject or ""), s)
              for s in symptoms(facts, "cudnn-not-found") + symptoms(facts, "cudnn-major-required")]
    wanted = [(m.group(1), s) for m, s in wanted if m]
    installed = _installed_cudnn_majors(facts)
    if not wanted or not installed:
        return
    major, symptom = wanted[0]
    if major in installed:
        return
    have = "; ".join(installed.values())
    yield Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
        f"The program needs cuDNN {major}, but the cuDNN installed is of another major ({have})",
        _lines([symptom]) + (f"installed: {have}", "a program built for one cuDNN major cannot load another"),
        Fix(f"Install cuDNN {major} beside the other (pip: nvidia-cudnn-cu{'11' if major == '8' else '12'} {major}.*) and put it on the loader path, "
            "or install a build of the program for the cuDNN you have",
            (f"pip install 'nvidia-cudnn-cu{'11' if major == '8' else '12'}=={major}.*'",), "https://docs.nvidia.com/deeplearning/cudnn/latest/reference/support-matrix.html"),
    )


CHECKS = (
    driver_too_old_from_message, driver_insufficient_from_message,
    toolkit_mismatch_from_message,
    arch_not_in_build_from_message,
    no_kernel_image_from_message,
    cuda_libraries_not_loadable,
    driver_library_not_loadable,
    cudnn_mismatch_from_message,
    cudnn_sublibraries_mixed,
    cudnn_major_mismatch,
    log_rules,
)
