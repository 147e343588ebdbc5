"""Issue-template and issue-form fields that state machine facts: TensorFlow's form (``### OS Platform and
Distribution`` with the answer below it) and its older template (``- OS Platform and Distribution (e.g., Linux Ubuntu
16.04): Ubuntu 18.04``, also in bold), PyTorch's and Lightning's old "## Environment" lists, cuML's "Environment
details" (``- GPU Model/Driver: [V100 and driver 396.44]``), and the like.

These are answers a person typed, not output a tool printed, so every observation is marked ``stated``: the merge
keeps printed values first, and a form that disagrees with a command becomes a contradiction, never the fact. A
value is read only where the answer states it plainly; placeholders, hedges ("maybe 1.13.1"), the template's own
example and prose are unknown.
"""

from __future__ import annotations

import functools
import re
from typing import Iterator

from ..document import Document
from ..observation import Observation
from . import collect_env
from ._common import major_minor
from .form_labels import _DISTINCTIVE, _LABELS, _TEMPLATE_EXAMPLES, _VERSION_FACTS

NAME = "issue form (stated)"

_MARKED = re.compile(r"\n[^\S\n]*[-#*+]")  # a line starting with a heading's or a bullet's mark
_HEADING = re.compile(r"^#{2,4}\s+(.+?)\s*$")
# A label's colon may be the full-width one ("cuda版本：11.2"), and a label may start with a CJK character ("驱动版本: ...")
_BULLETED = re.compile(r"^\s*(?:[-*+]\s+)?\*\*(.+?)\*\*\s*[:：]?\s*(?:\*\*)?\s*[:：]?\s*(.*)$|^\s*[-*+]\s+([^:：]{2,80}?)\s*[:：]\s*(.*)$")
_BARE = re.compile(r"^\s*([A-Za-z\u4e00-\u9fff][^:：]{1,80}?)\s*[:：]\s*(.*)$")
_UNLABELLED_HARDWARE = re.compile(r"^\s*[-*+]\s+(Hardware)\s+(\S.*)$")  # ethminer's "- Hardware 1080TI" (no colon)
_PARENTHESES = re.compile(r"\((?:e\.g\.?,?|use command below|if compiling from source|gpu\?)[^)]*\)", re.I)
_EXAMPLE = re.compile(r"\(e\.g\.?,?\s*([^)]*)\)", re.I)
_UNKNOWN = {"", "-", "--", "n/a", "na", "none", "no", "_no response_", "no response", "unknown", "?", "not sure", "idk",
            "tbd", "latest", "same", "...", "not installed", "not applicable", "nil", "null"}
_HEDGE = re.compile(r"\b(?:maybe|probably|perhaps|not sure|i think|i guess|possibly|either|or|tested on|both|between)\b|\?", re.I)
_VERSION = re.compile(r"(?<![\w.])(?:v|tf-?|torch-?)?(\d+\.\d+(?:\.\d+)*(?:rc\d+|a\d+|b\d+|\.dev\d+|\.post\d+)?(?:\+[\w.]+)?)(?![\w.])")
_DOTTED = re.compile(r"(\d+\.\d+(?:\.\d+)*)")
_CUDA_WORDS = re.compile(r"^(?:cuda|cudnn|toolkit|version|v|windows|win|linux|x86_64|amd64|installed|archive|local|"
                         r"cuda\d+|cudnn\d+|\d+(?:\.\d+)*|_\d+|[_\s./:-])+$", re.I)
_NVIDIA_GPU = re.compile(r"(?i)\b(?:nvidia|geforce|gtx|rtx|titan|tesla|quadro|[kpvatlhb]\d{2,3}[a-z]?|a\d{4}|mx\s?\d{3}|"
                         r"gh200|gb200|\d{3,4}\s?(?:ti|super|m|mx)?)\b|\b\d{3,4}ti\b")
_GPU_FAMILY = re.compile(r"(?i)\b(?:nvidia|geforce|gtx|rtx|titan|tesla|quadro)\b|\d{3,4}\s?ti\b")
_NOT_NVIDIA = re.compile(r"(?i)\b(?:amd|radeon|intel|iris|uhd|apple|m[1-4]|mali|adreno|cpu|no gpu|none|integrated)\b")
_MEMORY = re.compile(r"(?i)[\s,(-]*\d+(?:\.\d+)?\s*(?:gb|gib|g|mb)\b\)?")




