"""Accelerator routes besides CUDA that are reported, not judged as broken (DirectML, Intel XPU), a retired framework
(MXNet), hosted notebooks on a CPU runtime (Colab, Kaggle), and TensorFlow's XLA devices in a pasted device list.
The facts about each route live in matrices/accelerators.toml."""

from __future__ import annotations

from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import accelerator_notes, gpu_presence, jetson, package, symptoms, torch_build_kind

_NOTEBOOK_FIX = {
    "colab": ("Runtime → Change runtime type → Hardware accelerator: a GPU (e.g. T4), then run the notebook again",
              "https://research.google.com/colaboratory/faq.html"),
    "kaggle": ("Settings → Accelerator → a GPU (e.g. GPU T4 x2 or P100), then run the notebook again",
               "https://www.kaggle.com/docs/notebooks"),
}


def directml_detected(facts: Facts, matrix: object) -> Iterator[Finding]:
    if not package(facts, "torch-directml") and not package(facts, "tensorflow-directml-plugin"):
        return  # the notes' table is read only when there is something to say (a cached matrix unpickles it on use)
    notes = accelerator_notes(matrix, "directml")
    for name, section, supports in (
        ("torch-directml", Section.TORCH, "PyTorch on any DirectX 12 GPU (AMD, Intel, NVIDIA) of Windows or WSL2, as the device "
                                          f"{notes.get('torch_device', 'torch_directml.device()')}; not as 'cuda'"),
        ("tensorflow-directml-plugin", Section.TENSORFLOW, "TensorFlow on any DirectX 12 GPU of Windows or WSL2, loaded into "
                                                           f"{notes.get('tf_base', 'tensorflow-cpu 2.10')}"),
    ):
        version = package(facts, name)
        if not version:
            continue
        where = "WSL2" if facts.host and facts.host.wsl == 2 else (facts.host.os if facts.host and facts.host.os else "this machine")
        yield Finding(
            "directml-detected", Severity.INFO, section,
            f"{name} {version} is installed: DirectML runs {supports.split(' of ')[0]} (not CUDA)",
            (f"{name} {version} on {where}", f"supports: {supports}"),
            Fix("Smoke-test it with `gpudoctor verify --device directml` (PyTorch)", (), notes.get("torch_url" if section is Section.TORCH else "tf_url")),
        )


def intel_xpu_detected(facts: Facts, matrix: object) -> Iterator[Finding]:
    torch = facts.frameworks.torch if facts.frameworks else None
    ipex = package(facts, "intel-extension-for-pytorch")
    xpu_build = bool(torch and (torch.xpu or torch_build_kind(torch) == "xpu"))
    if not xpu_build and not ipex:
        return
    notes = accelerator_notes(matrix, "xpu")
    evidence = []
    if xpu_build:
        evidence.append(f"torch {torch.version or '(version unknown)'}: XPU build" + (f" (torch.version.xpu = {torch.xpu})" if torch.xpu else ""))
        if torch.xpu_available is not None:
            evidence.append(f"torch.xpu.is_available() = {torch.xpu_available}")
    if ipex:
        evidence.append(f"intel-extension-for-pytorch {ipex}")
    severity = Severity.WARNING if xpu_build and torch.xpu_available is False else Severity.INFO
    title = ("torch is an Intel XPU build, but it sees no Intel GPU (torch.xpu.is_available() is False)" if severity is Severity.WARNING
             else "Intel GPU (XPU) support is installed: PyTorch trains on the 'xpu' device, not 'cuda'")
    yield Finding("intel-xpu-detected", severity, Section.TORCH, title, tuple(evidence),
                  Fix("Smoke-test it with `gpudoctor verify --device xpu`; XPU builds come from "
                      f"{notes.get('index_url', 'https://download.pytorch.org/whl/xpu')}", (), notes.get("url")))


def mxnet_retired(facts: Facts, matrix: object) -> Iterator[Finding]:
    installed = {name: v for name, v in (facts.python_packages or {}).items() if v and (name == "mxnet" or name.startswith("mxnet-"))}
    if not installed:
        return
    notes = accelerator_notes(matrix, "mxnet")
    yield Finding(
        "mxnet-retired", Severity.INFO, Section.ENVIRONMENT,
        f"MXNet is retired upstream (moved to the Apache Attic in {notes.get('retired', '2023')}): no fixes or new CUDA builds will come",
        tuple(f"{name} {version}" for name, version in sorted(installed.items()))
        + ((f"last release: {notes['last_release']}",) if notes.get("last_release") else ()),
        Fix(notes.get("migration", "Move to PyTorch or JAX"), (), notes.get("attic_url", "https://attic.apache.org/projects/mxnet.html")),
    )


_NO_GPU_IN_RUNTIME = ("cuda-unavailable", "cuda-no-device", "no-driver-found", "nvidia-driver-not-loaded", "torch-without-cuda",
                      "tf-no-gpu-device")


def notebook_cpu_runtime(facts: Facts, matrix: object) -> Iterator[Finding]:
    notebook = facts.host.notebook if facts.host else None
    if notebook is None or notebook.kind not in _NOTEBOOK_FIX or jetson(facts):
        return
    presence = gpu_presence(facts)
    # A pasted error from a notebook: no GPU list, but CUDA said there is no GPU. On a hosted notebook that is the
    # runtime type (its GPU runtimes always come with a working driver), so say so rather than stay silent.
    # (torch's "Found no NVIDIA driver" and a failing nvidia-smi are what a CPU runtime prints: it has no driver either)
    said = [s for kind in _NO_GPU_IN_RUNTIME for s in symptoms(facts, kind)] if presence is None else []
    if presence is not False and not said:
        return
    how, url = _NOTEBOOK_FIX[notebook.kind]
    name = {"colab": "Google Colab", "kaggle": "Kaggle"}[notebook.kind]
    runtime = f"{name} runtime" + "".join(f", {k}={v!r}" for k, v in sorted((notebook.env or {}).items()))
    evidence = [runtime, f"log: {said[0].text}" if said else "no NVIDIA GPU in this runtime"]
    yield Finding(
        "notebook-cpu-runtime", Severity.WARNING, Section.GPU,
        f"This {name} notebook runs on a CPU runtime: choose a GPU accelerator for the session (the usual cause of 'no GPU' there)",
        tuple(evidence), Fix(how, (), url),
    )


def tf_xla_devices(facts: Facts, matrix: object) -> Iterator[Finding]:
    listed = symptoms(facts, "tf-xla-devices")
    if not listed:
        return
    evidence = [f"log: {listed[0].text}",
                "XLA_CPU / XLA_GPU are XLA's compilation devices that TensorFlow 1.x (and Colab's TF 1.x runtimes) list beside the "
                "real CPU and GPU devices: they are not extra or missing hardware"]
    if symptoms(facts, "tf-xla-gpu-only"):
        evidence.append("an XLA_GPU without a GPU device: TensorFlow found the GPU but could not load CUDA/cuDNN for its regular "
                        "GPU device (look for 'Could not dlopen library' lines), so only XLA could see it")
    yield Finding("tf-xla-devices", Severity.INFO, Section.TENSORFLOW,
                  f"The device list shows XLA devices ({listed[0].subject or 'XLA_CPU/XLA_GPU'}): not GPUs by themselves", tuple(evidence))


CHECKS = (directml_detected, intel_xpu_detected, mxnet_retired, notebook_cpu_runtime, tf_xla_devices)
