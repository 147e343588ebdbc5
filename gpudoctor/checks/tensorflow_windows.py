"""tf-windows-native-gpu-unsupported: TensorFlow newer than 2.10 on native Windows has no GPU support at all (the
last native-Windows GPU release is in the matrix). Pure: reads Facts and Matrix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from . import _builds as b

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix


# -- tf-windows-native-gpu-unsupported ----------------------------------------------------------------------------


def tf_windows_native_gpu_unsupported(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    from ._facts import gpu_presence

    presence = gpu_presence(facts)
    if matrix is None or b.host_os(facts) != "windows" or b.is_wsl(facts) or presence is False:
        return
    build = next((x for x in b.builds(facts, matrix) if x.framework == "tensorflow"), None)
    if build is None:
        return
    last = matrix.tf_release(matrix.tf_windows_gpu_last)
    v = b.vt(build.version)
    if last is None or v[:2] <= b.vt(last.series)[:2]:
        return
    from dataclasses import replace

    from ..matrix.solver.solve import NoFit, install_commands, solve, target_from_facts

    target = target_from_facts(facts, matrix)
    pythons = last.windows_python or last.python
    py = b.python_minor(facts)
    py_text = f"Python {pythons[0]}–{pythons[-1]}" + (f" (this is Python {py})" if py else "")
    commands: tuple[str, ...] = ()
    wsl_text = "use WSL2"
    try:
        wsl_choice = solve(matrix, replace(target, os="linux", wsl=True), "tensorflow")
        commands = ("wsl --install",) + tuple(f"{c}   # inside WSL2" for c in install_commands(wsl_choice))
        wsl_text = f"use WSL2 ({matrix.tf_wsl_min_windows} or later) and install {wsl_choice.label} there"
    except NoFit:
        pass
    route = f"native-Windows GPU needs tensorflow {last.latest} with {py_text}, CUDA {last.windows_cuda} and cuDNN {last.windows_cudnn} from conda ({' '.join(matrix.tf_windows_gpu_conda)})"
    yield Finding(
        "tf-windows-native-gpu-unsupported", Severity.ERROR if presence else Severity.WARNING, Section.TENSORFLOW,
        f"{build.label} has no GPU support on native Windows: it runs on the CPU only",
        (
            f"native Windows{' ' + facts.host.os_release if facts.host and facts.host.os_release else ''}"
            + (f" with {len(facts.gpus)} NVIDIA GPU(s)" if facts.gpus else " (whether it has an NVIDIA GPU is not known)"),
            f"GPU support on native Windows ended with TensorFlow {last.series}; {build.label} is newer",
        ),
        Fix(f"To train on the GPU, {wsl_text}; or the last native route: {route}", commands, "https://www.tensorflow.org/install/pip#windows-wsl2"),
    )


CHECKS = (tf_windows_native_gpu_unsupported,)
