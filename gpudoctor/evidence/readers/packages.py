"""Package lists: ``pip list``, ``pip freeze``, ``conda list``, and the ``[pip3] ...`` / ``[conda] ...`` lines of
collect_env. Only the distributions gpudoctor judges are kept (a pasted list has hundreds)."""

from __future__ import annotations

import functools
import re
from typing import Iterator

from ..document import Document
from ..observation import Observation

NAME = "package list"

_INTERESTING = frozenset({
    "torch", "torchvision", "torchaudio", "pytorch", "pytorch-nightly", "pytorch-cuda", "cpuonly", "cpu-only",
    "tensorflow", "tensorflow-gpu", "tensorflow-rocm",
    "tensorflow-cpu", "tensorflow-intel", "tensorflow-macos", "tensorflow-metal", "tf-nightly", "tf-nightly-gpu",
    "keras", "tf-keras", "numpy", "jax", "jaxlib", "cudatoolkit", "cudnn", "cuda-version", "cuda-toolkit",
    "cuda-runtime", "cuda-cudart", "tensorrt", "triton", "xformers", "cupy", "mxnet", "onnxruntime", "onnxruntime-gpu",
    "paddlepaddle", "paddlepaddle-gpu", "cntk", "cntk-gpu",
    "torch-directml", "tensorflow-directml-plugin", "intel-extension-for-pytorch",
    "jax-cuda12-plugin", "jax-cuda12-pjrt", "jax-cuda13-plugin", "jax-cuda13-pjrt",
})
_VERSION = r"v?(\d+(?:\.\d+)*(?:[a-z]+\d*)?(?:\.?(?:post|dev)\d+)?(?:\+[\w.]+)?)"
_FREEZE = re.compile(rf"^\s*(?:\[(?:pip\d?|pip3)\]\s+|\+\s)?([A-Za-z0-9][\w.-]*)\s*==\s*{_VERSION}\s*$")  # "+ x==1": uv
_COLUMNS = re.compile(rf"^\s*(?:\[(conda|pip\d?)\]\s+)?([A-Za-z0-9][\w.-]*)\s+{_VERSION}(?:\s+(\S+))?(?:\s+(\S+))?(?:\s+(\S+))?\s*$")
_CONDA_PLAN = re.compile(rf"^\s*(?:[a-z][\w.-]*\s+(?=\S+::))?(?:\S+::)?([a-z][\w.-]*?)-{_VERSION}(?:\s*\|\s*|-)([\w.]+)\b")
_CONDA_CUDA = re.compile(r"(?:^|_)cuda_?(\d+)\.?(\d)(?:\.\d+)?(?:_|$)")  # py3.9_cuda11.3_cudnn8.2.0_0, cuda118_py310h..., py3.7_cuda10.0.130_cudnn7.6.2_0
_CONDA_CUDNN = re.compile(r"cudnn(\d+\.\d+(?:\.\d+)?)")
# pip's last line: "Successfully installed absl-py-0.15.0 keras-2.7.0 tensorflow-2.6.1" (name-version, space separated),
# alone or after pip's previous line pasted onto the same one ("Installing collected packages: torch Successfully ...")
_PIP_INSTALLED = re.compile(r"^\s*`*\s*(?:Installing collected packages:[\w\s,.-]*?\s)?Successfully installed ((?:[A-Za-z0-9][\w.]*(?:-[A-Za-z][\w.]*)*-\d[\w.+!]*\s*)+)`*\s*$")
_INSTALLED_ITEM = re.compile(r"([A-Za-z0-9][\w.]*(?:-[A-Za-z][\w.]*)*)-(\d[\w.+!]*)")


_SEPARATORS = re.compile(r"[-_.]+")
_CUDA_NAME = re.compile(r"(?:nvidia-[a-z0-9-]+|mxnet)-cu\d+\w*$")  # nvidia-cudnn-cu12, mxnet-cu112


@functools.lru_cache(maxsize=4096)  # a long list names the same distributions again and again
def _canonical(name: str) -> str:
    return _SEPARATORS.sub("-", name).lower()


# A whole package list (not a grep of one): pip list's header, conda list's, or many pip-freeze lines. What such a list
# does not name is not installed: for these distributions, whose absence decides a finding, "absent" is recorded.
_PIP_LIST_HEADER = re.compile(r"^\s*Package\s+Version\s*(?:Location|Installer|Editable project location)?\s*$")
_CONDA_LIST_HEADER = re.compile(r"^#\s*packages in environment at ")
ABSENT_WHEN_NOT_LISTED = ("nvidia-cudnn-cu11", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "nvidia-cuda-runtime-cu11",
                          "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu13")


# What every line _COLUMNS (and _LISTED's second form) matches starts with, after the newline before it, found in the
# whole text at once (Document.lines_starting): \s within a line is [^\S\n], so a match is in one line.
_NAME_THEN_DIGIT = re.compile(r"\n[^\S\n]*(?:\[(?:conda|pip\d?)\][^\S\n]+)?[A-Za-z0-9][\w.-]*[^\S\n]+v?\d")
_LISTED = re.compile(r"^\s*(?:([A-Za-z0-9][\w.-]*)\s*==|([A-Za-z0-9][\w.-]*)\s+v?\d)")


def _whole_list(document: Document) -> int | None:
    """The line of a whole package list's header, or None when every list in the text may be partial."""
    for number in document.lines_with("Package", "packages in environment at "):  # the headers' words
        line = document.lines[number - 1]
        if _PIP_LIST_HEADER.match(line) or _CONDA_LIST_HEADER.match(line):
            return number
    return None


