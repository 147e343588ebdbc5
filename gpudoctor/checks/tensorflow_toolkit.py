"""tf-missing-gpu-libs from the CUDA toolkit a person has, where the loader's libraries are not known: before CUDA 11
every CUDA minor has its own runtime soname (libcudart.so.10.1, cudart64_101.dll), so a TensorFlow built for CUDA 10.1
cannot load the runtime of a 10.2 toolkit. With only other minors' toolkits known (printed or stated), the build's
runtime is most likely missing: a warning, since another toolkit may be installed that nobody mentioned.
Pure: reads Facts and Matrix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from . import _builds as b
from .tensorflow_libs import cudart_need

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix


def tf_toolkit_of_another_minor(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    from ._facts import gpu_presence

    cudart_known = facts.libraries is not None and facts.libraries.libcudart is not None
    if matrix is None or gpu_presence(facts) is False or cudart_known or not facts.cuda_toolkits:
        return  # where the loader's CUDA runtimes are known, tensorflow_libs judges them instead (a cuDNN alone is not that)
    build = next((x for x in b.builds(facts, matrix) if x.framework == "tensorflow"), None)
    if build is None or not build.cuda or build.cuda_major is None:
        return
    need = cudart_need(build.cuda)  # (10, 1) before CUDA 11; (11,) from then on, where any minor serves
    have = [t.version for t in facts.cuda_toolkits if t.version and len(b.vt(t.version)) >= 2]
    if len(need) < 2 or not have or any(b.vt(v)[:2] == need for v in have):
        return
    cuda = ".".join(map(str, need))
    soname = f"cudart64_{need[0]}{need[1]}.dll" if b.host_os(facts) == "windows" else f"libcudart.so.{cuda}"
    yield Finding(
        "tf-missing-gpu-libs", Severity.WARNING, Section.TENSORFLOW,
        f"{build.label} needs the CUDA {cuda} runtime ({soname}), but the CUDA toolkit here is {', '.join(have)}",
        (f"{build.label} is a CUDA {build.cuda} build", f"CUDA toolkit: {', '.join(have)}",
         "before CUDA 11 each CUDA minor has its own runtime library, so another minor's toolkit does not provide it"),
        Fix(f"Install the CUDA {cuda} toolkit (beside the other) and cuDNN for CUDA {cuda}, and put its libraries on the "
            "loader path; or install the TensorFlow release built for the CUDA you have",
            (f"export LD_LIBRARY_PATH=/usr/local/cuda-{cuda}/lib64:$LD_LIBRARY_PATH   # Windows: add CUDA\\v{cuda}\\bin to PATH",),
            "https://www.tensorflow.org/install/source#gpu"),
    )


CHECKS = (tf_toolkit_of_another_minor,)
