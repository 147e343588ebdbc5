"""``nvcc --version``: the CUDA toolkit that compiles extensions and from-source builds."""

from __future__ import annotations

import re
from typing import Iterator

from ..document import Document
from ..observation import Observation
from ._common import major_minor

NAME = "nvcc --version"

_RELEASE = re.compile(r"Cuda compilation tools, release (\d+\.\d+), V(\d+(?:\.\d+)*)")


def read(document: Document) -> Iterator[Observation]:
    for number, m in document.find(_RELEASE, ("Cuda compilation tools",)):
        yield Observation("cuda_toolkits[0].version", major_minor(m.group(1)), number, NAME)
        yield Observation("cuda_toolkits[0].on_path", True, number, NAME, "nvcc --version ran, so nvcc is on PATH")
        return  # the first toolkit shown is the one the user runs