def read(document: Document) -> Iterator[Observation]:
    fields = list(_fields(document))
    is_form = any(label in _DISTINCTIVE for _, label, _, _ in fields) or any(strong for _, _, _, strong in fields)
    listed = {number for number, label, answer, _ in fields if _LABELS[label] in _VERSION_FACTS and _DOTTED.search(answer)}
    typed = _typed_lists(listed, {number for number, _, _, _ in fields})
    for number, label, answer, strong in fields:
        if strong or is_form or number in typed:
            yield from _facts(_LABELS[label], label, answer, number)


def _typed_lists(listed: set[int], known: set[int]) -> set[int]:
    """Runs of adjacent known "Label: value" lines holding two or more versions: the OS or GPU line counts with them."""
    typed: set[int] = set()
    for start in (n for n in sorted(known) if n - 1 not in known):  # the first line of each run
        run = range(start, next(n for n in range(start, start + len(known) + 1) if n not in known))
        typed.update(run if sum(n in listed for n in run) >= 2 else ())
    return typed


def _fields(document: Document) -> Iterator[tuple[int, str, str, bool]]:
    """(line of the answer, label, answer, whether the line is shaped like a form field) for every known label."""
    lines = document.lines
    skip_collect_env = _has_collect_env(document)
    # a field has a colon, a heading or a bullet: the other lines are never looked at (str.lstrip strips what \s is)
    wide = set(document.lines_with("："))  # the full-width colon's lines (few): only they need _first_colon
    for number in sorted(set(document.lines_with(":")).union(wide, document.lines_starting(_MARKED))):
        line = lines[number - 1]
        first = line.lstrip()[:1]
        if ":" not in line and number not in wide and first not in ("#", "-", "*", "+"):
            continue
        rest = line.lstrip("#") if line.startswith("##") else ""  # what _HEADING matches, tested without its regex:
        if 2 <= len(line) - len(rest) <= 4 and rest[:1].isspace() and len(rest) > 1:  # 2-4 "#", a space, a character
            label = _label(rest)  # _label strips the spaces around _HEADING's group
            if label in _LABELS:
                found = _answer_below(lines, number, stop=_HEADING)
                if found:
                    yield found[0], label, found[1], True
            continue
        shaped = _shaped_field(line) if first in ("-", "*", "+") else None  # both patterns start with one of these
        strong = shaped is not None
        if shaped:
            raw_label, answer = shaped
        else:
            colon = _first_colon(line) if number in wide else line.find(":")  # _BARE's label ends at the first colon
            if colon == -1 or not _known_before(line[:colon + 1]):  # (most lines of a log have no label we know)
                continue
            m = _BARE.match(line)
            if not m or _label(m.group(1)) not in _LABELS:
                continue
            if skip_collect_env and collect_env._FIELD.match(line):
                continue  # collect_env's own "OS: ..." lines are its output, read by its reader
            raw_label, answer = m.group(1), m.group(2)
        label = _label(raw_label)
        if label not in _LABELS:
            continue
        if _example_answer(raw_label, answer):
            continue
        if not answer.strip():
            found = _answer_below(lines, number, stop=None, one_line=True)
            if not found:
                continue
            number, answer = found
        else:
            answer = answer.strip()
        yield number, label, answer, strong


