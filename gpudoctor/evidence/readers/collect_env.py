"""``python -m torch.utils.collect_env`` as printed by every torch release (0.4 to 2.x, CUDA and ROCm builds).

collect_env prints "Could not collect" for any value it could not read: that is *unknown*, never absent. One
field is an exception, and the reason is in collect_env's own code: "CUDA used to build PyTorch" is
``torch.version.cuda`` itself, so "Could not collect" there means torch.version.cuda is None (no CUDA build); it
is recorded as an implied fact that says so. "No CUDA" (2.x) means no driver, nvcc or GPU could be read at all.
"""

from __future__ import annotations

import re
from typing import Iterator

from ..document import Document
from ..observation import Observation
from ...amd_text import gfx_target
from ._common import known, major_minor, os_from_text, version_in

NAME = "collect_env"

_FIELD = re.compile(r"^\s*(PyTorch version|Is debug build|CUDA used to build PyTorch|ROCM used to build PyTorch|ROCm SDK used to build PyTorch|"
                    r"HIP used to build PyTorch|OS|Python version|Python platform|Is CUDA available|CUDA runtime version|"
                    r"GPU models and configuration|Nvidia driver version|cuDNN version|HIP runtime version|MIOpen runtime version|"
                    r"Libc version|Is XPU available)\s*:\s*(.*)$")
_GPU_LINE = re.compile(r"^\s*GPU (\d+): (.+?)(?:\s*\(UUID: ([^)]*)\))?\s*$")
_MIG_LINE = re.compile(r"^\s*MIG \S+\s+Device\s+(\d+):(?:\s*\(UUID: (MIG-[\w/-]+)\))?")
_CUDNN_FILE = re.compile(r"((?:[A-Za-z]:\\[^:]*?|/[^\s:]*?)(?:libcudnn\.so(?:\.[\d.]+)?|cudnn(?:_\w+?)?64_\d+\.dll))\s*$")
_COULD_NOT = "could not collect"
# Field names only collect_env prints (a pasted part of its output is still its output).
_DISTINCTIVE = frozenset({"PyTorch version", "Is CUDA available", "Nvidia driver version", "CUDA used to build PyTorch",
                          "GPU models and configuration", "ROCM used to build PyTorch"})


def read(document: Document) -> Iterator[Observation]:
    lines = document.lines
    fields: dict[str, tuple[int, str]] = {}
    for number in document.lines_with(":"):  # every field has its colon
        m = _FIELD.match(lines[number - 1])
        if m and m.group(1) not in fields:
            fields[m.group(1)] = (number, m.group(2).strip())
    if not fields.keys() & _DISTINCTIVE:
        return  # not a collect_env output ("OS:" alone is too common to mean anything)

    def obs(key: str, value: object, field: str, implied: str | None = None) -> Observation:
        return Observation(key, value, fields[field][0], NAME, implied)

    torch_version = known(fields.get("PyTorch version", (0, ""))[1])
    rocm = None
    for field in ("ROCM used to build PyTorch", "ROCm SDK used to build PyTorch", "HIP used to build PyTorch", "HIP runtime version"):
        if field in fields and version_in(known(fields[field][1])):
            rocm = (field, version_in(fields[field][1]))
            break
    if torch_version:
        yield obs("frameworks.torch.version", torch_version, "PyTorch version")
        yield obs("python_packages.torch", torch_version, "PyTorch version")
    if rocm:
        yield obs("frameworks.torch.hip", rocm[1], rocm[0])
        yield obs("frameworks.torch.build", "rocm", rocm[0])
    if "CUDA used to build PyTorch" in fields and torch_version:
        raw = fields["CUDA used to build PyTorch"][1]
        cuda = major_minor(version_in(raw))
        if cuda:
            yield obs("frameworks.torch.cuda", cuda, "CUDA used to build PyTorch")
            yield obs("frameworks.torch.build", "cuda", "CUDA used to build PyTorch")
        elif raw.strip().lower() == "none" and not rocm:
            yield obs("frameworks.torch.build", "cpu", "CUDA used to build PyTorch")
        elif raw.strip().lower() == _COULD_NOT and not rocm:
            yield obs("frameworks.torch.build", "cpu", "CUDA used to build PyTorch",
                      "collect_env prints 'Could not collect' here only when torch.version.cuda is None")

    if "Is CUDA available" in fields:
        value = fields["Is CUDA available"][1].strip().lower()
        if value in ("true", "yes", "false", "no") and torch_version:
            yield obs("frameworks.torch.cuda_available", value in ("true", "yes"), "Is CUDA available")

    if "OS" in fields:
        text = known(fields["OS"][1])
        if text:
            arch = re.search(r"\((x86_64|aarch64|arm64|amd64|ppc64le|AMD64|64-bit)\)\s*$", text)
            release = text[: arch.start()].strip() if arch else text
            yield obs("host.os_release", release, "OS")
            os = os_from_text(text)
            if os:
                yield obs("host.os", os, "OS")
            if arch and arch.group(1) not in ("64-bit",):
                yield obs("host.arch", {"amd64": "x86_64", "AMD64": "x86_64", "arm64": "arm64"}.get(arch.group(1), arch.group(1)), "OS")
    if "Python version" in fields:
        version = version_in(fields["Python version"][1]) or (re.match(r"\s*(\d+\.\d+)\b", fields["Python version"][1]) or [None, None])[1]
        if version:
            yield obs("host.python", version, "Python version")
    if "Python platform" in fields:
        yield from _platform(fields["Python platform"][1], fields["Python platform"][0])

    if "CUDA runtime version" in fields:
        cuda = major_minor(version_in(known(fields["CUDA runtime version"][1])))
        if cuda:  # collect_env reads it from `nvcc --version`: the toolkit on PATH
            yield obs("cuda_toolkits[0].version", cuda, "CUDA runtime version")
            yield obs("cuda_toolkits[0].on_path", True, "CUDA runtime version")
    if "Nvidia driver version" in fields:
        driver = version_in(known(fields["Nvidia driver version"][1]))
        if driver:
            yield obs("driver.version", driver, "Nvidia driver version")
    if "GPU models and configuration" in fields:
        yield from _gpus(lines, *fields["GPU models and configuration"])
    if "cuDNN version" in fields:
        yield from _cudnn(lines, *fields["cuDNN version"])
    if "Libc version" in fields:
        glibc = re.search(r"glibc-([\d.]+)", fields["Libc version"][1])
        if glibc:
            yield obs("host.glibc", glibc.group(1), "Libc version")


