"""torch-index-url-wrong: pip looked for a torch build where it cannot be. A "+cu121" local version is never on PyPI
(PyPI refuses local versions on upload; PyTorch publishes them on download.pytorch.org), and the index of one CUDA
tag (download.pytorch.org/whl/cu131) holds only the releases PyTorch built for that tag. pip then says "from versions:
none", which otherwise reads as a Python without wheels (pip_messages asks here first)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator, NamedTuple

from ..model import Facts, Finding, Fix, Section, Severity
from . import _builds as b
from ._facts import symptoms

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix
    from ..model import Symptom

PYTORCH_INDEX = "https://download.pytorch.org/whl/"
# PyPI's upload check (pypi/warehouse, warehouse/forklift/metadata.py): "The use of local versions in ... is not allowed."
_LOCAL = re.compile(r"\+(cu\d+|cpu|rocm\d[\d.]*|xpu)$")
_CUDA_TAG = re.compile(r"cu(\d+)$")


class TorchRequest(NamedTuple):
    """One torch install pip could not satisfy: its log line, the version asked for ("" for any), what pip offered."""
    symptom: Symptom
    version: str
    offered: str | None  # "none", a list, or None where pip's line gave no list


def torch_requests(facts: Facts) -> list[TorchRequest]:
    out = []
    for s in symptoms(facts, "pip-offered-versions") + symptoms(facts, "no-matching-distribution"):
        wanted, _, offered = (s.subject or "").partition("|")
        name, op, version = re.match(r"([\w.-]*)\s*(==)?\s*(.*)", wanted).groups()
        if name == "torch" and (op or not version):
            out.append(TorchRequest(s, version.strip(), offered.strip() or None if s.kind == "pip-offered-versions" else None))
    return out


def torch_index_url_wrong(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    if not facts.symptoms:
        return  # pip's lines are all it reads (a snapshot has none)
    indexes = list(dict.fromkeys(s.subject for s in symptoms(facts, "pytorch-index") if s.subject))
    for request in torch_requests(facts):
        finding = (_local_version_without_index(facts, matrix, request, indexes) or _tag_not_published(facts, matrix, request, indexes)
                   or _index_lacks_release(facts, matrix, request, indexes))
        if finding is not None:
            yield finding
            return  # one request says it: the others in the paste are the same install


def judged_requests(facts: Facts, matrix: "Matrix | None") -> set[str]:
    """The texts of pip's lines this rule explains at error level (pip_messages leaves them alone)."""
    return {f.evidence[0][len("log: "):] for f in torch_index_url_wrong(facts, matrix) if f.severity is Severity.ERROR}


def _local_version_without_index(facts: Facts, matrix: "Matrix | None", request: TorchRequest, indexes: list[str]) -> Finding | None:
    local = _LOCAL.search(request.version)
    if local is None or indexes or (request.offered and "+" in request.offered):
        return None  # an index of PyTorch's was given, or pip's list shows one: the cause is elsewhere
    tag = local.group(1)
    if facts.host and facts.host.os == "darwin" and tag != "cpu":
        return None  # no index has CUDA or ROCm builds for macOS: the platform is the cause (pip_messages)
    release = matrix.torch_release(request.version) if matrix is not None else None
    python = b.python_minor(facts)
    # Where this Python has the release's wheels, the missing index is all that is left; else it shares the blame. PyPI
    # offering the same release without the tag ("2.0.1" for "2.0.1+cu118") says so too: pip filters its list by Python.
    offered = {v.strip() for v in (request.offered or "").split(",")}
    sure = (release is not None and python is not None and python in release.python) or _LOCAL.sub("", request.version) in offered
    return Finding(
        "torch-index-url-wrong", Severity.ERROR if sure else Severity.WARNING, Section.TORCH,
        f"torch {request.version} is a build only PyTorch's own index has: pip looked for it on PyPI, which hosts no '+{tag}' versions",
        (f"log: {request.symptom.text}",
         "no download.pytorch.org index URL in the paste; PyPI refuses local versions ('+cu121') on upload",
         f"PyTorch publishes torch {request.version} at {PYTORCH_INDEX}{tag}"),
        Fix("Point pip at PyTorch's index for that tag (in a requirements file: an --extra-index-url line at its top)",
            (f"pip install torch=={request.version} --index-url {PYTORCH_INDEX}{tag}",
             f"--extra-index-url {PYTORCH_INDEX}{tag}   # first line of requirements.txt"), b.TORCH_PREVIOUS_URL),
    )