def _shaped_field(line: str) -> tuple[str, str] | None:
    """(label, answer) of a bulleted or bold "Label: answer" line."""
    m = _BULLETED.match(line)
    if m:
        return (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    m = _UNLABELLED_HARDWARE.match(line)
    return (m.group(1), m.group(2)) if m else None


def _has_collect_env(document: Document) -> bool:
    lines = document.lines
    return any((m := collect_env._FIELD.match(lines[number - 1])) and m.group(1) in collect_env._DISTINCTIVE
               for number in document.lines_with(*collect_env._DISTINCTIVE))


def _first_colon(line: str) -> int:
    """Where the first colon is, ASCII or full-width ("cuda版本：11.2"); -1 where there is none."""
    found = [i for i in (line.find(":"), line.find("：")) if i != -1]
    return min(found) if found else -1


@functools.lru_cache(maxsize=4096)  # a long log repeats its lines: more labels than 512, read in a cycle, hit none
def _label(text: str) -> str:
    text = _PARENTHESES.sub("", text.replace("**", "").replace("`", ""))
    return re.sub(r"\s+", " ", text.strip().strip(":：").strip()).lower()


@functools.lru_cache(maxsize=4096)
def _known_before(head: str) -> bool:
    """Whether a line starting with ``head`` (up to its first colon) is a "Label: answer" line with a label we know."""
    m = _BARE.match(head)
    return m is not None and _label(m.group(1)) in _LABELS


def _example_answer(raw_label: str, answer: str) -> bool:
    example = _EXAMPLE.search(raw_label)
    return bool(example and _clean(answer).lower() == example.group(1).strip().lower())


def _answer_below(lines: tuple[str, ...], number: int, stop: re.Pattern[str] | None, one_line: bool = False) -> tuple[int, str] | None:
    """The first non-empty line under a heading (or under a "Label:" line with nothing after the colon)."""
    for offset, line in enumerate(lines[number:number + 12], start=number + 1):
        if not line.strip() or line.strip().startswith("```"):
            if one_line and not line.strip():
                return None
            continue
        if (stop and stop.match(line)) or _BULLETED.match(line) or (_BARE.match(line) and _label(_BARE.match(line).group(1)) in _LABELS):
            return None
        return offset, line.strip()
    return None


def _clean(answer: str) -> str:
    answer = answer.replace("**", "").replace("`", "").strip()
    if answer.startswith("[") and answer.endswith("]"):
        answer = answer[1:-1].strip()
    return answer.rstrip(".").strip()


def _facts(kind: str, label: str, answer: str, number: int) -> Iterator[Observation]:
    text = _clean(answer)
    lowered = text.lower()
    if lowered in _UNKNOWN or lowered in _TEMPLATE_EXAMPLES or lowered.startswith("e.g") or len(text) > 160:
        return
    if kind == "os":
        yield from _os(text, number)
    elif kind == "gpu":
        yield from _gpus(text, number, named_only=label == "hardware")
        if label == "gpu model/driver":
            driver = re.search(r"(?i)\bdriver\s*(?:version\s*)?:?\s*(\d{3}\.\d+(?:\.\d+)?)\b", text)
            if driver:
                yield _stated("driver.version", driver.group(1), number)
    elif kind == "device":
        if re.search(r"(?i)\bjetson\b", text):
            yield _stated("jetson.model", text, number)
    elif kind == "tf-installed-from":
        if re.search(r"(?i)\btensorflow[-_]gpu\b", text):  # "Binary (pip3 install -U tensorflow-gpu)": the CUDA build
            yield _stated("frameworks.tensorflow.is_cuda_build", True, number, "the tensorflow-gpu package is TensorFlow's CUDA build")
    elif _HEDGE.search(text):
        return  # "maybe version 1.13.1", "Tested on both 3.5 and 3.6": not a statement of one version
    elif kind == "python":
        versions = set(_DOTTED.findall(text))
        if len(versions) == 1 and re.match(r"[23]\.\d+", next(iter(versions))) and re.fullmatch(r"(?i)(?:python\s*)?[\d.]+\S*", text):
            yield _stated("host.python", versions.pop(), number)
    elif kind in ("torch", "tensorflow"):
        versions = {v.lstrip("v") for v in _VERSION.findall(text)}
        words = re.sub(r"(?i)v?\d[\w.+-]*|tensorflow|pytorch|torch|tf|gpu|cpu|with|support|version|true|false|[\s,()'\"=-]", "", text)
        if len(versions) == 1 and not words:
            yield _stated(f"frameworks.{kind}.version", versions.pop(), number)
            if kind == "tensorflow" and re.search(r"(?i)\btensorflow[-_]gpu\b", text):  # "tensorflow-gpu 2.2.0rc4"
                yield _stated("frameworks.tensorflow.is_cuda_build", True, number, "the tensorflow-gpu package is TensorFlow's CUDA build")
    elif kind == "driver":
        m = re.fullmatch(r"(?i)(?:nvidia\s*)?(?:driver\s*)?(?:version\s*)?(\d{3}\.\d+(?:\.\d+)?)", text)
        if m:
            yield _stated("driver.version", m.group(1), number)
    else:
        yield from _cuda_cudnn(kind, text, number)


def _stated(key: str, value: object, number: int, implied: str | None = None) -> Observation:
    return Observation(key, value, number, NAME, implied, stated=True)


def _os(text: str, number: int) -> Iterator[Observation]:
    lowered = text.lower()
    wsl = re.search(r"\bwsl\s*([12])\b|\bwsl\b|windows subsystem for linux|microsoft-standard", lowered)
    if wsl:
        version = int(wsl.group(1)) if wsl.group(1) else 2
        yield _stated("host.os", "linux", number)
        yield _stated("host.wsl", version, number, None if wsl.group(1) or "microsoft-standard" in lowered
                      else "WSL without a version is taken as WSL 2, the one with GPU support")
        return
    if re.search(r"\bwin(?:dows)?\s*(?:7|8|10|11|x64|server)|\bwindows\b", lowered):
        os = "windows"
    elif re.search(r"\b(?:mac\s?os|osx|os x|darwin|macbook)\b", lowered):
        os = "darwin"
    elif re.search(r"\b(?:linux|ubuntu|debian|centos|red hat|rhel|fedora|rocky|almalinux|suse|arch\s?linux|manjaro|mint|pop!_os)\b", lowered):
        os = "linux"
    else:
        return
    yield _stated("host.os", os, number)
    if len(text) <= 60:
        yield _stated("host.os_release", text, number)


def _gpus(text: str, number: int, named_only: bool) -> Iterator[Observation]:
    text = re.split(r"(?i)\s+(?:and|with|/)\s+driver\b|,?\s*driver\b", text)[0]
    names: list[str] = []
    for part in re.split(r"\s*(?:,|;|\+|/|&|\band\b)\s*", text):
        count = re.match(r"(?i)^(\d{1,2})\s*x\s*(.+)$|^(.+?)\s*x\s*(\d{1,2})$", part.strip())
        times, part = (int(count.group(1) or count.group(4)), count.group(2) or count.group(3)) if count else (1, part)
        name = _gpu_name(part)
        if name and named_only and not _GPU_FAMILY.search(name):
            continue  # "Hardware: Dell 7510": a bare number names a GPU only in a field that asks for one
        if name:
            names += [name] * min(times, 16)
    for index, name in enumerate(names):
        yield _stated(f"gpus[{index}].index", index, number)
        yield _stated(f"gpus[{index}].name", name, number)


def _gpu_name(part: str) -> str | None:
    part = re.sub(r"(?i)^\s*gpu\s*\d+\s*:\s*", "", re.sub(r"\(.*?\)", "", part))  # collect_env's "GPU 0: ..."
    name = _MEMORY.sub("", part).strip(" -:")
    if not name or _NOT_NVIDIA.search(name) or not _NVIDIA_GPU.search(name) or re.fullmatch(r"[\d.\s]+", name):
        return None
    if len(name) > 40 or len(name.split()) > 6:
        return None  # prose, not a model name
    name = re.sub(r"(?i)(\d)\s?ti\b", r"\1 Ti", name)  # "1050ti" -> "1050 Ti", as nvidia-smi spells it
    return name


def _cuda_cudnn(kind: str, text: str, number: int) -> Iterator[Observation]:
    text = re.sub(r"\([^)]*\)", " ", text)  # "Cuda 8.0 (via pip)": an aside, not the version
    parts = [p for p in re.split(r"\s*(?:/|,|;|\band\b|\|)\s*", text) if p.strip()]
    if not parts or len(parts) > 2:
        return
    for position, part in enumerate(parts):
        if not _CUDA_WORDS.fullmatch(part):
            return  # prose ("it is saying nvidia-smi cuda 10 but ..."): not a plain statement
    for position, part in enumerate(parts):
        lowered = part.lower()
        is_cudnn = "cudnn" in lowered or kind == "cudnn" or (kind == "cuda/cudnn" and position == 1)
        dotted = _DOTTED.search(re.sub(r"(?i)cuda(\d+)\b(?!\.)", "", part))
        if not dotted and is_cudnn:
            bare = re.search(r"\b(\d)\b", part)
            dotted = bare
        if not dotted:
            continue
        if is_cudnn:
            yield _stated("libraries.libcudnn[]", {"path": None, "version": dotted.group(1)}, number)
        elif major_minor(dotted.group(1)):
            yield _stated("cuda_toolkits[0].version", major_minor(dotted.group(1)), number)
