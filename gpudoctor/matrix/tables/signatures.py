"""matrices/signatures.toml -> validated failure signatures: what a line of a pasted log means, as data.

A Signature is a regex with the symptom and facts it establishes; a LogFinding turns a symptom into a finding by
itself. Values are templates ("{1}", "{1|cuda_code}") expanded by ``expand`` with the named TRANSFORMS. Loading
validates every entry (one line naming the entry and key on error) and compiles patterns once, on first use: only
``check --from`` reads pasted text, so a check of this machine never pays for it."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ...model import Fix, Section, Severity
from .reader import MatrixError

_TEMPLATE = re.compile(r"\{(\d+)(?:\|(\w+))?\}")
_CUDA_LIBRARY = re.compile(r"^(?:lib)?(cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|cudnn|nvrtc)(?:64)?[._]", re.I)


def _cuda_code(text: str) -> str | None:
    """CUDA's integer version (11040, 12020) -> "11.4", "12.2"; anything else is no CUDA version."""
    if not text.isdigit() or len(text) > 6:
        return None
    code = int(text)
    return f"{code // 1000}.{(code % 1000) // 10}" if 1000 <= code < 100000 else None


def _cc(sm: str) -> str | None:
    """"sm_86" / "compute_90" / "sm_120a" -> "8.6" / "9.0" / "12.0"."""
    m = re.fullmatch(r"(?:sm|compute)_(\d+)(\d)[a-z]?", sm.strip().lower())
    return f"{int(m.group(1))}.{m.group(2)}" if m else None


def _cudnn_code(text: str) -> str:
    """cuDNN as TensorFlow prints it: 7.6.0 stays; 6021 -> 6.0.21, 7605 -> 7.6.5 (cuDNN 8 and older: M*1000+m*100+p)."""
    if text.isdigit() and len(text) == 4:
        code = int(text)
        return f"{code // 1000}.{(code % 1000) // 100}.{code % 100}"
    return text


def _torch_cudnn(text: str) -> str:
    """torch's cuDNN in its messages: "(8, 5, 0)" -> 8.5.0; "7102" -> 7.1.2."""
    parts = re.findall(r"\d+", text)
    if len(parts) == 1 and len(parts[0]) <= 6:
        code = int(parts[0])
        return f"{code // 1000}.{(code % 1000) // 100}.{code % 100}"
    return ".".join(parts)


def _major_minor(text: str) -> str | None:
    m = re.match(r"(\d+)\.(\d+)", text)
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


TRANSFORMS: dict[str, Callable[[str], Any]] = {
    "cuda_code": _cuda_code,
    "cc": _cc,
    "sm_digits": lambda text: text.replace(".", ""),
    "cudnn_code": _cudnn_code,
    "torch_cudnn": _torch_cudnn,
    "major_minor": _major_minor,
    "words": lambda text: [w.strip("'\",.") for w in re.split(r"[\s,]+", text) if w.strip("'\",.")] or None,
    "cuda_library": lambda text: text if _CUDA_LIBRARY.match(text) else None,
    "version": lambda text: text if re.fullmatch(r"\d+\.\d+(?:\.\d+)?", text) else None,
    "pin": lambda text: f"=={text}" if text else None,
    "lower": lambda text: text.lower().replace("_", "-"),
}


def expand(template: Any, match: re.Match[str]) -> Any:
    """A template with the match's groups put in; None when a group it needs is missing or a transform refuses.
    A template that is exactly one placeholder keeps the transform's type (a list for ``words``)."""
    if not isinstance(template, str):
        return template
    whole, pieces = _pieces(template)
    if whole is not None:
        out, refused = _value(match, *whole)
        return None if refused or out in ("", []) else out
    parts, failed = [], False
    for piece in pieces:
        if isinstance(piece, str):
            parts.append(piece)
        else:
            out, refused = _value(match, *piece)
            failed = failed or refused
            parts.append(str(out))
    text = "".join(parts)
    return None if failed or not text.strip() else text


@functools.lru_cache(maxsize=1024)
def _pieces(template: str) -> tuple[tuple[int, str | None] | None, tuple[str | tuple[int, str | None], ...]]:
    """A template parsed once (a 1 MB paste expands the same few templates thousands of times): (group, transform)
    when it is exactly one placeholder, else its literal text and its placeholders in order."""
    whole = _TEMPLATE.fullmatch(template)
    if whole:
        return (int(whole.group(1)), whole.group(2)), ()
    split = _TEMPLATE.split(template)  # literal, group, transform, literal, ...
    pieces: list[str | tuple[int, str | None]] = []
    for at in range(0, len(split) - 1, 3):
        pieces += [split[at], (int(split[at + 1]), split[at + 2])]
    pieces.append(split[-1])
    return None, tuple(pieces)


def _value(match: re.Match[str], number: int, transform: str | None) -> tuple[Any, bool]:
    """A placeholder's value, and whether its transform refused the group ("" for a group that did not match)."""
    group = match.group(number) if number <= (match.re.groups or 0) else None
    if group is None:
        return "", False
    group = group.strip()
    if transform:
        out = TRANSFORMS[transform](group)
        return ("", True) if out is None else (out, False)
    return group, False


@dataclass(frozen=True)
class Signature:
    """One message family: its pattern, the symptom and facts a matching line establishes, and its sources."""

    id: str
    pattern: str
    keywords: tuple[str, ...]
    symptom: str | None
    framework: str | None
    subject: str | None
    facts: tuple[tuple[str, Any], ...]  # (snapshot key template, value template)
    implied: dict[str, str]
    when: str | None
    family: str | None
    supports: str | None
    sources: tuple[str, ...]
    must_match: tuple[str, ...]
    must_not_match: tuple[str, ...]

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern)