def _candidates(document: Document) -> list[int]:
    """The lines that may hold a package (issue 23: the others of a 1 MB paste are never looked at in Python)."""
    named = document.lines_starting(_NAME_THEN_DIGIT)
    return sorted(set(named).union(document.lines_with("==", "|", "::", "Successfully installed")))


def read(document: Document) -> Iterator[Observation]:
    seen: list[Observation] = []
    yield from _absent(document)
    lines = document.lines
    for number in _candidates(document):  # a line of none of them matches no branch below
        line = lines[number - 1]
        found: list[Observation] = []
        m = _FREEZE.match(line) if "==" in line else None  # the cheap test first: a large paste has many lines
        if m:
            found = list(_package(_canonical(m.group(1)), m.group(2), None, number))
        elif (m := _COLUMNS.match(line)):
            name = _canonical(m.group(2))
            build = m.group(4) if m.group(1) == "conda" or (m.group(5) and not m.group(1)) else None
            found = list(_package(name, m.group(3), build, number))
        elif ("|" in line or "::" in line) and (m := _CONDA_PLAN.match(line)):
            found = list(_package(_canonical(m.group(1)), m.group(2), m.group(3), number))
        elif "Successfully installed" in line and (m := _PIP_INSTALLED.match(line)):
            found = [o for item in _INSTALLED_ITEM.finditer(m.group(1)) for o in _package(_canonical(item.group(1)), item.group(2), None, number)]
        seen += found
        yield from found
    yield from _jax(seen)


def _absent(document: Document) -> Iterator[Observation]:
    header = _whole_list(document)
    if header is None:
        return
    lines = document.lines
    candidates = set(document.lines_starting(_NAME_THEN_DIGIT)).union(document.lines_with("=="))
    listed = {_canonical(m.group(1) or m.group(2)) for number in candidates if (m := _LISTED.match(lines[number - 1]))}
    for name in ABSENT_WHEN_NOT_LISTED:
        if name not in listed:
            yield Observation(f"python_packages.{name}", None, header, NAME, "a whole package list that does not name it")


def _jax(seen: list[Observation]) -> Iterator[Observation]:
    """A package list that names jaxlib also says which CUDA plugin is installed: the one it lists, or none."""
    from ...jax_builds import PLUGIN_NAMES, jax_build

    listed = {o.key.split(".", 1)[1]: (o.value, o.line) for o in seen if o.key.startswith("python_packages.")}
    if "jaxlib" not in listed:
        return
    line = listed["jaxlib"][1]
    packages = {name: None for name in PLUGIN_NAMES} | {name: value for name, (value, _) in listed.items()}
    build = jax_build(packages)
    if build is None:
        return
    why = "the package list names jaxlib and " + (f"jax-{build.build}-plugin" if build.plugin or build.pjrt else "no JAX CUDA plugin")
    for field in ("jaxlib", "build", "plugin", "pjrt"):
        if getattr(build, field) is not None:
            yield Observation(f"frameworks.jax.{field}", getattr(build, field), line, NAME, why)


def _package(name: str, version: str, conda_build: str | None, number: int) -> Iterator[Observation]:
    if name not in _INTERESTING and not _CUDA_NAME.match(name):
        return
    if name in ("pytorch", "pytorch-nightly"):  # the conda names of torch (pytorch-nightly: the pytorch channel's, 2018-19)
        name = "torch"
    if name == "cpu-only":  # the pytorch channel's CPU selector before it was renamed cpuonly
        name = "cpuonly"
    yield Observation(f"python_packages.{name}", version, number, NAME)
    if name == "torch":
        yield Observation("frameworks.torch.version", version, number, NAME)
        if conda_build:
            cuda = _CONDA_CUDA.search(conda_build)
            if cuda:
                yield Observation("frameworks.torch.cuda", f"{cuda.group(1)}.{cuda.group(2)}", number, NAME, f"conda build {conda_build}")
                yield Observation("frameworks.torch.build", "cuda", number, NAME, f"conda build {conda_build}")
                cudnn = _CONDA_CUDNN.search(conda_build)
                if cudnn:
                    yield Observation("frameworks.torch.cudnn", cudnn.group(1), number, NAME, f"conda build {conda_build}")
            elif re.search(r"(?:^|_)cpu(?:_|$)", conda_build):
                yield Observation("frameworks.torch.build", "cpu", number, NAME, f"conda build {conda_build}")
    elif name == "cpuonly":
        yield Observation("frameworks.torch.build", "cpu", number, NAME, "the conda 'cpuonly' package selects CPU-only torch")
    elif name == "pytorch-cuda":
        yield Observation("frameworks.torch.build", "cuda", number, NAME, "the conda 'pytorch-cuda' package selects a CUDA torch")
    elif name == "jax":
        yield Observation("frameworks.jax.version", version, number, NAME)
    elif name == "jaxlib" and conda_build and re.match(r"cpu(?:_|$)", conda_build):
        yield Observation("frameworks.jax.build", "cpu", number, NAME, f"conda build {conda_build} is jaxlib's CPU build")
    elif name in ("tensorflow", "tensorflow-gpu", "tf-nightly", "tf-nightly-gpu"):
        yield Observation("frameworks.tensorflow.version", version, number, NAME)
        if name.endswith("-gpu"):
            yield Observation("frameworks.tensorflow.is_cuda_build", True, number, NAME, f"{name} is the CUDA build")
