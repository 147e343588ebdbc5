"""Parsers for the generated files, shared by the envgen tests: each file must read back as what was meant."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

try:
    import tomllib  # novermin: tomli stands in below 3.11
except ModuleNotFoundError:  # Python 3.10: the uv file is then not parsed back
    tomllib = None
try:
    import tomllib as toml_reader  # novermin: tomli stands in below 3.11
except ModuleNotFoundError:  # Python 3.10: tomli, a dependency there (pyproject), reads the matrices
    import tomli as toml_reader

import yaml
from packaging.requirements import Requirement

from gpudoctor import __version__
from gpudoctor.envgen.render import default_env_name


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
    # an old base image's apt pip is upgraded first (`python3.7 -m pip install --upgrade pip`): not a requirement
    runs = [run for run in runs if not (shlex.split(run)[4:5] == ["--upgrade"] and Requirement(shlex.split(run)[5]).name == "pip")]
    assert 1 <= len(runs) <= 2, runs
    args = []
    for run in runs:  # the framework, then gpudoctor itself
        argv = shlex.split(run)
        assert Path(argv[0]).name.startswith("python") and argv[1:4] == ["-m", "pip", "install"], argv
        args += argv[4:]
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


def uv_pyproject(text: str) -> dict | None:
    return tomllib.loads(text) if tomllib is not None else None


def pins(requirements: list[Requirement]) -> dict[str, str]:
    """name (with extras) -> exact version ("<3.21" for a cap on a dependency, Choice.pins); asserts every
    requirement is an exact == pin or such a cap."""
    out = {}
    for req in requirements:
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator in ("==", "<"), f"{req} is not an exact pin"
        key = req.name + (f"[{','.join(sorted(req.extras))}]" if req.extras else "")
        out[key] = specs[0].version if specs[0].operator == "==" else f"<{specs[0].version}"
    return out


def own(choice) -> list[str]:
    """gpudoctor is never a line of the files (the package index does not serve it, and one unresolvable line makes
    pip refuse the whole file): it is installed as a separate step, printed in the file's header and next steps."""
    return []


def assert_files_mean(files: dict[str, str], choice, docker_choice=None, name=None, docker_image=None):
    """Every generated file parses and installs exactly ``choice`` (the Dockerfile: ``docker_choice``), plus
    gpudoctor itself where the environment's Python runs it (from the default index only: never through PyTorch's)."""
    expected_options = [f"--index-url {choice.index_url}"] if choice.index_url else []
    in_pip = [] if choice.index_url else own(choice)
    expected_pins = pins([Requirement(p) for p in (*choice.packages, *choice.pins, *in_pip)])
    for filename, text in files.items():
        assert text.startswith("# ") and text.endswith("\n") and not text.endswith("\n\n")
        assert text.splitlines()[0].startswith(f"# {filename}: written by gpudoctor {__version__}")
        installs = (docker_choice or choice) if filename == "Dockerfile" else choice
        for line in (*installs.reasons, *installs.notes, *installs.skipped):  # the explanation heads every file
            assert f"#   - {' '.join(line.split())}\n" in text
    if "environment.yml" in files:
        data = environment_yml(files["environment.yml"])
        assert data["name"] == (name or default_env_name(choice))
        assert data["channels"][0] == "conda-forge"
        deps = [d for d in data["dependencies"] if isinstance(d, str)]
        assert deps[:2] == [f"python={choice.python}", "pip"]
        assert deps[2:] == list(choice.conda_packages)
        options, requirements = conda_pip_section(data)
        assert options == expected_options
        assert pins(requirements) == expected_pins
    if "requirements.txt" in files:
        options, requirements = requirements_file(files["requirements.txt"])
        assert options == expected_options
        assert pins(requirements) == expected_pins
        assert [str(r) for r in requirements] == [str(Requirement(p)) for p in (*choice.packages, *choice.pins, *in_pip)]
    if "Dockerfile" in files:
        docker = docker_choice or choice
        options, requirements, image = dockerfile_pip(files["Dockerfile"])
        assert image == (docker_image or f"python:{docker.python}-slim")
        assert options == ([f"--index-url {docker.index_url}"] if docker.index_url else [])
        assert pins(requirements) == pins([Requirement(p) for p in (*docker.packages, *docker.pins, *own(docker))])
        assert base_image_status(image) == "available", f"Dockerfile FROM {image}: {base_image_status(image)}"
        gpu = dockerfile_uses_gpu(image, options, requirements, conda_packages(files["Dockerfile"]))
        assert ("docker run --gpus all" in files["Dockerfile"]) == gpu
        assert ("NVIDIA Container Toolkit" in files["Dockerfile"]) == gpu
        if docker is choice and "requirements.txt" in files:  # the same pins as requirements.txt
            r_options, r_requirements = requirements_file(files["requirements.txt"])
            assert (options, sorted(map(str, requirements))) == (r_options, sorted(map(str, [*r_requirements, *map(Requirement, own(choice) if choice.index_url else [])])))
    data = uv_pyproject(files["pyproject-uv.toml"]) if "pyproject-uv.toml" in files else None
    if data is not None:
        assert data["project"]["requires-python"] == f"=={choice.python}.*"
        assert data["project"]["dependencies"] == [*choice.packages, *choice.pins, *own(choice)]
        if choice.index_url:
            (index,) = data["tool"]["uv"]["index"]
            assert index["url"] == choice.index_url and index["explicit"] is True
            sources = data["tool"]["uv"]["sources"]
            assert set(sources) == {Requirement(p).name for p in choice.packages}  # gpudoctor: the default index
            assert all(src == [{"index": index["name"]}] for src in sources.values())
        else:
            assert "tool" not in data


