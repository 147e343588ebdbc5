"""matrices/*.toml -> a validated Matrix: read the files, build the rows (row_readers), check them across files, and
add the optional overlays (wheels.toml, known_broken.toml). Only a cache miss runs this (gpudoctor.matrix.tables.cache)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import row_readers as rows
from .gpu_specs import parse_spec_table
from .jax_table import jax_table
from .keras import load_keras_table
from .model import Matrix
from .platforms import load_platforms  # platforms.toml: macOS, aarch64, Jetson, base images
from .reader import Reader, read_toml
from .signatures import parse_signatures  # signatures.toml: what pasted log lines mean
from .rocm import load_rocm  # rocm.toml + amd_gpus.toml: ROCm wheels, AMD GPUs
from .versions import vtuple
from .xid import load_xid  # xid.toml: NVIDIA Xid numbers, meanings, remedies

MATRIX_FILES = ("cuda.toml", "torch.toml", "tensorflow.toml", "cudnn.toml", "gpus.toml", "keras.toml", "jax.toml")


def parse_and_validate(directory: Path) -> Matrix:
    try:
        import tomllib  # novermin: tomli, a dependency below 3.11, stands in there
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    docs: dict[str, dict[str, Any]] = {}
    for name in MATRIX_FILES:
        docs[name] = read_toml(directory / name, tomllib)
    reviewed: dict[str, str] = {}
    sources: dict[str, tuple[str, ...]] = {}
    for name, doc in docs.items():
        r = Reader(name, doc, "")
        reviewed[name] = r.date("reviewed")
        sources[name] = r.urls("sources", required=True)
    cuda = Reader("cuda.toml", docs["cuda.toml"], "")
    torch = Reader("torch.toml", docs["torch.toml"], "")
    tf = Reader("tensorflow.toml", docs["tensorflow.toml"], "")
    cudnn = Reader("cudnn.toml", docs["cudnn.toml"], "")
    gpus = Reader("gpus.toml", docs["gpus.toml"], "")
    jax = jax_table(docs["jax.toml"])
    matrix = Matrix(
        reviewed=min(reviewed.values()),
        sources=sources,
        cuda_majors=tuple(rows.cuda_major(t) for t in cuda.tables("major")),
        cuda_releases=tuple(sorted((rows.cuda_release(t) for t in cuda.tables("release")), key=lambda r: vtuple(r.version))),
        cuda_targets=tuple(sorted((rows.cuda_targets(t) for t in cuda.tables("targets")), key=lambda r: vtuple(r.since))),
        torch=tuple(sorted((rows.torch_release(t) for t in torch.tables("release")), key=lambda r: vtuple(r.latest))),
        torch_index_url=torch.str("index_url"),
        torch_default_windows=torch.str("default_windows"),
        torch_numpy2_since=torch.version("numpy2_since"),
        tf_numpy2_since=tf.version("numpy2_since"),
        tensorflow=tuple(sorted((rows.tf_release(t) for t in tf.tables("release")), key=lambda r: vtuple(r.latest))),
        tf_windows_gpu_last=tf.version("windows_gpu_last"),
        tf_windows_gpu_conda=tf.strs("windows_gpu_conda"),
        tf_wsl_min_windows=tf.str("wsl_min_windows"),
        tf_cudnn_same_minor_through=tf.version("cudnn_same_minor_through", required=False),
        cudnn=tuple(sorted((rows.cudnn_release(t) for t in cudnn.tables("release")), key=lambda r: vtuple(r.version))),
        gpus=tuple(rows.gpu(t) for t in gpus.tables("cc")),
        reviewed_by_file=reviewed,
        keras=load_keras_table(Reader("keras.toml", docs["keras.toml"], "")),
        platforms=load_platforms(directory, tomllib),
        rocm=load_rocm(directory, tomllib),
        gpu_specs=parse_spec_table(docs["gpus.toml"], lambda data, where: Reader("gpus.toml", data, where)),
        xid=load_xid(directory, tomllib),
        jax=jax,
        log_findings=parse_signatures(sig).findings if (sig := read_toml(directory / "signatures.toml", tomllib, required=False)) else (),
    )
    rows.cross_check(matrix)
    return _with_platform_tables(_with_wheels_and_rules(matrix, directory, tomllib), directory, tomllib)


def _with_platform_tables(matrix: Matrix, directory: Path, tomllib) -> Matrix:
    """Add matrices/jetpack.toml, apple.toml and accelerators.toml (each optional), their dates and sources."""
    import dataclasses

    from .platform_tables import load_platform_tables

    tables = load_platform_tables(directory, tomllib)
    return dataclasses.replace(
        matrix, platform_tables=tables, sources={**matrix.sources, **dict(tables.sources)},
        reviewed_by_file={**matrix.reviewed_by_file, **dict(tables.reviewed)},
    )


def _with_wheels_and_rules(matrix: Matrix, directory: Path, tomllib) -> Matrix:
    """Add matrices/wheels.toml (what the published wheels say: the rows' Pythons become the wheels' where they
    differ, the table's stay in ``python_documented``) and matrices/known_broken.toml. Both files are optional."""
    import dataclasses

    from .broken import BROKEN_FILE, parse_rules
    from .wheels import WHEELS_FILE, check_consistent, effective_python, parse_overlay

    docs = {}
    for name in (WHEELS_FILE, BROKEN_FILE):
        doc = read_toml(directory / name, tomllib, required=False)
        if doc is not None:
            docs[name] = doc
    changes: dict[str, Any] = {}
    if WHEELS_FILE in docs:
        overlay = parse_overlay(docs[WHEELS_FILE], lambda data, where: Reader(WHEELS_FILE, data, where))
        check_consistent(overlay)

        def corrected(release, package: str):
            python = effective_python(overlay, package, release.versions, release.python)
            if python == release.python:
                return release
            return dataclasses.replace(release, python=python, python_documented=release.python)

        changes["wheels"] = overlay
        changes["torch"] = tuple(corrected(r, "torch") for r in matrix.torch)
        changes["tensorflow"] = tuple(corrected(r, r.package) for r in matrix.tensorflow)
    if BROKEN_FILE in docs:
        changes["known_broken"] = parse_rules(docs[BROKEN_FILE], lambda data, where: Reader(BROKEN_FILE, data, where))
    return dataclasses.replace(matrix, **changes) if changes else matrix


# ---------------------------------------------------------------------------------------------------------------
