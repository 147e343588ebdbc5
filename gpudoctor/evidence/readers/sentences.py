"""What reporters say in their own words: "My tensorflow version is 2.12.0", "on Windows 11", "my GPU is an RTX
2060", "CUDA 12.1", "Python 3.11". Maintainers read these; so does gpudoctor, as *stated* facts, weaker than any
value a command printed (the merge keeps a printed value first and records a disagreement).

Only prose is read: lines that look like tool output (paths, log prefixes, tables, tracebacks, `key: value`
outputs of nvidia-smi or collect_env) are left to their readers."""

from __future__ import annotations

import re
from typing import Iterator

from ..document import Document
from ..observation import Observation
from ._common import major_minor
from .issue_form import _gpu_name, _os

NAME = "reporter's words"

# A line of tool output, not prose: a path, a log prefix, a table, a prompt, a traceback, a known output header. One
# test in three parts (issue 23: one pattern with every alternative was tried at each character): the words, the
# patterns at the line's start (``match``), the patterns anywhere (a word then three spaces: one word character is
# enough, where "\w+" backtracked over every word).
_OUTPUT_WORDS = ("NVIDIA-SMI", "Driver Version", "CUDA used to build", "runtime version", "Is CUDA available", "===", "site-packages")
_OUTPUT_START = re.compile(r"\s*(?:(?:ERROR|WARNING|INFO|DEBUG|FATAL|CRITICAL)\b|\||\+-|>>>|\$|#|File \"|Traceback|\d{4}-\d{2}-\d{2}|[A-Z]\d{4} |\[)|"
                           r"\s*[\w.-]+==\S+\s*$|"
                           r"\s*[-*]?\s*[A-Z][\w /().-]{1,40}\s*:\s*\S.{0,80}$")  # "Key: value": an output line or a form field
_OUTPUT_ANYWHERE = re.compile(r"[/\\]\w|\w\s{3,}\S")
_URL = re.compile(r"\(?\bhttps?://\S+")
_EXAMPLE = re.compile(r"\((?:e\.g\.?|for example|like)[^)]*\)", re.I)
_FRAMEWORK = re.compile(r"(?i)\b(tensorflow|tf|pytorch|torch)(-gpu)?(?:\s+(?:version\s+)?(?:is\s+|of\s+|:\s*|=\s*|v)?|\s*={1,2}\s*)"
                        r"(\d+\.\d+(?:\.\d+)?)(?:\s*\+\s*(cpu|cu\d+))?(?![\d.]*\w)")
_WSL = re.compile(r"(?i)\b(windows subsystem for linux|wsl\s*[12]\b|wsl2|wsl\b)")
_OS = re.compile(r"(?i)\b(windows subsystem for linux|windows\s*(?:10|11|7|8\.1|server\s*\d{4})|ubuntu\s*\d{2}\.\d{2}(?:\.\d+)?|wsl\s*[12]\b|wsl2|wsl\b|"
                 r"mac\s?os\s*(?:\d+(?:\.\d+)?|[a-z]+)?|debian\s*\d+|centos\s*\d+|fedora\s*\d+)")
_GPU = re.compile(r"(?i)\b((?:nvidia\s+)?(?:geforce\s+)?(?:rtx|gtx)\s?\d{3,4}(?!\s*(?:series|s\b|-series))(?:\s?ti)?(?:\s?super)?(?:\s?laptop)?|"
                  r"(?:nvidia\s+)?(?:geforce\s+)?titan\s?(?:xp|x|v|rtx|black|z)?|"
                  r"(?:nvidia\s+)?(?:tesla\s+)?(?:[ahv]100|h200|t4|p100|k80|a10g?|l4|a40|a6000))\b")
# "I have a 3060", "my 1660 SUPER", "with 3090": GeForce cards named by their number alone (GTX 10xx/16xx, RTX
# 20xx-50xx), read only after a word that makes the number a thing one has; never before a unit ("a 1080p monitor")
_GPU_NUMBER = re.compile(r"(?i)\b(?:my|a|an|two|dual|with)\s+((?:10|16|20|30|40|50)[5-9]0)(\s?ti|\s?super)?\b"
                         r"(?!\s*(?:p\b|x\b|px|series|-series|resolution|pixels|frames|steps|epochs|images|samples|tokens|rows|mhz|mb|gb|ms\b|s\b|%))")
