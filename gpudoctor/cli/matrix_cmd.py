"""``gpudoctor matrix``: show and query the compatibility matrix, for people (text) and scripts (--json).

    gpudoctor matrix                      what the matrix covers, its reviewed date and sources
    gpudoctor matrix torch 2.7.1          a PyTorch release: Python, CUDA variants, arch lists, cuDNN, torchvision
    gpudoctor matrix tf 2.16              a TensorFlow release: Python, CUDA/cuDNN, arch, Windows, and-cuda pins
    gpudoctor matrix cuda 12.8            a CUDA release: drivers, minor-version floor, architectures, who uses it
    gpudoctor matrix cudnn 9.3            a cuDNN release: CUDA builds, compute capabilities
    gpudoctor matrix gpu "RTX 4090"       a GPU: compute capability and the newest builds with code for it
    gpudoctor matrix driver 535.104.05    a driver: the CUDA it supports and the newest builds it runs

An unknown version or GPU is a one-line error with exit code 2.
"""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

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


def _emit(as_json: bool, data: dict[str, Any], lines: list[str], matrix) -> None:
    if as_json:
        payload = {"schema": _JSON_SCHEMA, "matrix_reviewed": matrix.reviewed, **data}
        click.echo(json.dumps(payload, indent=2))
    else:
        click.echo("\n".join(lines + ["", f"Matrix reviewed {matrix.reviewed}. Sources: gpudoctor matrix --sources"]))


def _range(items) -> str:
    items = list(items)
    if not items:
        return "none"
    return items[0] if len(items) == 1 else f"{items[0]}–{items[-1]}"


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


@click.group("matrix", invoke_without_command=True)
@json_option
@click.option("--sources", is_flag=True, help="List every matrix file with its reviewed date and source URLs.")
@click.pass_context
def matrix(ctx: click.Context, as_json: bool, sources: bool) -> None:
    """Show and query the compatibility matrix (CUDA, drivers, PyTorch, TensorFlow, cuDNN, GPUs)."""
    if ctx.invoked_subcommand is not None:
        return
    m = _load()
    files = {name: {"reviewed": m.reviewed_by_file.get(name), "sources": list(urls)} for name, urls in m.sources.items()}
    data = {
        "files": files,
        "torch": [r.latest for r in m.torch],
        "tensorflow": [r.latest for r in m.tensorflow],
        "cuda": sorted({r.minor for r in m.cuda_releases}, key=lambda v: tuple(map(int, v.split(".")))),
        "cudnn": [r.version for r in m.cudnn],
        "gpus": {g.cc: list(g.names) for g in m.gpus},
    }
    lines = [f"gpudoctor compatibility matrix, reviewed {m.reviewed}", ""]
    lines.append(f"PyTorch     {len(m.torch)} releases: {m.torch[0].latest} … {m.torch[-1].latest}")
    lines.append(f"TensorFlow  {len(m.tensorflow)} releases: {m.tensorflow[0].latest} … {m.tensorflow[-1].latest}")
    lines.append(f"CUDA        {len(data['cuda'])} minor releases: {data['cuda'][0]} … {data['cuda'][-1]} (minimum drivers, minor-version floors)")
    lines.append(f"cuDNN       {len(m.cudnn)} rows: {m.cudnn[0].version} … {m.cudnn[-1].version}")
    lines.append(f"GPUs        {sum(len(g.names) for g in m.gpus)} product names, compute capability {m.gpus[-1].cc} … {m.gpus[0].cc}")
    if sources:
        lines.append("")
        for name, info in files.items():
            lines.append(f"{name} (reviewed {info['reviewed']}):")
            lines.extend(f"  {url}" for url in info["sources"])
    lines += ["", "Query: gpudoctor matrix torch 2.7.1 | tf 2.16 | cuda 12.8 | cudnn 9.3 | gpu \"RTX 4090\" | driver 535.104.05"]
    if as_json:
        click.echo(json.dumps({"schema": _JSON_SCHEMA, "matrix_reviewed": m.reviewed, **data}, indent=2))
    else:
        click.echo("\n".join(lines))


# -- torch ------------------------------------------------------------------------------------------------------