def _platform(text: str, number: int) -> Iterator[Observation]:
    text = text.strip()
    m = re.match(r"Linux-(\S+?)-(x86_64|aarch64|ppc64le)", text)
    if m:
        kernel = m.group(1)
        yield Observation("host.kernel", kernel, number, NAME)
        yield Observation("host.os", "linux", number, NAME)
        if "microsoft-standard" in kernel.lower() or "wsl2" in kernel.lower():
            yield Observation("host.wsl", 2, number, NAME)
        elif kernel.endswith("-Microsoft"):
            yield Observation("host.wsl", 1, number, NAME, "a kernel named '-Microsoft' is WSL 1's")
        yield Observation("host.arch", m.group(2), number, NAME)
    elif text.startswith("Windows-"):
        yield Observation("host.os", "windows", number, NAME)
    elif text.startswith("macOS-") or text.startswith("Darwin-"):
        yield Observation("host.os", "darwin", number, NAME)
        if "arm64" in text:
            yield Observation("host.arch", "arm64", number, NAME)
        # platform.platform() names this Python's own architecture: what MPS needs (arm64, not Rosetta's x86_64)
        mac = re.match(r"macOS-(\d+(?:\.\d+){0,2})-(arm64|x86_64)\b", text)
        if mac:
            yield Observation("host.apple.macos", mac.group(1), number, NAME)
            yield Observation("host.apple.python_arch", mac.group(2), number, NAME)


def _continuation(lines: tuple[str, ...], number: int, first: str) -> list[tuple[int, str]]:
    """The value's own line plus the lines after it up to the next blank line or field."""
    out = [(number, first)] if first.strip() else []
    for offset, line in enumerate(lines[number:number + 64], start=number + 1):
        if not line.strip() or _FIELD.match(line):
            break
        out.append((offset, line))
    return out


def _gpus(lines: tuple[str, ...], number: int, first: str) -> Iterator[Observation]:
    if known(first) is None and first.strip():
        return
    mig: dict[int, int] = {}
    current = None
    if _amd_gpu(first):  # a ROCm build prints the one GPU on the field's own line: "AMD Radeon RX 6700 XT (gfx1031)"
        yield from _amd(0, first.strip(), number)
        return
    for line_number, line in _continuation(lines, number, first):
        m = _GPU_LINE.match(line)
        if m and _amd_gpu(m.group(2)):
            yield from _amd(int(m.group(1)), m.group(2).strip(), line_number)
            continue
        if m:
            current = int(m.group(1))
            yield Observation(f"gpus[{current}].index", current, line_number, NAME)
            yield Observation(f"gpus[{current}].name", m.group(2).strip(), line_number, NAME)
            continue
        if (instance := _MIG_LINE.match(line)) and current is not None:
            mig[current] = mig.get(current, 0) + 1
            yield Observation(f"gpus[{current}].mig_enabled", True, line_number, NAME)
            yield Observation(f"gpus[{current}].mig_instances[]", instance.group(2) or line.strip(), line_number, NAME)
    for index, count in mig.items():
        yield Observation("symptoms[]", {"kind": "mig-instances", "text": f"GPU {index}: {count} MIG instance(s) listed",
                                         "subject": str(count)}, number, NAME)


def _amd_gpu(name: str) -> bool:
    """An AMD GPU, as a ROCm build's collect_env names it: with its gfx target, or by AMD's names."""
    return gfx_target(name) is not None or name.strip().startswith(("AMD ", "Radeon", "AMD Radeon", "AMD Instinct"))


def _amd(index: int, text: str, line: int) -> Iterator[Observation]:
    name = re.sub(r"\s*\(gfx[^)]*\)\s*$", "", text).strip()
    yield Observation(f"amd_gpus[{index}].index", index, line, NAME)
    if name:
        yield Observation(f"amd_gpus[{index}].name", name, line, NAME)
    if gfx_target(text):
        yield Observation(f"amd_gpus[{index}].gfx_target", gfx_target(text), line, NAME)


def _cudnn(lines: tuple[str, ...], number: int, first: str) -> Iterator[Observation]:
    first = first.strip()
    if known(first) is None:
        return
    bare = re.fullmatch(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?", first)
    if bare:  # some releases print torch.backends.cudnn.version()-style numbers
        yield Observation("libraries.libcudnn[]", {"path": None, "version": first}, number, NAME)
        return
    for line_number, line in _continuation(lines, number, first):
        m = _CUDNN_FILE.search(line.strip())
        if not m:
            continue
        path = m.group(1)
        version = re.search(r"libcudnn\.so\.(\d+\.[\d.]+)$", path) or re.search(r"64_(\d+)\.dll$", path)
        yield Observation("libraries.libcudnn[]", {"path": path, "version": version.group(1) if version else None}, line_number, NAME)