def _tag_not_published(facts: Facts, matrix: "Matrix | None", request: TorchRequest, indexes: list[str]) -> Finding | None:
    if matrix is None or request.offered not in (None, "none"):
        return None
    version = _LOCAL.sub("", request.version)
    release = matrix.torch_release(version) if version else None
    if version and release is None:
        return None  # a release the matrix does not know: its tags are unknown too
    built = [v.tag for v in release.variants] if release else sorted({v.tag for r in matrix.torch for v in r.variants}, key=_tag_number)
    wrong = next((t for t in indexes if _CUDA_TAG.match(t) and _tag_number(t) >= 100 and t not in built), None)
    if wrong is None:
        return None
    best = _best_tag(facts, release, built)
    return Finding(
        "torch-index-url-wrong", Severity.ERROR, Section.TORCH,
        f"PyTorch's {wrong} index has no torch {release.series} build: pip was pointed at a CUDA tag PyTorch did not build that release for"
        if release else f"PyTorch's {wrong} index has no torch builds: pip was pointed at a CUDA tag PyTorch never published",
        (f"log: {request.symptom.text}", f"pip looked in {PYTORCH_INDEX}{wrong}",
         f"torch {release.series} was built for {', '.join(t for t in built if _CUDA_TAG.match(t))}" if release else
         f"PyTorch's CUDA tags: {', '.join(t for t in built if _CUDA_TAG.match(t) and _tag_number(t) >= 100)}"),
        Fix("Use the index of a CUDA tag the release was built for, one whose CUDA the driver supports (nvidia-smi's 'CUDA Version')",
            (f"pip install torch{'==' + version if version else ''} --index-url {PYTORCH_INDEX}{best}", "nvidia-smi"), b.TORCH_PREVIOUS_URL),
    )


def _index_lacks_release(facts: Facts, matrix: "Matrix | None", request: TorchRequest, indexes: list[str]) -> Finding | None:
    """pip was pointed at one PyTorch index (--index-url .../rocm5.6) and its list holds only that tag's local versions
    ("2.2.0+rocm5.6, 2.2.1+rocm5.6"), and the matrix says the release was never built for that tag: it is missing from
    that index, not from this Python. (Where the release was built for the tag, pip's list, filtered by the Python like
    every list, says the Python: pip_messages.)"""
    offered = [v.strip() for v in (request.offered or "").split(",") if v.strip()]
    tags = {m.group(1) for m in map(_LOCAL.search, offered) if m}
    version = _LOCAL.sub("", request.version)
    if matrix is None or not offered or len(tags) != 1 or any("+" not in v for v in offered) or not version or tags - set(indexes):
        return None
    if version in {_LOCAL.sub("", v) for v in offered}:
        return None
    (tag,) = tags
    release = matrix.torch_release(version)
    if release is None:
        return None
    built = [v.tag for v in release.variants] + ([f"rocm{release.rocm}"] if release.rocm else [])
    if tag in built:
        return None  # the index has the release, not for this Python (pip filters every list by it): pip_messages says so
    best = (f"rocm{release.rocm}" if tag.startswith("rocm") and release.rocm else
            _best_tag(facts, release, built) if any(_CUDA_TAG.match(t) for t in built) else built[0])
    return Finding(
        "torch-index-url-wrong", Severity.ERROR, Section.TORCH,
        f"PyTorch's {tag} index has no torch {version}: pip's list is that index's ({offered[0]} to {offered[-1]}), not a Python limit",
        (f"log: {request.symptom.text}",
         "every version pip offers carries the local tag +" + tag + ": only PyTorch's own index for that tag lists them",
         f"torch {release.series} was built for {', '.join(built)}"),
        Fix(f"Use the index of a tag torch {version} was built for",
            (f"pip install torch=={version} --index-url {PYTORCH_INDEX}{best}",), b.TORCH_PREVIOUS_URL),
    )


def _tag_number(tag: str) -> int:
    match = _CUDA_TAG.match(tag)
    return int(match.group(1)) if match else -1


def _best_tag(facts: Facts, release: object | None, built: list[str]) -> str:
    """The release's newest CUDA tag the driver runs (a driver runs every minor release of its CUDA major: CUDA's
    minor-version compatibility), else the release's default."""
    cuda = [t for t in built if _CUDA_TAG.match(t)]
    driver = b.vt(facts.driver.cuda_version) if facts.driver and facts.driver.cuda_version else None
    if driver:
        fits = [t for t in cuda if _tag_number(t) // 10 <= driver[0]]
        if fits:
            return max(fits, key=_tag_number)
    default = getattr(release, "default_linux", None)
    return default if default in cuda else max(cuda, key=_tag_number)


CHECKS = (torch_index_url_wrong,)
