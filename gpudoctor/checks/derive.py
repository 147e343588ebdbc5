"""Facts derived from other facts, computed once before any check runs (DESIGN rule 10), each with its provenance
("derived: ...") so that the report and a saved snapshot say why it is known. A check then judges whenever the facts
it needs are known or derived, and never derives on its own.

Derived here:
- a CUDA build of torch: torch's own "Found no NVIDIA driver on your system" / "The NVIDIA driver on your system is too
  old" are printed only by its CUDA build (a CPU build says "Torch not compiled with CUDA enabled").
- Rosetta: an x86_64 Python (`file $(which python)`, uname's shell) or zsh's "illegal hardware instruction" (an x86
  build's AVX, which Rosetta cannot run) on a Mac whose chip is Apple silicon (M1-M5).
- a CUDA build of TensorFlow: the package index's `tensorflow` wheel (2.1 and newer, no local version tag) for Linux
  x86_64, and for Windows up to the last native-Windows GPU release (tensorflow.toml), is the CUDA build; `tensorflow-cpu`, later Windows wheels and the macOS wheels are
  not. The package is the index's where pip lists it, or where the text says it was installed with pip.
- a CPU build of torch: the package index's torch wheel (2.0 and newer, no local version tag) for native Windows is the
  CPU build (torch.toml's default_windows); PyTorch's own index tags its CUDA wheels (+cu121). Only where a package
  list names that version (pip list, pip's "Successfully installed"), not where a sentence does.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from ..model import Facts, Frameworks, Host, TensorflowBuild, TorchBuild
from ..model.inferred import torch_build_kind

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix

_CPU_DISTRIBUTIONS = ("tensorflow-cpu", "tensorflow-intel", "tensorflow-macos", "tensorflow-aarch64")
# A version's components as ASCII digits, at most 18 each (digits.MAX_DIGITS): a snapshot or paste may hold any string,
# and int() of 4,300 or more digits raises (found by tests/render/test_hostile_snapshots.py)
_VERSION_PARTS = r"([0-9]{1,18})\.([0-9]{1,18})(?:\.[0-9]{1,18})*"
_MAJOR_MINOR = r"([0-9]{1,18})\.([0-9]{1,18})"


def derive(facts: Facts, matrix: "Matrix | None") -> Facts:
    return _rosetta(_torch_windows_index_wheel(_torch_cuda_build_from_its_words(_tensorflow_cuda_build(facts, matrix)), matrix))


def _torch_windows_index_wheel(facts: Facts, matrix: "Matrix | None") -> Facts:
    torch = facts.frameworks.torch if facts.frameworks else None
    host = facts.host
    if torch is None or torch.version is None or host is None or host.os != "windows" or host.wsl or matrix is None:
        return facts
    if torch_build_kind(torch) is not None or torch.cuda or (facts.python_packages or {}).get("torch") != torch.version:
        return facts  # the build is known, or the version is not a package list's
    m = re.fullmatch(_VERSION_PARTS, torch.version)
    if not m or int(m.group(1)) < 2 or matrix.torch_default_windows != "cpu":
        return facts  # a local tag says the build; 1.x's untagged Windows wheels on PyTorch's index were CUDA builds
    frameworks = dataclasses.replace(facts.frameworks, torch=dataclasses.replace(torch, build="cpu"))
    provenance = dict(facts.provenance) if facts.provenance is not None else None
    if provenance is not None:
        provenance["frameworks.torch.build"] = (f"derived: the package index's torch {torch.version} wheel for Windows is the "
                                                "CPU build (CUDA builds come from PyTorch's index, tagged +cuXXX)")
    return dataclasses.replace(facts, frameworks=frameworks, provenance=provenance)


# Symptom kinds that only torch's CUDA build prints (matrices/signatures.toml: torch-no-driver, torch-driver-too-old)
_CUDA_BUILD_WORDS = ("no-driver-found", "driver-too-old")


def _torch_cuda_build_from_its_words(facts: Facts) -> Facts:
    torch = facts.frameworks.torch if facts.frameworks else None
    said = next((s for s in facts.symptoms or () if s.kind in _CUDA_BUILD_WORDS and s.framework == "torch"), None)
    if said is None or (torch is not None and torch_build_kind(torch) is not None):
        return facts
    built = dataclasses.replace(torch or TorchBuild(), build="cuda")
    frameworks = dataclasses.replace(facts.frameworks or Frameworks(), torch=built)
    provenance = dict(facts.provenance) if facts.provenance is not None else None
    if provenance is not None:
        provenance["frameworks.torch.build"] = f"derived: only torch's CUDA build prints {said.text[:80]!r}"
    return dataclasses.replace(facts, frameworks=frameworks, provenance=provenance)


def _tensorflow_cuda_build(facts: Facts, matrix: "Matrix | None") -> Facts:
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    packages = facts.python_packages or {}
    version = (tf.version if tf else None) or packages.get("tensorflow")
    host = facts.host
    if (tf and tf.is_cuda_build is not None) or not version or host is None or host.os not in ("linux", "windows") or host.wsl == 1:
        return facts
    if host.arch not in (None, "x86_64", "amd64") or any(packages.get(name) for name in _CPU_DISTRIBUTIONS):
        return facts
    m = re.fullmatch(_VERSION_PARTS, version)
    if not m or (int(m.group(1)), int(m.group(2))) < (2, 1):
        return facts  # a local tag (+nv, +cpu) or a 1.x, whose GPU build was tensorflow-gpu
    if host.os == "windows" and (matrix is None or (int(m.group(1)), int(m.group(2))) > _series(matrix.tf_windows_gpu_last)):
        return facts  # past the last native-Windows GPU release (tensorflow.toml), or that release unknown
    listed = packages.get("tensorflow") == version or (tf is not None and tf.version == version and "tensorflow" in packages)
    said = next((s for s in facts.symptoms or () if s.kind == "tensorflow-from-pip"), None)
    if not listed and said is None:
        return facts  # the version came from elsewhere (a sentence, build info): which distribution is not known
    if not listed and host.os == "linux" and packages:
        return facts  # a pip list without tensorflow in it: the package the person named is not what is installed
    built = dataclasses.replace(tf or TensorflowBuild(version=version), is_cuda_build=True)
    frameworks = dataclasses.replace(facts.frameworks or Frameworks(), tensorflow=built)
    provenance = dict(facts.provenance) if facts.provenance is not None else None
    if provenance is not None:
        provenance["frameworks.tensorflow.is_cuda_build"] = (
            f"derived: the package index's tensorflow {version} wheel for {host.os.capitalize()} x86_64 is the CUDA build"
            + ("" if listed else f" (installed with pip: {said.text.strip()[:60]!r})"))
    return dataclasses.replace(facts, frameworks=frameworks, provenance=provenance)


def _series(version: str) -> tuple[int, int]:
    m = re.match(_MAJOR_MINOR, version)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def _rosetta(facts: Facts) -> Facts:
    apple = facts.host.apple if facts.host else None
    host = facts.host
    # Apple silicon: the chip in words, or a native shell's `uname -m` on the Mac (arm64)
    silicon = re.match(r"Apple M\d", apple.chip or "") if apple else None
    silicon = silicon or (host is not None and host.os == "darwin" and host.arch == "arm64")
    if apple is None or apple.rosetta is not None or not silicon:
        return facts
    chip = apple.chip or "Apple-silicon Mac (uname -m: arm64)"
    illegal = next((s for s in facts.symptoms or () if s.kind == "illegal-instruction"), None)
    if apple.python_arch in ("x86_64", "i386"):
        why = f"derived: an {apple.python_arch} Python on an {chip} runs under Rosetta"
    elif illegal is not None and apple.python_arch is None:
        why = f"derived: {illegal.text.strip()[:60]!r} on an {chip}: an x86 build's AVX, which Rosetta cannot run"
    else:
        return facts
    from ..model import Apple  # a Mac's facts: created only where a machine or paste has them

    host = dataclasses.replace(facts.host or Host(), apple=dataclasses.replace(apple or Apple(), rosetta=True))
    provenance = dict(facts.provenance) if facts.provenance is not None else None
    if provenance is not None:
        provenance["host.apple.rosetta"] = why
    return dataclasses.replace(facts, host=host, provenance=provenance)