@matrix.command("torch")
@click.argument("version")
@json_option
def torch_cmd(version: str, as_json: bool) -> None:
    """A PyTorch release ("2.7" or "2.7.1"; "2.7.1+cu128" shows that variant)."""
    from ..matrix.model import local_tag

    m = _load()
    release = m.torch_release(version)
    if release is None:
        _fail(f"torch {version} is not in the matrix (it knows {m.torch[0].latest} to {m.torch[-1].latest}, reviewed {m.reviewed})")
    tag = local_tag(version)
    variants = [v for v in release.variants if tag is None or v.tag == tag]
    if not variants:
        _fail(f"torch {release.series} has no {tag} variant in the matrix (it has {', '.join(v.tag for v in release.variants)})")
    exact = version.split("+")[0] if len(version.split("+")[0].split(".")) >= 3 else release.latest
    rows = []
    for v in variants:
        rows.append(
            {
                "tag": v.tag,
                "cuda": v.cuda,
                "index_url": m.torch_index(v.tag),
                "default_linux": v.tag == release.default_linux,
                "min_driver_linux": m.mvc_floor(int(v.cuda.split(".")[0]), "linux") if v.cuda else None,
                "min_driver_windows": m.mvc_floor(int(v.cuda.split(".")[0]), "windows") if v.cuda else None,
                "full_driver_linux": m.min_driver(v.cuda, "linux") if v.cuda else None,
                "arch": list(v.arch) if v.arch is not None else None,
                "arch_confirmed": v.arch_confirmed if v.arch is not None else None,
                "ptx_linux_only": v.ptx_linux_only,
                "cudnn": v.cudnn,
                "install": f"pip install torch=={exact} {_q(release.torchvision_requirement(exact))} --index-url {m.torch_index(v.tag)}".replace("  ", " "),
            }
        )
    data = {
        "framework": "torch",
        "series": release.series,
        "versions": list(release.versions),
        "released": release.released,
        "python": list(release.python),
        "python_experimental": list(release.python_experimental),
        "default_linux": release.default_linux,
        "default_windows": m.torch_default_windows,
        "torchvision": release.torchvision_requirement(exact),
        "torchaudio": release.torchaudio_requirement(exact),
        "rocm": release.rocm,
        "variants": rows,
        "sources": list(m.sources["torch.toml"]) + list(release.sources),
    }
    lines = [
        f"torch {release.series} ({', '.join(release.versions)}), released {release.released or '?'}",
        f"  Python          {_range(release.python)}" + (f" ({', '.join(release.python_experimental)} experimental)" if release.python_experimental else ""),
        f"  plain pip       Linux: {release.default_linux}, Windows: {m.torch_default_windows}",
        f"  torchvision     {data['torchvision'] or 'not confirmed'}    torchaudio {data['torchaudio'] or 'none'}    ROCm {release.rocm or '?'}",
        "  variants:",
    ]
    for r in rows:
        flags = " (default on Linux)" if r["default_linux"] else ""
        lines.append(f"    {r['tag']:<6} CUDA {r['cuda'] or '-':<5} driver >= {r['min_driver_linux']} Linux / {r['min_driver_windows']} Windows{flags}")
        arch = " ".join(r["arch"]) if r["arch"] else "unknown"
        if r["arch"] and not r["arch_confirmed"]:
            arch += "  (unconfirmed: from conda packages)"
        if r["ptx_linux_only"]:
            arch += "  (PTX on Linux only)"
        lines.append(f"           arch {arch}")
        if r["cudnn"]:
            lines.append(f"           cuDNN {r['cudnn']}")
        lines.append(f"           {r['install']}")
    _emit(as_json, data, lines, m)


def _q(requirement: str | None) -> str:
    if not requirement:
        return ""
    return f"'{requirement}'" if any(c in requirement for c in "[]<>*") else requirement


# -- tensorflow -------------------------------------------------------------------------------------------------


@matrix.command("tf")
@click.argument("version")
@json_option
def tf_cmd(version: str, as_json: bool) -> None:
    """A TensorFlow release ("2.16" or "2.16.1")."""
    m = _load()
    release = m.tf_release(version)
    if release is None:
        _fail(f"tensorflow {version} is not in the matrix (it knows {m.tensorflow[0].latest} to {m.tensorflow[-1].latest}, reviewed {m.reviewed})")
    exact = version if len(version.split(".")) >= 3 else release.latest
    major = int(release.cuda.split(".")[0])
    install = f"pip install 'tensorflow[and-cuda]=={exact}'" if release.has_and_cuda else f"pip install {release.package}=={exact}"
    data = {
        "framework": "tensorflow",
        "series": release.series,
        "versions": list(release.versions),
        "python": list(release.python),
        "cuda": release.cuda,
        "cudnn": release.cudnn,
        "min_driver_linux": m.mvc_floor(major, "linux") if major >= 11 else m.min_driver(release.cuda, "linux"),
        "min_driver_windows": m.mvc_floor(major, "windows") if major >= 11 else m.min_driver(release.cuda, "windows"),
        "arch": list(release.arch) if release.arch is not None else None,
        "arch_confirmed": release.arch_confirmed if release.arch is not None else None,
        "windows_native_gpu": release.windows_gpu,
        "windows_python": list(release.windows_python),
        "and_cuda": list(release.and_cuda),
        "install": install,
        "sources": list(m.sources["tensorflow.toml"]) + list(release.sources),
    }
    lines = [
        f"tensorflow {release.series} ({', '.join(release.versions)})",
        f"  Python          {_range(release.python)}",
        f"  tested build    CUDA {release.cuda}, cuDNN {release.cudnn}; driver >= {data['min_driver_linux']} Linux / {data['min_driver_windows']} Windows",
        "  arch            " + (" ".join(release.arch) + ("" if release.arch_confirmed else "  (documented list, not read from the wheel)") if release.arch else "unknown"),
        "  native Windows  " + (f"GPU supported (Python {_range(release.windows_python)})" if release.windows_gpu else "CPU only: use WSL2 for the GPU"),
    ]
    if release.has_and_cuda:
        lines.append("  and-cuda        " + "\n                  ".join(release.and_cuda))
    else:
        lines.append("  and-cuda        none (from 2.14): install CUDA and cuDNN yourself")
    lines.append(f"  install (Linux) {install}")
    _emit(as_json, data, lines, m)


