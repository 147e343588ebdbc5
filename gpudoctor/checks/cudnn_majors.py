"""Library majors by file name. A program asks for cuDNN of one major by its file name (libcudnn_ops_infer.so.8, cudnn_ops_infer64_8.dll) where
the evidence shows cuDNN of another major installed: the needed major is missing, not merely off the loader path
(faster-whisper's CTranslate2 < 4.5 needs cuDNN 8; torch >= 2.4 and CTranslate2 >= 4.5 bring or need cuDNN 9)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import accelerator_notes, symptoms

if TYPE_CHECKING:
    from ..model import Symptom  # created only where a paste gave symptoms

# libcudnn_ops_infer.so.8, libcudnn.so.9.1.0 -> "8", "9"; cudnn_ops_infer64_8.dll, cudnn64_9.dll -> "8", "9"
_SONAME_MAJOR = re.compile(r"\.so\.(\d+)|64_(\d+)\.dll", re.I)


def _major(name: str | None) -> str | None:
    m = _SONAME_MAJOR.search(name or "")
    return (m.group(1) or m.group(2)) if m else None


_SONAME_CUDA = r"(?:lib)?(?:cudart|cublas|cufft|curand|cusolver|cusparse)(?:\.so\.(\d+)(?:\.(\d+))?|64_(\d+))"


def soname_cuda(subject: str) -> str | None:
    """The CUDA a library name asks for: libcudart.so.11.0 -> 11.0, libcublas.so.11 -> 11 (the major only),
    cudart64_110.dll -> 11.0, cudart64_90.dll -> 9.0, cublas64_12.dll -> 12 (Windows: CUDA 11+ by the major alone)."""
    m = re.search(_SONAME_CUDA, subject)
    if not m or m.group(1):
        return (f"{m.group(1)}.{m.group(2)}" if m.group(2) else m.group(1)) if m else None
    digits = m.group(3)
    return digits if len(digits) == 2 and digits.startswith("1") else f"{digits[:-1]}.{digits[-1]}" if len(digits) >= 2 else digits


def _installed_majors(facts: Facts) -> dict[str, str]:
    """cuDNN majors the evidence shows installed, each with where it was seen."""
    found: dict[str, str] = {}
    for lib in (facts.libraries.libcudnn or ()) if facts.libraries else ():
        major = (lib.version or "").split(".")[0]
        if major.isdigit():
            found.setdefault(major, f"cuDNN {lib.version}" + (f" ({lib.path})" if lib.path else ""))
    for name, version in (facts.python_packages or {}).items():
        if re.fullmatch(r"nvidia-cudnn-cu\d+", name) and version and version.split(".")[0].isdigit():
            found.setdefault(version.split(".")[0], f"{name} {version}")
    return found


def cudnn_major_missing(facts: Facts, matrix: object) -> Iterator[Finding]:
    asked = [(s, _major(s.subject)) for s in symptoms(facts, "cudnn-not-found")]
    wanted = {major for _, major in asked if major}
    installed = _installed_majors(facts)
    if not wanted or not installed or wanted & installed.keys():
        return
    need, have = sorted(wanted)[0], sorted(installed)[0]
    line = next(s for s, major in asked if major == need)
    yield Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
        f"The program needs cuDNN {need}, and only cuDNN {have} is installed",
        (f"log: {line.text}", *installed.values(),
         "a program built for one cuDNN major loads only that major's libraries: another major does not stand in"),
        Fix(f"Install cuDNN {need} beside cuDNN {have} (and put it on the loader path), or a build of the program for cuDNN {have}",
            (f"pip install 'nvidia-cudnn-cu12=={need}.*'   # then add its lib directory to LD_LIBRARY_PATH (PATH on Windows)",
             "# faster-whisper / CTranslate2: ctranslate2>=4.5 needs cuDNN 9; ctranslate2==4.4.0 runs on cuDNN 8 with CUDA 12"),
            "https://github.com/SYSTRAN/faster-whisper#gpu"),
    )


def onnxruntime_cudnn_major(facts: Facts, matrix: object) -> Iterator[Finding]:
    """onnxruntime-gpu of a release built with one cuDNN major beside only the other major (matrices/accelerators.toml
    [onnxruntime]): its CUDA provider cannot load, whatever the loader path."""
    version = (facts.python_packages or {}).get("onnxruntime-gpu")
    installed = _installed_majors(facts)
    notes = accelerator_notes(matrix, "onnxruntime")
    if not version or not installed or not notes:
        return
    from packaging.version import InvalidVersion, Version

    try:
        release = Version(version).release[:3]
        nine, eight = Version(notes["cudnn9_from"]).release, Version(notes["cudnn8_until"]).release
    except (InvalidVersion, KeyError):
        return
    need = "9" if release >= nine else "8" if release <= eight else None
    if need is None or need in installed or (need == "9" and _cuda11_in_sight(facts)):
        return  # from 1.19 the CUDA 11 builds (a feed of their own, same version numbers) still use cuDNN 8
    have = sorted(installed)[0]
    yield Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
        f"onnxruntime-gpu {version} is built with cuDNN {need}, and only cuDNN {have} is installed",
        (f"onnxruntime-gpu {version}", *installed.values(),
         "ONNX Runtime built with cuDNN 8.x is not compatible with cuDNN 9.x, and vice versa (its requirements page)"),
        Fix(f"Install the onnxruntime-gpu release built for cuDNN {have}" + (" (1.18.0 or older)" if have == "8" else " (1.19 or newer)")
            + f", or cuDNN {need} in an environment of its own",
            (f"pip install 'onnxruntime-gpu{'<=1.18.0' if have == '8' else '>=1.19'}'",), notes.get("url")),
    )


def _cuda11_in_sight(facts: Facts) -> bool:
    toolkits = any((t.version or "").startswith("11.") for t in facts.cuda_toolkits or ())
    return toolkits or any(re.fullmatch(r"nvidia-[a-z-]+-cu11", name) for name in facts.python_packages or {})


def not_on_loader_path(found: list[Symptom], severity: Severity | None, evidence: tuple[str, ...]) -> Iterator[Finding]:
    """CUDA or cuDNN libraries a program that is no known framework cannot load (`libcudnn.so.9: cannot open shared
    object file` from onnxruntime's provider, mxnet, cupy): the library named is missing or off the loader path.
    ``severity`` None: no GPU on this machine, where such lines are harmless."""
    if severity is None:
        return
    cudnn = [s for s in found if re.match(r"(?:lib)?cudnn", s.subject or "", re.I)]
    other = [s for s in found if s not in cudnn]
    for group, fid, what, wheel in ((cudnn, "cudnn-not-on-loader-path", "cuDNN", "nvidia-cudnn-cu12"),
                                    (other, "cuda-library-not-on-loader-path", "CUDA", "nvidia-cublas-cu12 nvidia-cuda-runtime-cu12")):
        if not group:
            continue
        names = ", ".join(dict.fromkeys(s.subject for s in group if s.subject))
        yield Finding(
            fid, severity, Section.CUDNN if group is cudnn else Section.CUDA,
            f"A program cannot load the {what} library it was built for ({names}): it is not installed or not on the loader path",
            evidence + ("the number in the file name is the major the program needs: another major does not stand in",),
            Fix(f"Install that {what} major and put its directory on the loader path (LD_LIBRARY_PATH; PATH on Windows)",
                (f"pip install {wheel}   # the major the file name says (cu11 for .so.11 / .so.8 cuDNN)",
                 "ldconfig -p | grep -E 'libcudnn|libcublas|libcudart'   # what the loader finds"),
                "https://docs.nvidia.com/deeplearning/cudnn/latest/installation/linux.html"),
        )


CHECKS = (onnxruntime_cudnn_major, cudnn_major_missing)
