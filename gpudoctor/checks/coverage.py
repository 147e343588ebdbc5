"""Section status as data. ``section_status`` merges a section's findings and what the facts allow to judge into one
Status (Flutter's doctor does the same): a section with no finding is OK only when its checks had facts to work on;
otherwise it is not applicable (nothing there to judge) or not judged (the facts are missing, and it says which)."""

from __future__ import annotations

from ..model import Facts, Finding, Section, SectionResult, Severity, Status
from ._facts import gpu_presence, torch_build_kind

_BY_SEVERITY = {Severity.OK: Status.OK, Severity.INFO: Status.NOTE, Severity.WARNING: Status.WARNING, Severity.ERROR: Status.ERROR}
PASTE_HINT = "paste `nvidia-smi` and `python -m torch.utils.collect_env`, or run gpudoctor check on that machine"
# For each section, the one command whose output settles it when it could not be judged (a triage reply asks for it).
SETTLING_COMMANDS = {
    Section.GPU: "nvidia-smi",
    Section.CUDA: "nvcc --version",
    Section.CUDNN: "pip list | grep nvidia",
    Section.TORCH: "python -m torch.utils.collect_env",
    Section.TENSORFLOW: "python -c \"import tensorflow as tf; print(tf.__version__, tf.sysconfig.get_build_info())\"",
    Section.JAX: "pip list | grep jax",
    Section.ENVIRONMENT: "python -c \"import platform, sys; print(platform.platform(), sys.version)\"",
}


def section_status(section: Section, findings: tuple[Finding, ...], facts: Facts, crashed: bool = False) -> SectionResult:
    """Pure: the worst finding decides; without findings, what the facts allow to say."""
    own = [f for f in findings if f.section == section]
    if crashed:
        return SectionResult(section, Status.CRASHED, "a check of this section crashed: see below")
    if own:
        return SectionResult(section, _BY_SEVERITY[max(f.severity for f in own)])
    status, reason = _JUDGEABLE[section](facts)
    return SectionResult(section, status, reason)


def sections(findings: tuple[Finding, ...], facts: Facts, crashed: frozenset[Section] = frozenset()) -> tuple[SectionResult, ...]:
    return tuple(section_status(s, findings, facts, s in crashed) for s in Section)


def _pasted(facts: Facts) -> bool:
    return facts.provenance is not None


def _gpu(facts: Facts) -> tuple[Status, str | None]:
    presence = gpu_presence(facts)
    if presence is None:
        return Status.NOT_JUDGED, f"the GPU and the NVIDIA driver are unknown: {PASTE_HINT}"
    if presence and not (facts.driver and (facts.driver.version or facts.driver.cuda_version)):
        return Status.NOT_JUDGED, "the NVIDIA driver version is unknown: paste `nvidia-smi`"
    return Status.OK, None


def _cuda(facts: Facts) -> tuple[Status, str | None]:
    if facts.cuda_toolkits is None:
        return Status.NOT_APPLICABLE, "unknown; a CUDA toolkit is needed only to compile CUDA code"
    return Status.OK, None


def _frameworks_needing_cudnn(facts: Facts) -> bool:
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    return bool(tf and tf.is_cuda_build is not False and (tf.version or tf.is_cuda_build))


def _cudnn(facts: Facts) -> tuple[Status, str | None]:
    packages = facts.python_packages or {}
    loader = facts.libraries.libcudnn if facts.libraries is not None else None
    present = bool(loader) or any(v for name, v in packages.items() if name.startswith("nvidia-cudnn") or name == "cudnn")
    if present:
        return Status.OK, None
    wheels_absent = any(name.startswith("nvidia-cudnn") for name in packages)  # looked for in a whole list: absent
    if _frameworks_needing_cudnn(facts) and gpu_presence(facts) is not False and wheels_absent and loader == ():
        # an error on a GPU machine; with the GPU unknown, a warning (as tf-missing-gpu-libs says it then)
        return (Status.ERROR if gpu_presence(facts) else Status.WARNING), \
            "no cuDNN: none on the loader path and no nvidia-cudnn wheel, and TensorFlow needs one"
    if loader == () or wheels_absent:
        if not _frameworks_needing_cudnn(facts) or gpu_presence(facts) is False:
            return Status.OK, None  # probed: none, and nothing here needs one
        if wheels_absent:
            return Status.NOT_JUDGED, ("no nvidia-cudnn wheel in the whole package list; whether a system cuDNN is on the "
                                       "loader path is unknown: paste `ldconfig -p | grep cudnn`")
    if _frameworks_needing_cudnn(facts) and gpu_presence(facts) is not False:
        return Status.NOT_JUDGED, "TensorFlow needs a cuDNN and none is known: paste `pip list | grep nvidia` or the cuDNN version"
    return Status.NOT_APPLICABLE, "PyTorch wheels bring their own cuDNN" if facts.frameworks and facts.frameworks.torch else "no framework that needs it is known"


def _absent(facts: Facts, distribution: str) -> tuple[Status, str | None]:
    """A framework the facts do not describe: "not installed" only where a package list says so."""
    packages = facts.python_packages
    if packages is not None and not packages.get(distribution) and not _pasted(facts):
        return Status.NOT_APPLICABLE, "not installed"
    return Status.NOT_APPLICABLE, "not in the evidence"


def _torch(facts: Facts) -> tuple[Status, str | None]:
    torch = facts.frameworks.torch if facts.frameworks else None
    if torch is None:
        return _absent(facts, "torch")
    if torch_build_kind(torch) is None:
        return Status.NOT_JUDGED, "whether torch is a CUDA build is unknown: paste `python -c \"import torch; print(torch.__version__, torch.version.cuda)\"`"
    return Status.OK, None


def _tensorflow(facts: Facts) -> tuple[Status, str | None]:
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    if tf is None:
        return _absent(facts, "tensorflow")
    if tf.is_cuda_build is None and gpu_presence(facts) is not False:
        return Status.NOT_JUDGED, "whether TensorFlow is a CUDA build is unknown: paste `python -c \"import tensorflow as tf; print(tf.sysconfig.get_build_info())\"`"
    return Status.OK, None


def _jax(facts: Facts) -> tuple[Status, str | None]:
    jax = facts.frameworks.jax if facts.frameworks else None
    if jax is None:
        return _absent(facts, "jax")
    if jax.build is None and gpu_presence(facts) is not False:
        return Status.NOT_JUDGED, "whether a JAX CUDA plugin is installed is unknown: paste `pip list | grep jax`"
    return Status.OK, None


def _environment(facts: Facts) -> tuple[Status, str | None]:
    if facts.host is None:
        return Status.NOT_JUDGED if not _pasted(facts) else Status.NOT_APPLICABLE, "OS, Python, WSL and container are unknown"
    return Status.OK, None


_JUDGEABLE = {
    Section.GPU: _gpu,
    Section.CUDA: _cuda,
    Section.CUDNN: _cudnn,
    Section.TORCH: _torch,
    Section.TENSORFLOW: _tensorflow,
    Section.JAX: _jax,
    Section.ENVIRONMENT: _environment,
}