MATRICES = Path(__file__).resolve().parents[2] / "matrices"
TORCH_INDEX = re.compile(r"--index-url https://download\.pytorch\.org/whl/(cu\d+|cpu)$")


def base_image_status(image: str) -> str:
    """A Dockerfile's FROM image -> its status in matrices/ ("available", "deleted", ...), read from the TOML files
    themselves: every nvidia/cuda, conda and ROCm base image must be a row there. python:X-slim (Docker's official
    Python images, whose tags are kept after the Python's end of life) is the one base with no row."""
    if re.fullmatch(r"python:\d+\.\d+-slim", image):
        return "available"
    platforms = toml_reader.loads((MATRICES / "platforms.toml").read_text())
    rows = [*platforms["cuda_image"], platforms["conda_image"], *toml_reader.loads((MATRICES / "rocm.toml").read_text())["image"]]
    statuses = [row["status"] for row in rows if row["image"] == image]
    return statuses[0] if statuses else "not in matrices/"


def conda_packages(dockerfile: str) -> list[str]:
    """The conda specs a Dockerfile's `micromamba install` line installs ([] when it has none)."""
    text = dockerfile.replace("\\\n", " ")
    lines = [line for line in text.splitlines() if line.startswith("RUN micromamba install ")]
    assert len(lines) <= 1, lines
    if not lines:
        return []
    argv = shlex.split(lines[0][len("RUN "):].split("&&")[0])
    return [a for a in argv[2:] if not a.startswith("-") and argv[argv.index(a) - 1] not in ("-n", "-c")]


def dockerfile_uses_gpu(image: str, options: list[str], requirements: list[Requirement], conda: list[str] = ()) -> bool:
    """Whether a Dockerfile's environment can use an NVIDIA GPU, read from what it installs, not from the plan: an
    nvidia/cuda base image (its tag one of matrices/platforms.toml's cuda_image rows, the system CUDA the wheel loads),
    a PyTorch index of a CUDA variant, TensorFlow's CUDA distributions (`tensorflow[and-cuda]`, `tensorflow-gpu`), or
    the package-index torch whose default Linux wheel (torch.toml `default_linux`, read from the wheel) is a CUDA one,
    or a conda base image whose `micromamba install` puts conda-forge's cudatoolkit in (``conda``)."""
    if any(spec.split("=")[0] == "cudatoolkit" for spec in conda):
        return True
    if image.startswith("nvidia/cuda:"):
        images = {row["image"] for row in toml_reader.loads((MATRICES / "platforms.toml").read_text())["cuda_image"]}
        assert image in images, f"{image} is not an nvidia/cuda image the matrix lists"
        return True
    index = next((m.group(1) for o in options if (m := TORCH_INDEX.match(o))), None)
    if index is not None:
        return index != "cpu"
    names = {r.name: r for r in requirements}
    if "tensorflow-gpu" in names or "and-cuda" in getattr(names.get("tensorflow"), "extras", ()):
        return True
    if "torch" in names:
        (pin,) = [s.version for s in names["torch"].specifier]
        rows = toml_reader.loads((MATRICES / "torch.toml").read_text())["release"]
        (row,) = [r for r in rows if pin in r["versions"]]
        return row["default_linux"].startswith("cu")
    return False