_GPU_NUMBER_CHEAP = re.compile(r"[1-5][0-9][5-9]0")
# "I don't have an NVIDIA GPU", "my laptop has no nvidia card", "I'm on macOS, and don't have an Nvidia GPU": the
# reporter states there is none (typos included)
_NO_NVIDIA_GPU = re.compile(r"(?i)\b(?:i|we|and)\s+(?:don'?t|do not|didn'?t|did not)\s+have\s+(?:an?\s+|any\s+)?(?:nvid?ia|nvdia)[\s-]*"
                            r"(?:gpus?|graphics(?:\s+card)?|cards?|video\s+card)\b(?!\s*(?:drivers?|installed|support))|"
                            r"\b(?:i|we|it|laptop|machine|computer|pc|mac)\s+(?:have|has)\s+no\s+(?:nvid?ia|nvdia)[\s-]*(?:gpus?|graphics(?:\s+card)?|cards?)\b")
# (Radeon's R5/R7/R9 names too, "Radeon R9 290", "R5 M335"; and "Raedon", a common misspelling)
_AMD_GPU = re.compile(r"(?i)\b((?:AMD\s+)?Ra(?:de|ed)on\s+(?:RX\s*)?\d{3,4}\s*(?:XTX|XT|GRE|M)?|(?:AMD\s+)?Ra(?:de|ed)on\s+(?:Pro\s+\w+|VII)|"
                      r"(?:AMD\s+)?Ra(?:de|ed)on\s+R[579]\s+M?\d{3}X?|"
                      r"RX\s?\d{3,4}\s*(?:XTX|XT|GRE)?|(?:AMD\s+)?Instinct\s+MI\d{2,3}X?)\b"
                      r"|\b(AMD)\s+(?:GPU|graphics\s+card|video\s+card|card)\b")  # "I have AMD GPU": an AMD GPU, model unknown
_APPLE_CHIP = re.compile(r"\b(?:Apple\s+)?(M[1-5])(?:\s+(Pro|Max|Ultra))?\b")  # read only on a line naming a Mac
_MAC = re.compile(r"(?i)\bmac|macbook|apple|silicon")
# "installs a CPU-only version of PyTorch", "my torch is the CPU-only build": the reporter names the build
# "it installs the cpu only version", "resulted in the CPU version of torch", "reinstalls non-Cuda version of Torch",
# "replaces it with Torch without CUDA": what an install put there (on a line that names torch)
_TORCH_CPU = re.compile(r"(?i)\bcpu[- ]only (?:version|build|wheel) of (?:pytorch|torch)\b|\b(?:pytorch|torch) (?:is|was) (?:the |a )?cpu[- ]only\b|"
                        r"\b(?:installs?|installed|installing|reinstall(?:s|ed)?|resulted in|replace[sd]? it with|downgraded? (?:it )?to)\s+"
                        r"(?:the |a )?(?:cpu[- ]?only|cpu|non[- ]?cuda)\s+(?:version|build|wheel)\b|\bwith (?:pytorch|torch) without cuda\b")
_TORCH_WORD = re.compile(r"(?i)\b(?:py)?torch\b")
_NEGATED = re.compile(r"(?i)\b(?:not|no|avoid|instead|without)\b|n't\b")
_JETSON = re.compile(r"(?i)\b((?:NVIDIA\s+)?Jetson\s+(?:AGX\s+|Orin\s+)?(?:Nano|Xavier(?:\s+NX)?|Orin(?:\s+(?:Nano|NX))?|TX[12]|Thor)(?:\s+(?:Developer Kit|Super))?)")
_CUDA = re.compile(r"(?i)\bcuda(?:\s+toolkit)?\s*(?:version\s*)?(?:is\s+|:\s*|=\s*|v)?(\d{1,2}\.\d)(?:\.\d+)?\b(?![\d.]*\w)")
# "my torch.version.cuda is 9.0.176", "pytorch's cuda version is 11.8": the CUDA torch was built with, not a toolkit;
# "my nvcc --version is 10.0", "nvcc version 11.7": the toolkit that compiles
_TORCH_CUDA = re.compile(r"(?i)\b(?:torch\.version\.cuda|(?:py)?torch(?:'s)?\s+cuda(?:\s+version)?)\s*(?:is\s+|:\s*|=\s*)?['\"]?(\d{1,2}\.\d)(?:\.\d+)?\b(?![\d.]*\w)")
_NVCC = re.compile(r"(?i)\bnvcc(?:\s+-{0,2}(?:version|V)\b)?\s*(?:version\s*)?(?:is\s+|:\s*|=\s*)?(\d{1,2}\.\d)(?:\.\d+)?\b(?![\d.]*\w)")
# NVIDIA's toolkit installers: cuda_10.1.105_win10_network.exe, cuda_11.8.0_522.06_windows.exe, cuda_12.1.0_530.30.02_linux.run
_CUDA_INSTALLER = re.compile(r"(?i)\bcuda_(\d{1,2}\.\d)\.\d+_(?:\d+\.\d+(?:\.\d+)?_)?(?:win10|windows|linux)")
# "When I install the onnxruntime-gpu==1.19.2", "torch pinned nvidia-cudnn-cu12==8.9.26": a pin in a sentence states
# what is installed, for the distributions whose version or mere presence a check reads
_PIN = re.compile(r"(?i)\b(onnxruntime(?:-gpu)?|nvidia-cudnn-cu1\d|paddlepaddle(?:-gpu)?|tensorflow-gpu|tensorflow-cpu|jaxlib|"
                  r"jax-cuda1\d-plugin|mxnet(?:-cu\d+)?|cntk(?:-gpu)?)\s*==\s*(\d[\w.+]*\w)")
