"""``gpudoctor matrix``: show and query the compatibility matrix, for people (text) and scripts (--json).

    gpudoctor matrix                      what the matrix covers, its reviewed date and sources
    gpudoctor matrix torch 2.7.1          a PyTorch release: Python, CUDA variants, arch lists, cuDNN, torchvision
    gpudoctor matrix tf 2.16              a TensorFlow release: Python, CUDA/cuDNN, arch, Windows, and-cuda, Keras
    gpudoctor matrix cuda 12.8            a CUDA release: drivers, minor-version floor, architectures, who uses it
    gpudoctor matrix cudnn 9.3            a cuDNN release: CUDA builds, compute capabilities
    gpudoctor matrix rocm 6.4             a ROCm release: the torch wheels built for it, their gfx targets, AMD GPUs
    gpudoctor matrix gpu "RTX 4090"       a GPU: compute capability and the newest builds with code for it
    gpudoctor matrix driver 535.104.05    a driver (or a branch: 535, R535): the CUDA it supports
    gpudoctor matrix jax 0.7              JAX releases: Python, CUDA plugin wheels, driver / GPU / cuDNN floors
    gpudoctor matrix keras 2.3.1          a Keras release: the TensorFlow it fits (--tf 2.16: the Keras for a TensorFlow)
    gpudoctor matrix jetpack 6.2          a JetPack release (or L4T r36.4.3): CUDA, cuDNN, TensorRT, NVIDIA's torch builds

Parse, ask gpudoctor.matrix.queries, render (gpudoctor.render.matrix_text, or the answer as JSON), exit. An unknown
release is a one-line error that says which releases the matrix knows, with exit code 2.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable, NoReturn

import click

from ..model import ExitCode

_JSON_SCHEMA = "gpudoctor.matrix/1"


def _load():
    from ..errors import MatrixError
    from ..matrix import load_matrix

    try:
        return load_matrix()
    except MatrixError as exc:
        _fail(f"the compatibility matrix shipped with gpudoctor is broken: {exc}", ExitCode.INTERNAL)


def _fail(message: str, code: ExitCode = ExitCode.USAGE) -> NoReturn:
    from . import fail

    fail(message, code)


def _answer(as_json: bool, ask: Callable[[Any], Any], render: Callable[[Any], list[str]], footer: bool = True) -> None:
    """Ask one query of the matrix and print its answer; an unknown release fails with exit 2."""
    from ..errors import UnknownRelease

    m = _load()
    try:
        answer = ask(m)
    except UnknownRelease as exc:
        _fail(f"{exc}; matrix reviewed {m.reviewed}")
    if as_json:
        click.echo(json.dumps({"schema": _JSON_SCHEMA, "matrix_reviewed": m.reviewed, **dataclasses.asdict(answer)}, indent=2))
        return
    lines = render(answer)
    if footer:
        lines += ["", f"Matrix reviewed {m.reviewed}. Sources: gpudoctor matrix --sources"]
    click.echo("\n".join(lines))


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


@click.group("matrix", invoke_without_command=True)
@json_option
@click.option("--sources", is_flag=True, help="List every matrix file with its reviewed date and source URLs.")
@click.pass_context
def matrix(ctx: click.Context, as_json: bool, sources: bool) -> None:
    """Show and query the compatibility matrix (CUDA, drivers, PyTorch, TensorFlow, Keras, cuDNN, GPUs)."""
    if ctx.invoked_subcommand is not None:
        return
    from ..matrix.queries import summary
    from ..render.matrix_text import summary_lines

    reviewed = _load().reviewed
    _answer(as_json, summary, lambda s: summary_lines(s, reviewed, sources), footer=False)


@matrix.command("torch")
@click.argument("version")
@json_option
def torch_cmd(version: str, as_json: bool) -> None:
    """A PyTorch release ("2.7" or "2.7.1"; "2.7.1+cu128" shows that variant)."""
    from ..matrix.queries import torch_info
    from ..render.matrix_text import torch_lines

    _answer(as_json, lambda m: torch_info(m, version), torch_lines)


@matrix.command("tf")
@click.argument("version")
@json_option
def tf_cmd(version: str, as_json: bool) -> None:
    """A TensorFlow release ("2.16" or "2.16.1")."""
    from ..matrix.queries import tf_info
    from ..render.matrix_text import tf_lines

    _answer(as_json, lambda m: tf_info(m, version), tf_lines)


matrix.add_command(tf_cmd, "tensorflow")


@matrix.command("jax")
@click.argument("version")
@json_option
def jax_cmd(version: str, as_json: bool) -> None:
    """JAX releases of a series ("0.7") or one release ("0.7.2"): Python, the jax[cuda12] / jax[cuda13] plugin
    wheels and the driver, GPU, CUDA and cuDNN they need."""
    from ..matrix.queries.jax_queries import jax_info
    from ..render.matrix_jax import jax_lines

    _answer(as_json, lambda m: jax_info(m, version), jax_lines)


@matrix.command("cuda")
@click.argument("version")
@json_option
def cuda_cmd(version: str, as_json: bool) -> None:
    """A CUDA release ("12.8"): drivers, the minor-version floor, architectures, builds that use it."""
    from ..matrix.queries import cuda_info
    from ..render.matrix_text import cuda_lines

    _answer(as_json, lambda m: cuda_info(m, version), cuda_lines)


@matrix.command("cudnn")
@click.argument("version")
@json_option
def cudnn_cmd(version: str, as_json: bool) -> None:
    """A cuDNN release ("9.3", "8.9.7"): the CUDA builds and compute capabilities of its row."""
    from ..matrix.queries import cudnn_info
    from ..render.matrix_text import cudnn_lines

    _answer(as_json, lambda m: cudnn_info(m, version), cudnn_lines)


@matrix.command("rocm")
@click.argument("version")
@json_option
def rocm_cmd(version: str, as_json: bool) -> None:
    """A ROCm release ("6.4"): the official torch wheels built for it, their gfx targets and the AMD GPUs they run on."""
    from ..matrix.queries.rocm_queries import rocm_info
    from ..render.matrix_rocm import rocm_lines

    _answer(as_json, lambda m: rocm_info(m, version), rocm_lines)


@matrix.command("gpu")
@click.argument("name")
@json_option
def gpu_cmd(name: str, as_json: bool) -> None:
    """A GPU by product name ("RTX 4090", "Tesla V100-SXM2-16GB") or compute capability ("8.9")."""
    from ..matrix.queries import gpu_info
    from ..render.matrix_text import gpu_lines

    _answer(as_json, lambda m: gpu_info(m, name), gpu_lines)


@matrix.command("driver")
@click.argument("version")
@click.option("--windows", is_flag=True, help="A Windows (or WSL2) driver version.")
@json_option
def driver_cmd(version: str, windows: bool, as_json: bool) -> None:
    """A driver version ("535.104.05") or branch ("535", "R535"): the CUDA it supports, natively and through
    minor-version compatibility."""
    from ..matrix.queries import driver_info
    from ..render.matrix_text import driver_lines

    _answer(as_json, lambda m: driver_info(m, version, "windows" if windows else "linux"), driver_lines)


@matrix.command("keras")
@click.argument("version", required=False)
@click.option("--tf", "tf_release", metavar="RELEASE", help="Which Keras a TensorFlow release needs (2.15, 2.16.1).")
@json_option
def keras_cmd(version: str | None, tf_release: str | None, as_json: bool) -> None:
    """A Keras release ("2.3.1", "2.15", "3.5.0"): the TensorFlow it fits; or, with --tf, the Keras to install beside
    a TensorFlow release (and tf-keras with TF_USE_LEGACY_KERAS=1 for Keras 2 code on Keras 3)."""
    from ..matrix.queries import keras_for_tf, keras_info
    from ..render.matrix_text import keras_lines, keras_pin_lines

    if (version is None) == (tf_release is None):
        _fail("matrix keras takes a Keras release or --tf RELEASE (one of them)")
    if tf_release is not None:
        _answer(as_json, lambda m: keras_for_tf(m, tf_release), keras_pin_lines)
    else:
        _answer(as_json, lambda m: keras_info(m, version), keras_lines)


@matrix.command("jetpack")
@click.argument("release")
@json_option
def jetpack_cmd(release: str, as_json: bool) -> None:
    """A JetPack release ("6.2", "5.1.2") or an L4T release ("r36.4.3"): its L4T, CUDA, cuDNN, TensorRT, Python and
    NVIDIA's PyTorch builds for Jetson."""
    from ..matrix.queries.platform_queries import jetpack_info
    from ..render.platform_text import jetpack_lines

    _answer(as_json, lambda m: jetpack_info(m, release), jetpack_lines)
