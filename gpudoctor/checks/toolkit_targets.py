"""cuda-toolkit-too-old-for-gpu: nvcc says "Unsupported gpu architecture 'compute_89'" when the CUDA toolkit that
compiles (an extension, a JIT build, a model compiler) predates that architecture. The toolkit that can is read from
matrices/cuda.toml's [[targets]] (the compute capabilities each release compiles for). Pure: reads Facts and Matrix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import symptoms

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix


def _cc(digits: str) -> tuple[int, int] | None:
    """'86' -> (8, 6), '120' -> (12, 0): nvcc's compute_XY names major and minor without a dot."""
    return (int(digits[:-1]), int(digits[-1])) if digits.isdigit() and len(digits) in (2, 3) else None


def cuda_toolkit_too_old_for_gpu(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    found = [(s, _cc(s.subject or "")) for s in symptoms(facts, "nvcc-unsupported-arch")]
    found = [(s, cc) for s, cc in found if cc]
    if not found:
        return
    symptom, cc = max(found, key=lambda pair: pair[1])
    label = f"{cc[0]}.{cc[1]}"
    first = None
    if matrix is not None:
        from ..matrix.tables.arch import cc_tuple

        first = next((t.since for t in matrix.cuda_targets if cc_tuple(t.min_cc) <= cc <= cc_tuple(t.max_cc)), None)
    toolkits = [t.version for t in facts.cuda_toolkits or () if t.version]
    evidence = (f"log: {symptom.text}",
                *((f"CUDA toolkit here: {', '.join(toolkits)}",) if toolkits else ()),
                f"nvcc compiles only for the architectures its release knows; compute capability {label}"
                + (f" needs CUDA {first} or newer" if first else " is newer than every toolkit the matrix knows"))
    yield Finding(
        "cuda-toolkit-too-old-for-gpu", Severity.ERROR, Section.CUDA,
        f"The CUDA toolkit that compiles the code is too old for compute capability {label}: nvcc cannot target it",
        evidence,
        Fix(f"Install CUDA {first} or newer and build with its nvcc (put its bin first on PATH, set CUDA_HOME)" if first
            else "Install a newer CUDA toolkit and build with its nvcc",
            ("nvcc --version   # the toolkit that compiles", f"export CUDA_HOME=/usr/local/cuda-{first or 'X.Y'} PATH=/usr/local/cuda-{first or 'X.Y'}/bin:$PATH"),
            "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"),
    )


CHECKS = (cuda_toolkit_too_old_for_gpu,)