_CUDNN = re.compile(r"(?i)\bcudnn\s*(?:version\s*)?(?:is\s+|:\s*|=\s*|-|v)?(\d\.\d+(?:\.\d+)?)\b")
_PYTHON = re.compile(r"(?i)\bpython\s+(?:version\s+)?(?:is\s+)?(3\.\d{1,2}(?:\.\d+)?)\b(?![\d.]*\w)")
_CC = re.compile(r"(?i)\bcompute capability (?:of |is )?(\d{1,2}\.\d)\b")
_DRIVER = re.compile(r"(?i)\bdriver\s*(?:version\s*)?(?:is\s+|:\s*)?(\d{3}\.\d{2,3}(?:\.\d{2})?)\b")


def _stated(key: str, value: object, number: int) -> Observation:
    return Observation(key, value, number, NAME, "stated in the reporter's words", stated=True)


# A cheap first filter: a line naming none of these says nothing this reader reads (most lines of a long log).
_ANY = re.compile(r"(?i)tensorflow|\btf\b|torch|windows|ubuntu|wsl|mac|debian|centos|fedora|rtx|gtx|tesla|quadro|titan|radeon|raedon|instinct|jetson|\brx\s?\d|\bamd\s|"
                  r"\b[ahvtlpk]\d{2,3}\b|a10|cuda|nvcc|cudnn|python|driver|compute capability|n'?t have|not have|ha(?:ve|s) no")
# _ANY on an ASCII line (where (?i) is plain lowercasing), answered by substring tests, several times cheaper than the
# case-blind search (issue 23: a 1 MB paste in < 0.3 s): a line whose lowercase holds one of _ANY_PLAIN matches it as
# it is; a line that holds none of them matches only if it holds "tf", "rx" or a letter of the bare model numbers
# before a digit, and then the search itself decides, or a GeForce number (_GPU_NUMBER_CHEAP, for _GPU_NUMBER).
_ANY_PLAIN = ("torch", "cuda", "nvcc", "amd ", "python", "driver", "tensorflow", "windows", "ubuntu", "wsl", "mac", "debian", "centos",
              "fedora", "rtx", "gtx", "tesla", "quadro", "titan", "radeon", "raedon", "instinct", "jetson", "a10", "cudnn",
              "compute capability", "t have", "not have", "have no", "has no")
_ANY_CODE = re.compile(r"[ahvtlpk]\d")
# _ANY on a lowercased ASCII line: without (?i), which the regex engine pays for at every character (the same matches:
# every letter of _ANY is lower case, and \b, \d and \s do not depend on case)
_ANY_LOWERED = re.compile(_ANY.pattern.removeprefix("(?i)"))
# The facts whose statement ends the reading once all are said (torch's CUDA, "TensorFlow-GPU" and pins are rarer:
# waiting for them would read every line of a large paste).
_EVERY_KEY = frozenset({"frameworks.torch.version", "frameworks.tensorflow.version", "cuda_toolkits[0].version",
                        "libraries.libcudnn[]", "host.python", "driver.version", "host.os", "gpus", "gpus[0].compute_capability",
                        "amd_gpus", "host.apple.chip", "frameworks.torch.build", "jetson.model"})
