"""gpu-arch-not-in-build: does each framework build carry code for each GPU's compute capability?

A GPU runs a build that has SASS for its own major with an equal or lower minor (8.9 runs sm_86), or PTX for an
equal or lower compute capability (JIT-compiled on first start: a warning, gpu-arch-ptx-only). The arch list comes
from the snapshot when known (--deep), else from the matrix for that build (never from an unconfirmed list)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Severity
from . import _builds as b

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix


def gpu_arch_not_in_build(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    from ..matrix.tables.model import arch_support, try_vtuple
    from ..matrix.solver.driver import driver_os, driver_verdict

    if matrix is None or not facts.gpus:
        return
    for build in b.builds(facts, matrix) + _arch_list_only(facts, matrix):
        if not build.cuda:
            continue
        if not build.arch or not build.arch_confirmed:
            yield from _by_toolkit_range(facts, matrix, build)
            continue
        key = "frameworks.torch.arch_list" if build.framework == "torch" else "frameworks.tensorflow.compute_capabilities"
        pasted_from = (facts.provenance or {}).get(key)
        source = (f"as pasted: {pasted_from}" if pasted_from else "read from the installed build") if build.arch_source == "snapshot" \
            else f"per the matrix for {build.label}"
        arch = " ".join(build.arch)
        for gpu in facts.gpus:
            cc = b.gpu_cc(gpu, matrix)
            if cc is None or try_vtuple(cc) is None:
                continue
            how = arch_support(build.arch, cc)
            if how == "sass":
                continue
            cc_line = f"{b.gpu_name(gpu)} has compute capability {cc}" + ("" if gpu.compute_capability else " (from its name)")
            if how is None:
                yield Finding(
                    "gpu-arch-not-in-build", Severity.ERROR, build.section,
                    f"{build.label} has no code for {b.gpu_name(gpu)} (compute capability {cc})",
                    (
                        cc_line,
                        f"{build.label} is compiled for {arch} ({source})",
                        "a GPU runs SASS of its own major with an equal or lower minor, or PTX of an equal or lower compute capability",
                    ),
                    b.install_fix(facts, matrix, build.framework, f"Install a {build.name} build compiled for compute capability {cc}"),
                )
            else:
                driver = facts.driver
                if driver and (driver.version or driver.cuda_version) and b.vt(build.cuda):
                    dv = driver_verdict(matrix, build.cuda, driver.version, driver.cuda_version, driver_os(b.host_os(facts), b.is_wsl(facts)))
                    if b.older_cuda(dv.driver_cuda, build.cuda):
                        continue  # the driver cannot JIT this PTX at all: driver-too-old-for-cuda-build reports it
                yield Finding(
                    "gpu-arch-ptx-only", Severity.WARNING, build.section,
                    f"{build.label} runs on {b.gpu_name(gpu)} only through PTX JIT: the first start compiles kernels (slow)",
                    (
                        cc_line,
                        f"{build.label} is compiled for {arch} ({source}): no SASS for {cc}, PTX for a lower compute capability",
                    ),
                    _ptx_fix(facts, matrix, build, cc),
                )


def _arch_list_only(facts: Facts, matrix: "Matrix") -> list[b.Build]:
    """A build whose version is unknown but whose compiled arch list is known (torch's "supports CUDA capabilities
    sm_50 ...", a printed torch.cuda.get_arch_list(), TensorFlow's compute capabilities): the list alone decides
    whether it has code for the GPU, and proves a CUDA build (issue 20, class 1)."""
    known = {build.framework for build in b.builds(facts, matrix)}
    frameworks = facts.frameworks
    out = []
    torch = frameworks.torch if frameworks else None
    if "torch" not in known and torch and torch.arch_list and any(a.startswith(("sm_", "compute_")) for a in torch.arch_list):
        out.append(b.Build("torch", torch.version or "(version unknown)", torch.cuda or "(CUDA version unknown)", None,
                           tuple(torch.arch_list), "snapshot", True, False))
    tf = frameworks.tensorflow if frameworks else None
    if "tensorflow" not in known and tf and tf.compute_capabilities:
        out.append(b.Build("tensorflow", tf.version or "(version unknown)", tf.cuda or "(CUDA version unknown)", None,
                           tuple(tf.compute_capabilities), "snapshot", True, False))
    return out


def _ptx_fix(facts: Facts, matrix: "Matrix", build: b.Build, cc: str):
    from ..model import Fix

    choice, _why = b.solve_for(facts, matrix, build.framework)
    if choice is None or any("through PTX JIT" in note for note in choice.notes):
        return Fix(
            f"No {build.name} build that fits this machine has native code for {cc}: expect a slow first start; the compiled kernels are cached for later runs",
            (),
            b.TORCH_URL if build.framework == "torch" else b.TF_PIP_URL,
        )
    return b.install_fix(facts, matrix, build.framework, f"For native code on {cc} (no JIT on first start)")


def _by_toolkit_range(facts: Facts, matrix: "Matrix", build: b.Build) -> Iterator[Finding]:
    """Arch list unknown: the build's CUDA toolkit still bounds what it can contain. Below the toolkit's lowest
    compute capability nothing can run (SASS cannot be built, PTX never runs on an older GPU): an error. Above its
    highest only PTX could run it, and whether the build has PTX is not known: a warning."""
    from ..matrix.tables.model import cc_tuple, try_vtuple

    targets = matrix.cuda_targets_for(build.cuda) if b.vt(build.cuda) else None
    if targets is None:
        return
    for gpu in facts.gpus:
        cc = b.gpu_cc(gpu, matrix)
        if cc is None or try_vtuple(cc) is None:
            continue
        below = cc_tuple(cc) < cc_tuple(targets.min_cc)
        above = cc_tuple(cc) > cc_tuple(targets.max_cc)
        if not (below or above):
            continue
        evidence = (
            f"{b.gpu_name(gpu)} has compute capability {cc}",
            f"{build.label} is built with CUDA {build.cuda}, which compiles for compute capability {targets.min_cc} to {targets.max_cc}",
        )
        if below:
            yield Finding(
                "gpu-arch-not-in-build", Severity.ERROR, build.section,
                f"{build.label} cannot have code for {b.gpu_name(gpu)} (compute capability {cc})",
                evidence + ("PTX only runs on a GPU of its own or a higher compute capability",),
                b.install_fix(facts, matrix, build.framework, f"Install a {build.name} build compiled for compute capability {cc}"),
            )
        else:
            yield Finding(
                "gpu-arch-not-in-build", Severity.WARNING, build.section,
                f"{build.label} has no native code for {b.gpu_name(gpu)} (compute capability {cc}) and probably no PTX for it",
                evidence + ("only PTX could run it; the matrix does not know whether this build carries PTX",),
                b.install_fix(facts, matrix, build.framework, f"Install a {build.name} build compiled for compute capability {cc}"),
            )


CHECKS = (gpu_arch_not_in_build,)
