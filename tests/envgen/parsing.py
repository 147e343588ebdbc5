"""Parsers for the generated files, shared by the envgen tests: each file must read back as what was meant."""

from __future__ import annotations

import shlex
import tomllib

import yaml
from packaging.requirements import Requirement


def requirements_file(text: str) -> tuple[list[str], list[Requirement]]:
    """(pip option lines such as "--index-url URL", requirements), parsed as pip reads a requirements file."""
    options: list[str] = []
    requirements: list[Requirement] = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        if line.startswith("-"):
            options.append(line)
        else:
            requirements.append(Requirement(line))
    return options, requirements


def dockerfile_pip(text: str) -> tuple[list[str], list[Requirement], str]:
    """The `RUN python -m pip install ...` instruction of a Dockerfile -> (options, requirements, FROM image)."""
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        if not pending and raw.lstrip().startswith("#"):
            continue
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        logical.append(pending + raw)
        pending = ""
    images = [line.split()[1] for line in logical if line.startswith("FROM ")]
    runs = [line[len("RUN "):] for line in logical if line.startswith("RUN ") and "pip install" in line]
    assert len(runs) == 1, runs
    argv = shlex.split(runs[0])
    assert argv[:4] == ["python", "-m", "pip", "install"], argv
    args = argv[4:]
    options: list[str] = []
    requirements: list[Requirement] = []
    i = 0
    while i < len(args):
        if args[i] in ("--index-url", "--extra-index-url", "-i"):
            options.append(f"{args[i]} {args[i + 1]}")
            i += 2
        elif args[i].startswith("-"):
            options.append(args[i])
            i += 1
        else:
            requirements.append(Requirement(args[i]))
            i += 1
    assert len(images) == 1, images
    return options, requirements, images[0]


def environment_yml(text: str) -> dict:
    data = yaml.safe_load(text)
    assert isinstance(data, dict), data
    return data


def conda_pip_section(data: dict) -> tuple[list[str], list[Requirement]]:
    pip = [d["pip"] for d in data["dependencies"] if isinstance(d, dict)]
    assert len(pip) == 1, data
    options = [line for line in pip[0] if line.startswith("-")]
    requirements = [Requirement(line) for line in pip[0] if not line.startswith("-")]
    return options, requirements


def uv_pyproject(text: str) -> dict:
    return tomllib.loads(text)


def pins(requirements: list[Requirement]) -> dict[str, str]:
    """name (with extras) -> exact version; asserts every requirement is an exact == pin."""
    out = {}
    for req in requirements:
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{req} is not an exact pin"
        key = req.name + (f"[{','.join(sorted(req.extras))}]" if req.extras else "")
        out[key] = specs[0].version
    return out