# a sentence: a word of three letters and another, or three short words ("I'm on Windows 11", "My OS is Ubuntu 20.04")
# (searched for, never read: a word's last letters are enough where more may follow, so no letter run is backtracked)
_PROSE = re.compile(r"[A-Za-z]{3}\s+[A-Za-z]{2}|\b[A-Za-z]+(?:'[a-z]+)?\s+[A-Za-z]{2,}\s+[A-Za-z]{2}")
_BOLD_LABEL = re.compile(r"\s*[-*]?\s*\*\*[A-Za-z][^*]{0,40}\*\*")  # "**Setup:** GTX 1070": a reporter's own label, never tool output


def read(document: Document) -> Iterator[Observation]:
    said: set[str] = set()
    for number, line in document.numbered():
        if said >= _EVERY_KEY:
            return  # only the first statement of each fact counts: the rest of a large paste has nothing to add
        if not _names_a_subject(line):
            continue
        m = _CUDA_INSTALLER.search(line) if "cuda_toolkits[0].version" not in said and "uda_" in line else None
        if m:  # "5. Cuda_10.1.105_win10_network": the toolkit installer the reporter ran, named in a list, not a sentence
            said.add("cuda_toolkits[0].version")
            yield Observation("cuda_toolkits[0].version", major_minor(m.group(1)), number, NAME, "the CUDA installer the reporter names", stated=True)
        line = _EXAMPLE.sub(" ", line) if "(" in line else line  # an issue template's "(e.g., Linux Ubuntu 16.04)" is no statement
        line = _URL.sub(" ", line) if "://" in line else line  # a link in a sentence is no path of tool output
        if len(line) > 400 or not (_PROSE.search(line) or _BOLD_LABEL.match(line)) or _is_output(line):
            continue
        for key, value in _facts(line, said):
            if key not in said:  # the first statement of a fact counts; later ones are usually the same or a wish
                said.add(key)
                yield _stated(key, value, number) if not isinstance(value, Observation) else value
        for obs in _os_and_gpu(line, number, said):
            yield obs


def _names_a_subject(line: str) -> bool:
    """Whether ``_ANY.search(line)`` matches, by substring tests where the line is ASCII (a loop, not any() over a
    generator: a paste's lines are many)."""
    if line.isascii():
        lowered = line.lower()
        for word in _ANY_PLAIN:
            if word in lowered:
                return True
        if "tf" not in lowered and "rx" not in lowered and not _ANY_CODE.search(lowered):
            return _GPU_NUMBER_CHEAP.search(lowered) is not None
        return _ANY_LOWERED.search(lowered) is not None or _GPU_NUMBER_CHEAP.search(lowered) is not None
    return _ANY.search(line) is not None or _GPU_NUMBER_CHEAP.search(line) is not None


def _is_output(line: str) -> bool:
    """A line of tool output (see _OUTPUT_WORDS)."""
    for word in _OUTPUT_WORDS:
        if word in line:
            return True
    return _OUTPUT_START.match(line) is not None or _OUTPUT_ANYWHERE.search(line) is not None


def _holds(line: str, *words: str) -> bool:
    """False only where the line is ASCII and its lowercase holds none of the words: then no case-blind pattern that
    needs one matches (elsewhere (?i) also folds a few letters that are not ASCII, so the pattern decides)."""
    if not line.isascii():
        return True
    lowered = line.lower()
    return any(word in lowered for word in words)