matrix.add_command(tf_cmd, "tensorflow")


# -- cuda -------------------------------------------------------------------------------------------------------


@matrix.command("cuda")
@click.argument("version")
@json_option
def cuda_cmd(version: str, as_json: bool) -> None:
    """A CUDA release ("12.8"): drivers, the minor-version floor, architectures, builds that use it."""
    from ..matrix.model import try_vtuple, vtuple

    m = _load()
    parts = try_vtuple(version)
    if parts is None or not m.knows_cuda(version):
        _fail(f"CUDA {version} is not in the matrix (it knows {m.cuda_releases[0].minor} to {m.newest_cuda()}, reviewed {m.reviewed})")
    minor = f"{parts[0]}.{parts[1] if len(parts) > 1 else 0}"
    releases = m.cuda_minor_releases(minor)
    targets = m.cuda_targets_for(minor)
    floor = m.cuda_major(parts[0])
    want = vtuple(minor)[:2]
    torch_builds = [f"{r.latest}+{v.tag}" for r in m.torch for v in r.variants if v.cuda and vtuple(v.cuda)[:2] == want]
    tf_builds = [r.latest for r in m.tensorflow if vtuple(r.cuda)[:2] == want]
    data = {
        "cuda": minor,
        "releases": [{"version": r.version, "label": r.label, "linux": r.linux, "windows": r.windows, "branch": r.branch} for r in releases],
        "min_driver_linux": m.min_driver(minor, "linux"),
        "min_driver_windows": m.min_driver(minor, "windows"),
        "minor_version_floor": {"linux": floor.linux_floor, "windows": floor.windows_floor} if floor else None,
        "compute_capabilities": {"min": targets.min_cc, "max": targets.max_cc, "note": targets.note} if targets else None,
        "torch_builds": torch_builds,
        "tensorflow_builds": tf_builds,
        "sources": list(m.sources["cuda.toml"]),
    }
    lines = [f"CUDA {minor}"]
    for r in releases:
        lines.append(f"  {r.label:<18} driver >= {r.linux} Linux / {r.windows or (f'R{r.branch}' if r.branch else 'N/A')} Windows")
    if floor:
        lines.append(
            f"  minor-version compatibility: any CUDA {parts[0]}.x runs on driver >= {floor.linux_floor} Linux / {floor.windows_floor} Windows "
            "(limited feature set; no JIT of newer PTX)"
        )
    else:
        lines.append("  no minor-version compatibility before CUDA 11: the driver must be at least the release's own")
    if targets:
        lines.append(f"  compiles for compute capability {targets.min_cc} … {targets.max_cc}" + (f" ({targets.note})" if targets.note else ""))
    lines.append(f"  torch builds       {', '.join(torch_builds) or 'none'}")
    lines.append(f"  tensorflow builds  {', '.join(tf_builds) or 'none'}")
    _emit(as_json, data, lines, m)


# -- cudnn ------------------------------------------------------------------------------------------------------


@matrix.command("cudnn")
@click.argument("version")
@json_option
def cudnn_cmd(version: str, as_json: bool) -> None:
    """A cuDNN release ("9.3", "8.9.7"): the CUDA builds and compute capabilities of its row."""
    m = _load()
    row = m.cudnn_release(version)
    if row is None:
        _fail(f"cuDNN {version} is not in the matrix (it covers {m.cudnn[0].first or m.cudnn[0].version} and newer)")
    data = {
        "cudnn": version,
        "row": row.version,
        "cuda": [f"{lo}-{hi}" for lo, hi in row.cuda],
        "cc_min": row.cc_min,
        "cc_max": row.cc_max,
        "note": row.note,
        "sources": list(m.sources["cudnn.toml"]) + list(row.sources),
    }
    lines = [
        f"cuDNN {version} (matrix row {row.version})",
        f"  CUDA builds     {', '.join(data['cuda']) or 'see the support matrix'}",
        f"  compute capability {row.cc_min or '?'} … {row.cc_max or 'newest'}",
    ]
    if row.note:
        lines.append(f"  note            {row.note}")
    _emit(as_json, data, lines, m)


