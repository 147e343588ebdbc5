"""Wheel file names in pip's output and commands ("Downloading torch-2.1.0-cp310-cp310-win_amd64.whl", "pip install
https://.../tensorflow-2.15.0-cp311-cp311-macosx_14_0_arm64.whl"): pip takes only wheels built for the interpreter and
platform it runs on, so the tags say the Python, the OS and the architecture. A line where pip refuses the wheel ("is
not a supported wheel on this platform") says the opposite and is left to its signature."""

from __future__ import annotations

import re
from typing import Iterator

from ..document import Document
from ..observation import Observation

NAME = "wheel file name"

# name-version-pythontag-abitag-platformtag.whl (PEP 427); the name's own dashes are underscores in a wheel name
_WHEEL = re.compile(r"\b([A-Za-z0-9][A-Za-z0-9_.]*)-(\d[\w.+!%]*)-(cp\d{2,3}|py3)-(cp\d{2,3}m?|abi3|none)-"
                    r"(macosx_\d+_\d+_(arm64|x86_64|universal2)|win_amd64|(?:many|musl)?linux\w*?_(x86_64|aarch64))\.whl\b")
_REFUSED = "is not a supported wheel"
_FRAMEWORKS = {"torch": "torch", "tensorflow": "tensorflow", "tensorflow_gpu": "tensorflow"}


def read(document: Document) -> Iterator[Observation]:
    lines = document.lines
    for number in document.lines_with(".whl"):
        line = lines[number - 1]
        if _REFUSED in line:
            continue
        m = _WHEEL.search(line)
        if not m:
            continue
        name, python, abi, platform = m.group(1), m.group(3), m.group(4), m.group(5)
        why = f"pip takes the wheel {name}-{m.group(2).replace('%2B', '+')} ({platform}) only on that platform"
        framework = _FRAMEWORKS.get(name.lower())
        if framework:  # what pip fetches is what it installs, unless a later line fails: weaker than a listed version
            yield Observation(f"frameworks.{framework}.version", m.group(2).replace("%2B", "+"), number, NAME, why, stated=True)
        if python.startswith("cp") and abi != "abi3":
            yield Observation("host.python", f"{python[2]}.{python[3:]}", number, NAME, why)
        if platform.startswith("macosx"):
            yield Observation("host.os", "darwin", number, NAME, why)
            if m.group(6) != "universal2":
                yield Observation("host.apple.python_arch", m.group(6), number, NAME, why)
        elif platform == "win_amd64":
            yield Observation("host.os", "windows", number, NAME, why)
            yield Observation("host.arch", "x86_64", number, NAME, why)
        else:
            yield Observation("host.os", "linux", number, NAME, why)
            yield Observation("host.arch", m.group(7), number, NAME, why)
