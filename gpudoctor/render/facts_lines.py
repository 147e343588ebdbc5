"""One-line summaries of the facts behind each report section (shown with -v, in Markdown, and as the headline of a
section with nothing to report). Presentation only: no judgement happens here."""

from __future__ import annotations

from ..model import Facts, Section
from ..model.inferred import torch_build_kind


def _unknown(value: object) -> str:
    return "unknown" if value is None else str(value)


def section_facts(facts: Facts, section: Section) -> list[str]:
    return _BUILDERS[section](facts)


def is_neutral(headline: str) -> bool:
    """A headline that states absence or ignorance: shown as not applicable, never as a pass."""
    return headline == "not installed" or headline.endswith(": unknown") or headline.startswith("no ")


def _gpu(facts: Facts) -> list[str]:
    lines = []
    d = facts.driver
    if d:
        version = d.version or ("not loaded" if d.kernel_module is None and d.nvml_error else "unknown")
        lines.append(f"driver: {version}" + (f", CUDA {d.cuda_version}" if d.cuda_version else "")
                     + (f", kernel module {d.kernel_module} {d.kernel_module_version or ''}".rstrip() if d.kernel_module else ""))
        if d.nvml_error:
            lines.append(f"NVML: {d.nvml_error}")
    if facts.gpus is None:
        lines.append("GPUs: unknown")
    for g in facts.gpus or ():
        memory = f", {_unknown(g.memory_used_mib)}/{g.memory_total_mib} MiB used" if g.memory_total_mib else ""
        lines.append(f"GPU {_unknown(g.index)}: {_unknown(g.name)}, CC {_unknown(g.compute_capability)}{memory}" + (f", {g.uuid}" if g.uuid else ""))
    for p in facts.pci_devices or ():
        lines.append(f"PCI {_unknown(p.bus_id)}: 10de:{_unknown(p.device_id)}, driver {p.driver or 'none'}")
    if facts.pci_devices == () and not facts.gpus:
        lines.append("PCI: no NVIDIA device")
    return lines + _platform_lines(facts)


def _platform_lines(facts: Facts) -> list[str]:
    """A Mac's, a Jetson's and a notebook's own facts (each only where it applies)."""
    lines = []
    apple = facts.host.apple if facts.host else None
    if apple:
        lines.append(f"Mac: {apple.chip or 'chip unknown'}, macOS {_unknown(apple.macos)}, Python {_unknown(apple.python_arch)}"
                     + (" under Rosetta" if apple.rosetta else ""))
    if facts.jetson:
        j = facts.jetson
        lines.append(f"Jetson: L4T {_unknown(j.l4t)}" + (f" ({j.model})" if j.model else "") + (f", nvidia-l4t-core {j.l4t_core}" if j.l4t_core else ""))
    notebook = facts.host.notebook if facts.host else None
    if notebook:
        lines.append(f"notebook: {_unknown(notebook.kind)}")
    return lines


def _cuda(facts: Facts) -> list[str]:
    if facts.cuda_toolkits is None:
        return ["CUDA toolkits: unknown"]
    if not facts.cuda_toolkits:
        return ["no CUDA toolkit installed (not needed to run pip wheels; only to compile extensions)"]
    lines = [f"CUDA {_unknown(t.version)}" + (f" at {t.path}" if t.path else "") + (" (nvcc on PATH)" if t.on_path else "") for t in facts.cuda_toolkits]
    libs = facts.libraries
    for label, found in (("libcuda", libs.libcuda if libs else None), ("libcudart", libs.libcudart if libs else None)):
        if found:
            lines.append(f"{label}: " + ", ".join(f"{lib.path} ({_unknown(lib.version)})" for lib in found))
    return lines


def _cudnn(facts: Facts) -> list[str]:
    libs = facts.libraries.libcudnn if facts.libraries else None
    lines = [f"loader finds {lib.path} ({_unknown(lib.version)})" if lib.path else f"cuDNN {_unknown(lib.version)} loaded at run time" for lib in libs or ()]
    wheels = {n: v for n, v in (facts.python_packages or {}).items() if n.startswith("nvidia-cudnn") and v}
    lines += [f"pip: {name} {version}" for name, version in wheels.items()]
    return lines or ["no cuDNN on the loader path or as a pip wheel"]


def _torch(facts: Facts) -> list[str]:
    if facts.frameworks is None:
        return ["torch: unknown"]
    t = facts.frameworks.torch
    if t is None:
        return ["not installed"]
    kind = torch_build_kind(t)
    build = {"cuda": f"CUDA {t.cuda or 'version unknown'}", "rocm": f"ROCm {t.hip or 'version unknown'}", "cpu": "CPU-only",
             "xpu": "XPU"}.get(kind or "", "build unknown")
    lines = [f"torch {t.version or '(version unknown)'} ({build})" + (f" at {t.path}" if t.path else "")]
    if t.cuda_available is not None:
        lines.append(f"at run time: cuda_available={t.cuda_available}" + (f", devices={t.device_count}" if t.device_count is not None else "")
                     + (f", cuDNN {t.cudnn}" if t.cudnn else ""))
    if t.arch_list:
        lines.append("arch list: " + " ".join(t.arch_list))
    return lines


def _tensorflow(facts: Facts) -> list[str]:
    if facts.frameworks is None:
        return ["tensorflow: unknown"]
    t = facts.frameworks.tensorflow
    if t is None:
        return ["not installed"]
    build = (f"CUDA {_unknown(t.cuda)}, cuDNN {_unknown(t.cudnn)}" if t.is_cuda_build else
             "CPU-only" if t.is_cuda_build is False else "build unknown")
    lines = [f"tensorflow {t.version or '(version unknown)'} ({build})" + (f" at {t.path}" if t.path else "")]
    if t.compute_capabilities:
        lines.append("compiled for: " + " ".join(t.compute_capabilities))
    if t.gpus_visible is not None:
        lines.append(f"at run time: {t.gpus_visible} GPU(s) visible")
    return lines


def _jax(facts: Facts) -> list[str]:
    if facts.frameworks is None:
        return ["jax: unknown"]
    j = facts.frameworks.jax
    if j is None:
        return ["not installed"]
    build = {"cpu": "CPU build, no CUDA plugin", None: "build unknown"}.get(j.build, f"{j.build} plugin {_unknown(j.plugin or j.pjrt)}")
    lines = [f"jax {j.version or '(version unknown)'}, jaxlib {_unknown(j.jaxlib)} ({build})"]
    if j.devices is not None:
        lines.append(f"at run time: {', '.join(j.devices) or 'no devices'} (default backend {_unknown(j.backend)})")
    return lines


def _environment(facts: Facts) -> list[str]:
    h = facts.host
    if h is None:
        return ["host: unknown"]
    parts = [" ".join(p for p in (h.os_release or h.os, h.arch) if p) or "unknown OS"]
    parts += [f"kernel {h.kernel}"] if h.kernel else []
    parts += [f"Python {h.python}"] if h.python else []
    parts += [f"WSL {h.wsl}"] if h.wsl else []
    parts += [f"in a {h.container} container"] if h.container else []
    lines = [", ".join(parts)]
    lines += [f"{k}={v}" for k, v in (h.env or {}).items() if k != "PATH"]
    lines += [f"probe {e.probe} failed: {e.error}" for e in facts.probe_errors]
    return lines


_BUILDERS = {
    Section.GPU: _gpu,
    Section.CUDA: _cuda,
    Section.CUDNN: _cudnn,
    Section.TORCH: _torch,
    Section.TENSORFLOW: _tensorflow,
    Section.JAX: _jax,
    Section.ENVIRONMENT: _environment,
}