# -- gpu --------------------------------------------------------------------------------------------------------


@matrix.command("gpu")
@click.argument("name")
@json_option
def gpu_cmd(name: str, as_json: bool) -> None:
    """A GPU by product name ("RTX 4090", "Tesla V100-SXM2-16GB") or compute capability ("8.9")."""
    from ..matrix.model import arch_support, try_vtuple

    m = _load()
    model = m.gpu_by_name(name)
    if model is None and try_vtuple(name) is not None and "." in name:
        model = next((g for g in m.gpus if g.cc == name), None)
    if model is None:
        _fail(f"GPU {name!r} is not in the matrix's GPU table (try the compute capability, e.g. 8.9)")
    cc = model.cc
    newest_torch = None
    for r in reversed(m.torch):
        hits = [v for v in r.variants if v.arch and v.arch_confirmed and arch_support(v.arch, cc)]
        if hits:
            best = sorted(hits, key=lambda v: (arch_support(v.arch, cc) == "sass", v.tag == r.default_linux))[-1]
            newest_torch = {"version": r.latest, "variant": best.tag, "cuda": best.cuda, "code": arch_support(best.arch, cc)}
            break
    newest_tf = None
    for r in reversed(m.tensorflow):
        if r.arch and r.arch_confirmed and arch_support(r.arch, cc):
            newest_tf = {"version": r.latest, "cuda": r.cuda, "code": arch_support(r.arch, cc)}
            break
    targets = [t for t in m.cuda_targets if t.min_cc and try_vtuple(t.min_cc) <= try_vtuple(cc) <= try_vtuple(t.max_cc)]
    data = {
        "query": name,
        "compute_capability": cc,
        "architecture": model.architecture,
        "names": list(model.names),
        "cuda_toolkits": f"{targets[0].since}+" if targets else None,
        "newest_torch": newest_torch,
        "newest_tensorflow": newest_tf,
        "sources": list(m.sources["gpus.toml"]),
    }
    lines = [
        f"{name}: compute capability {cc} ({model.architecture})",
        f"  same row        {', '.join(model.names)}",
    ]
    if targets:
        last = targets[-1]
        upto = " and newer" if last is m.cuda_targets[-1] else f" up to (not including) {m.cuda_targets[m.cuda_targets.index(last) + 1].since}"
        lines.append(f"  CUDA toolkits   {targets[0].since}{upto} can compile for it")
    if newest_torch:
        code = "native code" if newest_torch["code"] == "sass" else "PTX JIT only"
        lines.append(f"  newest torch    {newest_torch['version']}+{newest_torch['variant']} ({code})")
    else:
        lines.append("  newest torch    none with code for it")
    if newest_tf:
        code = "native code" if newest_tf["code"] == "sass" else "PTX JIT only"
        lines.append(f"  newest TF       {newest_tf['version']} ({code})")
    else:
        lines.append("  newest TF       none with code for it")
    _emit(as_json, data, lines, m)


# -- driver -----------------------------------------------------------------------------------------------------


@matrix.command("driver")
@click.argument("version")
@click.option("--windows", is_flag=True, help="A Windows (or WSL2) driver version.")
@json_option
def driver_cmd(version: str, windows: bool, as_json: bool) -> None:
    """A driver version ("535.104.05"): the CUDA it supports, natively and through minor-version compatibility."""
    from ..matrix.model import try_vtuple, version_ge

    m = _load()
    if try_vtuple(version) is None:
        _fail(f"{version!r} is not a driver version (e.g. 535.104.05)")
    os = "windows" if windows else "linux"
    cuda = m.driver_cuda(version, os)
    mvc = [f"{c.major}.x" for c in m.cuda_majors if c.floor(os) and version_ge(version, c.floor(os))]
    data = {"driver": version, "os": os, "cuda": cuda, "minor_version_compatible": sorted(mvc), "sources": list(m.sources["cuda.toml"])}
    lines = [
        f"driver {version} ({os}): supports CUDA {cuda or 'older than the matrix knows'}",
        f"  runs every CUDA {', '.join(sorted(mvc)) or 'none'} build through minor-version compatibility",
    ]
    _emit(as_json, data, lines, m)
