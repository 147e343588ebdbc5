"""gpu-package-cpu-variant from a package list: a library whose CUDA build is published under another name
(onnxruntime / onnxruntime-gpu, paddlepaddle / paddlepaddle-gpu, mxnet / mxnet-cu112, cntk / cntk-gpu) installed as
its CPU-only distribution, or as both. The pairs live in matrices/accelerators.toml ([cpu_variants]).

A warning, never an error: such a package is often a dependency of some tool that is meant to run on the CPU
(onnxruntime under rembg or insightface), so a package list alone does not say the user wants it on the GPU."""

from __future__ import annotations

from fnmatch import fnmatch
from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import accelerator_notes, gpu_presence


def gpu_package_cpu_variant(facts: Facts, matrix: object) -> Iterator[Finding]:
    installed = {name: version for name, version in (facts.python_packages or {}).items() if version}
    if not installed or (facts.host is not None and facts.host.os == "darwin"):
        return  # no CUDA build exists for macOS: the CPU distribution is the right one there
    presence = gpu_presence(facts)
    for cpu, gpu_glob in accelerator_notes(matrix, "cpu_variants").items():
        if cpu not in installed:
            continue
        gpu = sorted(name for name in installed if name != cpu and fnmatch(name, gpu_glob))
        if gpu:  # both: one import name, and the CPU distribution's files shadow or mix into the GPU one's
            yield Finding(
                "gpu-package-cpu-variant", Severity.WARNING, Section.ENVIRONMENT,
                f"{cpu} (the CPU-only build) is installed beside {gpu[0]}: both provide the same module, and the CPU one's files win",
                (f"{cpu} {installed[cpu]}", f"{gpu[0]} {installed[gpu[0]]}"),
                Fix(f"Uninstall both, then install only {gpu[0]}", (f"pip uninstall -y {cpu} {gpu[0]} && pip install {gpu[0]}",)),
            )
            continue
        if presence is False:
            continue  # no NVIDIA GPU: the CPU build is the right one
        yield Finding(
            "gpu-package-cpu-variant", Severity.WARNING, Section.ENVIRONMENT,
            f"{cpu} is the CPU-only build: its CUDA build is the separate package {gpu_glob.replace('*', 'XXX')}"
            + ("" if presence else " (whether this machine has an NVIDIA GPU is not known)"),
            (f"{cpu} {installed[cpu]}", f"no {gpu_glob} installed"),
            Fix(f"Uninstall {cpu} and install {gpu_glob.replace('*', 'XXX')} for your CUDA",
                (f"pip uninstall -y {cpu} && pip install {gpu_glob.replace('*', 'XXX')}",)),
        )


CHECKS = (gpu_package_cpu_variant,)
