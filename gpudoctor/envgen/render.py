"""A solver Choice -> the texts of environment.yml, requirements.txt, Dockerfile and a uv pyproject.toml.

All decisions are made here, in Python; the templates (``templates/*.j2``) only loop over and print this data.
jinja2 is imported on first render, so importing this module is cheap.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from functools import cache
from typing import Any, Iterable, Sequence

from gpudoctor import __version__
from gpudoctor.matrix.tables.framework import Framework

FORMATS = ("conda", "pip", "docker", "uv")
FILENAMES = {
    "conda": "environment.yml",
    "pip": "requirements.txt",
    "docker": "Dockerfile",
    "uv": "pyproject-uv.toml",
}
TEMPLATES = {fmt: f"{name}.j2" for fmt, name in FILENAMES.items()}
CONDA_CHANNELS = ("conda-forge", "nodefaults")
# what a ROCm container needs from the host: https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html
ROCM_DEVICES = "--device /dev/kfd --device /dev/dri"

_SMOKE = {
    "torch": "import torch; print('torch', torch.__version__, 'CUDA available:', torch.cuda.is_available())",
    "tensorflow": "import tensorflow as tf; print('tensorflow', tf.__version__, 'GPUs:', tf.config.list_physical_devices('GPU'))",
    "jax": "import jax; print('jax', jax.__version__, 'devices:', jax.devices())",
}
_NAME_OK = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_YAML_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.=<>!~,+\-\[\]* ]*|--[a-z][a-z-]* https?://[^\s#'\"]+")
_REQ_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_YAML_SPECIAL = re.compile(r"(?i)(true|false|yes|no|on|off|y|n|null|~)")


@dataclass(frozen=True)
class FileSet:
    """What to render: the choice for the conda/pip/uv files, and the one for the Dockerfile (a Linux container:
    it differs from ``choice`` when the target is native Windows or macOS)."""

    choice: Any
    name: str
    target_summary: str
    docker_choice: Any = None
    invocation: str | None = None
    docker_target_summary: str | None = None  # when the container's machine differs from the target (Windows, macOS)
    warnings: tuple[str, ...] = ()  # what the target's facts hide (facts_warnings): headed "Warning:" in every file
    docker_image: str | None = None  # the Dockerfile's FROM image when the build needs system CUDA (None: python:X-slim)
    docker_name: str | None = None  # the image name (default: named after what the Dockerfile installs)
    docker_pip_upgrade: str | None = None  # upgrade the base image's apt pip to this requirement first ("pip<21")
    docker_conda_prefix: str | None = None  # docker_image is the conda base: CUDA from conda-forge into this prefix


from .own_install import gpudoctor_requirement  # noqa: E402 - placed where the rule used to be
from .labels import build_label  # noqa: E402 - re-exported: it used to live here


def default_env_name(choice: Any) -> str:
    """ "torch-2.14.1-cu126", "tf-2.21.0-and-cuda", "torch-2.14.1-cpu"."""
    name = f"{Framework.parse(choice.framework).short}-{choice.version}-{choice.variant}"
    return re.sub(r"[^A-Za-z0-9._-]", "-", name)


def check_env_name(name: str) -> str:
    """A name that works as a conda env name, a Docker image name (lower-cased) and a project name."""
    if not _NAME_OK.fullmatch(name) or name[-1] in "._-":
        raise ValueError(
            f"--name {name!r}: use letters, digits, '.', '_' and '-' (starting and ending with a letter or digit)"
        )
    return name


def header_lines(fileset: FileSet, choice: Any, filename: str) -> list[str]:
    """The comment header every file starts with: who wrote it, for which machine, what it installs and why."""
    invocation = fileset.invocation or f"gpudoctor env --framework {choice.framework}"
    lines = [
        f"{filename}: written by gpudoctor {__version__} ({invocation})",
        f"Target machine: {_one_line(fileset.target_summary)}",
    ]
    if filename == FILENAMES["docker"] and fileset.docker_target_summary:
        lines.append(f"The container runs Linux, so it gets its own build, for: {_one_line(fileset.docker_target_summary)}")
    lines.extend(f"Warning: {_one_line(warning)}" for warning in fileset.warnings)
    lines.append(f"Installs: {build_label(choice)}, Python {choice.python}")
    if choice.index_url:
        lines.append(f"Wheel index: {choice.index_url}")
    if choice.conda_packages:
        lines.append(f"From conda-forge: {', '.join(choice.conda_packages)}")
    if choice.variant.endswith("-system") and choice.cuda and not (filename == FILENAMES["docker"] and fileset.docker_image):
        lines.append(f"Needs from the system: CUDA {choice.cuda} and a cuDNN for it (pip installs only the Python packages)")
    for key, value in getattr(choice, "env", ()):
        lines.append(f"Needs in the environment: {key}={value}")
    own = gpudoctor_requirement(choice.python)
    if own:
        lines.append(f"Then install gpudoctor in it (pip install {shlex.quote(own)}), so that `gpudoctor verify` there tests it")
    else:
        lines.append(f"gpudoctor needs Python >= 3.10, so it cannot run inside this Python {choice.python} environment: check it with the smoke test")
    if choice.reasons:
        lines.append("Why:")
        lines.extend(f"  - {_one_line(reason)}" for reason in choice.reasons)
    if choice.notes:
        lines.append("Notes:")
        lines.extend(f"  - {_one_line(note)}" for note in choice.notes)
    skipped = getattr(choice, "skipped", ())
    if skipped:
        lines.append("Not chosen:")
        lines.extend(f"  - {_one_line(why)}" for why in skipped)
    # Each line becomes one comment line in a Dockerfile, requirements.txt, environment.yml and a TOML file: whatever
    # a line quotes (the snapshot's file name in the invocation, a GPU name) must not end it, in any of the four.
    return [comment_text(line) for line in lines]


def comment_text(line: str) -> str:
    """A line safe in a '#' comment of every format gpudoctor writes: no line break of any kind (\\n, \\r, NEL, U+2028)
    and no control character (TOML and YAML refuse them in comments); the indentation is kept."""
    return "".join(ch if ch.isprintable() or ch == " " else "?" for ch in line)


def pip_options(choice: Any) -> list[str]:
    """The index lines pip needs. PyTorch's index mirrors every dependency of its wheels, so it replaces the
    default index (``--index-url``, as pytorch.org's own commands do); an extra index would let the package
    index's build of the same version win."""
    return [f"--index-url {choice.index_url}"] if choice.index_url else []


def requirement_names(requirements: Iterable[str]) -> list[str]:
    """ "tensorflow[and-cuda]==2.21.0" -> "tensorflow" (PEP 508 names; a regex keeps packaging's parser unimported)."""
    names = []
    for req in requirements:
        match = _REQ_NAME.match(req.strip())
        if not match:
            raise ValueError(f"not a requirement: {req!r}")
        names.append(match.group(0))
    return names


def context(fileset: FileSet, fmt: str, choice: Any | None = None) -> dict[str, Any]:
    choice = choice if choice is not None else fileset.choice
    base_image = fileset.docker_image if fmt == "docker" and fileset.docker_image else None
    conda_prefix = fileset.docker_conda_prefix if base_image else None
    apt = bool(base_image) and not conda_prefix  # an nvidia/cuda image: Python from its Ubuntu
    python_cmd = f"{conda_prefix}/bin/python" if conda_prefix else f"python{choice.python}" if apt else "python"
    # A build that loads CUDA from conda packages or the system uses no GPU in a slim image, which has neither
    cuda_missing = fmt == "docker" and not base_image and _is_gpu_build(choice) and _cuda_outside_pip(choice)
    gpu = _is_gpu_build(choice) and not cuda_missing
    requirements = [*choice.packages, *getattr(choice, "pins", ())]
    options = pip_options(choice)
    docker_lines = [" ".join(shlex.quote(part) for part in option.split(" ", 1)) for option in options]
    docker_lines += [shlex.quote(req) for req in requirements]
    own = gpudoctor_requirement(choice.python)
    image = (fileset.docker_name or default_env_name(choice)).lower()
    return {
        "own_requirement": shlex.quote(own) if own else None,
        "base_image": base_image or f"python:{choice.python}-slim",
        "apt_python": f"python{choice.python}" if apt else None,
        "pip_upgrade": shlex.quote(fileset.docker_pip_upgrade) if apt and fileset.docker_pip_upgrade else None,
        "python_cmd": python_cmd,
        "conda_prefix": conda_prefix,
        "conda_install": " ".join(shlex.quote(spec) for spec in (f"python={choice.python}", "pip", *choice.conda_packages)),
        "env_vars": [f"{key}={value}" for key, value in getattr(choice, "env", ())],
        "gpudoctor_version": __version__,
        "header": header_lines(fileset, choice, FILENAMES[fmt]),
        "name": fileset.name,
        "image": image,
        "framework": choice.framework,
        "framework_label": Framework.parse(choice.framework).label,
        "version": choice.version,
        "variant": choice.variant,
        "cuda": choice.cuda,
        "python": choice.python,
        "requires_python": f"=={choice.python}.*",
        "gpu": gpu,
        "no_gpu_reason": (f"This build loads CUDA {choice.cuda} from conda packages or the system, which this image does not have: "
                          "no GPU is used in this container." if cuda_missing else "A CPU build: no GPU is used in this container."),
        "rocm": getattr(choice, "accelerator", None) == "rocm",
        "index_url": choice.index_url,
        "uv_index_name": f"pytorch-{choice.variant}" if choice.framework == "torch" else f"{choice.framework}-{choice.variant}",
        "index_packages": requirement_names(requirements) if choice.index_url else [],
        "pip_options": options,
        "requirements": requirements,
        "conda_packages": list(choice.conda_packages),
        "channels": list(CONDA_CHANNELS),
        "conda_dependencies": [f"python={choice.python}", "pip", *choice.conda_packages],
        "docker_pip_lines": docker_lines,
        "docker_needs_system_cuda": apt,
        "smoke_shell": f"python -c {shlex.quote(_smoke(choice))}",
        "rocm_devices": ROCM_DEVICES,
        "smoke_command": json.dumps([python_cmd, "-c", _smoke(choice)]),
    }


def render(fileset: FileSet, fmt: str) -> str:
    """The text of one file (``fmt`` in FORMATS)."""
    if fmt not in FILENAMES:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    choice = fileset.docker_choice if fmt == "docker" and fileset.docker_choice is not None else fileset.choice
    template = _environment().get_template(TEMPLATES[fmt])
    return template.render(context(fileset, fmt, choice))


def render_files(fileset: FileSet, formats: Sequence[str]) -> dict[str, str]:
    """file name -> text, in the order of ``formats``."""
    return {FILENAMES[fmt]: render(fileset, fmt) for fmt in formats}


def next_commands(fmt: str, path: str, name: str, choice: Any, directory: str = ".", windows: bool = False) -> list[str]:
    """What to run after writing a file (printed by the CLI)."""
    own = gpudoctor_requirement(choice.python)
    after = [f"pip install {shlex.quote(own)}"] if own and fmt in ("conda", "pip", "uv") else []
    env = [f"conda env config vars set {key}=\"{value}\" && conda activate {name}" for key, value in getattr(choice, "env", ())]
    if fmt == "conda":
        return [f"conda env create -f {shlex.quote(path)}", f"conda activate {name}", *env, *after]
    if fmt == "pip":
        conda = [f"conda create -n {name} -c conda-forge python={choice.python} {' '.join(choice.conda_packages)} && conda activate {name}"] if choice.conda_packages else []
        if conda:
            venv = []
        elif windows:
            venv = [f"py -{choice.python} -m venv .venv && .venv\\Scripts\\activate"]
        else:
            venv = [f"python{choice.python} -m venv .venv && . .venv/bin/activate"]
        return [*conda, *venv, f"pip install -r {shlex.quote(path)}", *env, *after]
    if fmt == "docker":
        gpus = ROCM_DEVICES + " " if getattr(choice, "accelerator", None) == "rocm" else "--gpus all " if _is_gpu_build(choice) else ""
        return [f"docker build -t {name.lower()} {shlex.quote(directory)}", f"docker run {gpus}--rm -it {name.lower()}"]
    if fmt == "uv":
        return [f"use {path} as (or merge it into) pyproject.toml, then: uv sync"]
    return []


# ---------------------------------------------------------------------------------------------------------------


def _smoke(choice: Any) -> str:
    """The container's check command; tf.config.list_physical_devices came with TensorFlow 2.1."""
    if choice.framework == "tensorflow" and tuple(int(p) for p in choice.version.split(".")[:2]) < (2, 1):
        return "import tensorflow as tf; print('tensorflow', tf.__version__, 'GPU available:', tf.test.is_gpu_available())"
    return _SMOKE.get(choice.framework, "print('ok')")


def _is_gpu_build(choice: Any) -> bool:
    return choice.variant != "cpu" and (choice.cuda is not None or choice.variant == "and-cuda")


def _cuda_outside_pip(choice: Any) -> bool:
    return bool(choice.conda_packages) or str(choice.variant).endswith("-system")


def _one_line(text: str) -> str:
    """One printable line: whitespace runs (newlines included) collapse to a space, other control characters -> "?"
    (GPU names come from --gpu or a snapshot: untrusted text must not inject lines or escapes into a file)."""
    return "".join(ch if ch.isprintable() else "?" for ch in " ".join(str(text).split()))


one_line = _one_line


def yaml_scalar(value: Any) -> str:
    """A YAML scalar that reads back as the same string: plain when that is unambiguous, else double-quoted
    (a JSON string is a valid YAML double-quoted scalar)."""
    text = str(value)
    if _YAML_PLAIN.fullmatch(text) and not _YAML_SPECIAL.fullmatch(text) and not text.endswith(" "):
        return text
    return json.dumps(text)


def toml_string(value: Any) -> str:
    return json.dumps(str(value))  # a JSON string of printable text is a valid TOML basic string


@cache
def _environment() -> Any:
    import jinja2

    from gpudoctor.resources import templates_dir

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["yaml"] = yaml_scalar
    env.filters["toml"] = toml_string
    return env