@dataclass(frozen=True)
class LogFinding:
    """A symptom that proves a finding by itself: the finding's id, severity, section, title and fix."""

    symptom: str
    id: str
    severity: Severity
    section: Section
    title: str
    fix: Fix
    explanation: tuple[str, ...] = ()
    # the severity on a machine that cannot have an NVIDIA GPU (a Mac, or one said to have none): a library's CPU-only
    # build is then what there is to have, not a fault (None: the same as anywhere)
    without_nvidia_gpu: Severity | None = None


@dataclass(frozen=True)
class SignatureTable:
    """The whole table: signatures in file order, and the findings symptoms prove by themselves."""

    reviewed: str
    signatures: tuple[Signature, ...]
    findings: tuple[LogFinding, ...]


_KEYS = {"id", "pattern", "keywords", "symptom", "framework", "subject", "facts", "implied", "when", "family", "supports",
         "sources", "must_match", "must_not_match"}


def _strings(entry: dict, key: str, where: str, required: bool = False) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or (required and not value):
        raise MatrixError(f"signatures.toml: {where}: {key} must be a {'non-empty ' if required else ''}list of strings")
    return tuple(value)


def _signature(entry: dict, index: int) -> Signature:
    where = f"signature {entry.get('id', index)!r}"
    unknown = set(entry) - _KEYS
    if unknown:
        raise MatrixError(f"signatures.toml: {where}: unknown keys {sorted(unknown)}")
    for key in ("id", "pattern"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise MatrixError(f"signatures.toml: {where}: {key} must be a non-empty string")
    try:
        compiled = re.compile(entry["pattern"])
    except re.error as exc:
        raise MatrixError(f"signatures.toml: {where}: pattern does not compile: {exc}") from None
    for key in ("symptom", "framework", "subject", "when", "family", "supports"):
        if key in entry and not isinstance(entry[key], str):
            raise MatrixError(f"signatures.toml: {where}: {key} must be a string")
    facts = entry.get("facts", {})
    implied = entry.get("implied", {})
    if not isinstance(facts, dict) or not isinstance(implied, dict) or not all(isinstance(v, str) for v in implied.values()):
        raise MatrixError(f"signatures.toml: {where}: facts and implied must be tables (implied: of strings)")
    if not facts and "symptom" not in entry:
        raise MatrixError(f"signatures.toml: {where}: establishes nothing (no symptom and no facts)")
    sources = _strings(entry, "sources", where, required=True)
    if not all(s.startswith("https://") for s in sources):
        raise MatrixError(f"signatures.toml: {where}: every source must be an https URL")
    for template in [entry.get("subject"), entry.get("when"), *facts, *[v for v in facts.values() if isinstance(v, str)]]:
        for m in _TEMPLATE.finditer(template or ""):
            if int(m.group(1)) > compiled.groups or (m.group(2) and m.group(2) not in TRANSFORMS):
                raise MatrixError(f"signatures.toml: {where}: template {m.group(0)} names no group or transform of it")
    return Signature(
        entry["id"], entry["pattern"], _strings(entry, "keywords", where, required=True), entry.get("symptom"),
        entry.get("framework"), entry.get("subject"), tuple(facts.items()), dict(implied), entry.get("when"),
        entry.get("family"), entry.get("supports"), sources, _strings(entry, "must_match", where, required=True),
        _strings(entry, "must_not_match", where, required=True),
    )


def _finding(entry: dict, index: int) -> LogFinding:
    where = f"finding {entry.get('id', index)!r}"
    try:
        fix = entry["fix"]
        return LogFinding(
            entry["symptom"], entry["id"], Severity[entry["severity"].upper()], Section[entry["section"].upper()], entry["title"],
            Fix(fix["summary"], tuple(fix.get("commands", ())), fix.get("url")), tuple(entry.get("explanation", ())),
            Severity[entry["without_nvidia_gpu"].upper()] if "without_nvidia_gpu" in entry else None,
        )
    except (KeyError, AttributeError, TypeError) as exc:
        raise MatrixError(f"signatures.toml: {where}: missing or malformed {exc}") from None


def parse_signatures(doc: dict) -> SignatureTable:
    signatures = tuple(_signature(e, i) for i, e in enumerate(doc.get("signature", [])))
    ids = [s.id for s in signatures]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate:
        raise MatrixError(f"signatures.toml: signature id {duplicate!r} is used twice")
    findings = tuple(_finding(e, i) for i, e in enumerate(doc.get("finding", [])))
    symptoms = {s.symptom for s in signatures}
    orphan = next((f.symptom for f in findings if f.symptom not in symptoms), None)
    if orphan:
        raise MatrixError(f"signatures.toml: finding for symptom {orphan!r}, which no signature establishes")
    return SignatureTable(str(doc.get("reviewed", "")), signatures, findings)


@functools.lru_cache(maxsize=4)
def load_signatures(directory: Path | None = None) -> SignatureTable:
    """The signature table of ``directory`` (default: the packaged matrices), parsed and validated once a process."""
    if directory is None:
        from ...resources import matrices_dir

        directory = matrices_dir()
    try:
        import tomllib  # novermin: tomli, a dependency below 3.11, stands in there
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    from .reader import read_toml

    return parse_signatures(read_toml(directory / "signatures.toml", tomllib))