def _facts(line: str, said: set[str] | frozenset[str] = frozenset()) -> Iterator[tuple[str, object]]:
    """The facts a prose line states; a fact already in ``said`` is not looked for (the first statement counts)."""
    if not {"frameworks.torch.version", "frameworks.tensorflow.version"} <= said:
        for m in _FRAMEWORK.finditer(line):
            framework = "tensorflow" if m.group(1).lower() in ("tensorflow", "tf") else "torch"
            yield f"frameworks.{framework}.version", m.group(3) + (f"+{m.group(4).lower()}" if m.group(4) else "")
            if framework == "tensorflow" and m.group(2):
                # "TensorFlow-GPU 1.13.1": the name of TensorFlow's CUDA package (until 2.11) says the build's kind
                yield "frameworks.tensorflow.is_cuda_build", True
    if "==" in line:
        for m in _PIN.finditer(line):
            yield f"python_packages.{m.group(1).lower()}", m.group(2)
    m = _TORCH_CUDA.search(line) if "frameworks.torch.cuda" not in said else None
    if m:
        yield "frameworks.torch.cuda", major_minor(m.group(1))
        line = line[:m.start()] + line[m.end():]  # that CUDA is torch's: the toolkit rule below must not take it
    m = (_NVCC.search(line) or _CUDA.search(line)) if "cuda_toolkits[0].version" not in said else None
    if m and major_minor(m.group(1)):
        yield "cuda_toolkits[0].version", major_minor(m.group(1))
    m = _CUDNN.search(line) if "libraries.libcudnn[]" not in said and _holds(line, "cudnn") else None
    if m:
        yield "libraries.libcudnn[]", {"path": None, "version": m.group(1)}
    m = _PYTHON.search(line) if "host.python" not in said else None
    if m:
        yield "host.python", m.group(1)
    m = _DRIVER.search(line) if "driver.version" not in said and _holds(line, "driver") else None
    if m:
        yield "driver.version", m.group(1)
    m = _JETSON.search(line) if "jetson.model" not in said and _holds(line, "jetson") else None
    if m:
        yield "jetson.model", " ".join(m.group(1).split())
    m = _TORCH_CPU.search(line) if "frameworks.torch.build" not in said else None
    if m and _TORCH_WORD.search(line) and not _NEGATED.search(_clause_before(line, m.start())) and not _asked(line, m.end()):
        yield "frameworks.torch.build", "cpu"  # (not "instead of the CPU version", "I don't want the CPU build")
    m = _CC.search(line) if _holds(line, "compute capability") else None
    if m:
        yield "gpus[0].compute_capability", m.group(1)


def _clause_before(line: str, end: int) -> str:
    """The words of the clause before ``end``: a negation in an earlier clause ("it doesn't happen to everyone, but
    ... it installs the cpu only version") does not reach the words that follow."""
    before = line[:end]
    cut = max(before.rfind(","), before.rfind(";"), before.rfind(". "), before.lower().rfind(" but "))
    return before[cut + 1:] if cut >= 0 else before


def _asked(line: str, start: int) -> bool:
    """Whether the sentence going on at ``start`` is a question ("can I run it with torch without cuda?")."""
    ends = [i for i in (line.find(". ", start), line.find("?", start), line.find("!", start)) if i >= 0]
    return bool(ends) and line[min(ends)] == "?" or not ends and line.rstrip().endswith("?")


def _os_and_gpu(line: str, number: int, said: set[str]) -> Iterator[Observation]:
    # "Windows 11 with WSL2": the frameworks run on the WSL side, so WSL is the OS the sentence states
    m = (_WSL.search(line) or _OS.search(line)) if "host.os" not in said else None
    if m and "host.os" not in said:
        said.add("host.os")
        for obs in _os(m.group(1), number):
            yield Observation(obs.key, obs.value, number, NAME, obs.implied or "stated in the reporter's words", stated=True)
    m = _APPLE_CHIP.search(line) if "host.apple.chip" not in said and _MAC.search(line) else None
    if m:
        said.add("host.apple.chip")
        yield _stated("host.apple.chip", f"Apple {m.group(1)}" + (f" {m.group(2)}" if m.group(2) else ""), number)
    m = _AMD_GPU.search(line) if "amd_gpus" not in said and _holds(line, "radeon", "raedon", "rx", "instinct", "amd") else None
    if m:
        said.add("amd_gpus")
        yield _stated("amd_gpus[0].index", 0, number)
        yield _stated("amd_gpus[0].name", " ".join(m.group(1).split()) if m.group(1) else "AMD GPU (model not stated)", number)
    m = _NO_NVIDIA_GPU.search(line) if "gpus" not in said and _holds(line, "have", "has") else None
    if m:
        said.add("gpus")
        yield _stated("gpus", [], number)
    m = _GPU.search(line) if "gpus" not in said else None
    if m and "gpus" not in said:
        name = _gpu_name(m.group(1))
        if name:
            said.add("gpus")
            yield _stated("gpus[0].index", 0, number)
            yield _stated("gpus[0].name", name, number)
    m = _GPU_NUMBER.search(line) if "gpus" not in said and _GPU_NUMBER_CHEAP.search(line) else None
    if m:
        said.add("gpus")
        series = "GTX" if m.group(1)[:2] in ("10", "16") else "RTX"
        suffix = f" {m.group(2).strip().title()}" if m.group(2) else ""
        yield _stated("gpus[0].index", 0, number)
        yield _stated("gpus[0].name", f"{series} {m.group(1)}{suffix}", number)
