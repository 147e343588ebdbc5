"""torch-cpu-only-build from a pasted conda command: `conda install pytorch==1.9.0 cudatoolkit=11.3 -c pytorch` asks
for a pair PyTorch never built (its CUDA builds of 1.9 are for 10.2 and 11.1, torch.toml), and conda's solver
satisfies both pins with the CPU build of that torch beside a cudatoolkit nobody uses (pytorch/pytorch#69202). A
warning: the command is what the person ran, not what is installed. Pure: reads Facts and Matrix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import symptoms, torch_build_kind

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix

PREVIOUS_VERSIONS = "https://pytorch.org/get-started/previous-versions/"


def conda_pair_never_built(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    torch = facts.frameworks.torch if facts.frameworks else None
    if matrix is None or (torch is not None and torch_build_kind(torch) == "cuda"):
        return  # a CUDA build is what is installed after all
    for said in symptoms(facts, "conda-torch-cuda-request"):
        version, _, cuda = (said.subject or "").partition("|")
        release = matrix.torch_release(version) if cuda else None
        if release is None or not release.variants:
            continue
        built = sorted({v.cuda for v in release.variants if v.cuda}, key=lambda c: tuple(int(p) for p in c.split(".")))
        if not built or cuda in built:
            continue
        yield Finding(
            "torch-cpu-only-build", Severity.WARNING, Section.TORCH,
            f"PyTorch built torch {version} for CUDA {', '.join(built)}, not {cuda}: conda installs its CPU build beside cudatoolkit {cuda}",
            (f"log: {said.text}",
             f"torch {release.series} CUDA builds: {', '.join(built)} (matrices/torch.toml)",
             "the solver meets both pins with the CPU-only pytorch package, which needs no cudatoolkit"),
            Fix(f"Ask for a cudatoolkit torch {version} was built for (or a torch built for CUDA {cuda})",
                (f"conda install pytorch=={version} cudatoolkit={built[-1]} -c pytorch -c conda-forge",
                 "python -c \"import torch; print(torch.version.cuda)\"   # None means the CPU build"),
                PREVIOUS_VERSIONS),
        )
        return


CHECKS = (conda_pair_never_built,)
