#!/usr/bin/env python3
"""Audit the compatibility matrix against the published wheels (matrix-audit.md grade W, issue 10).

Three steps, the first online, the others offline:

  record    re-read the package index (PyPI's JSON API and each wheel's PEP 658 ``.metadata`` file) and a few small
            files inside one Linux x86_64 wheel per release, read with HTTP range requests on the zip's central
            directory (multi-GB wheels are never downloaded whole); write the raw findings to the fixture
            (tests/data/wheels/pypi.json). Needs network.
  overlay   turn the fixture into matrices/wheels.toml (what the wheels say, per release, with its PyPI source);
            ``--check`` only compares (exit 1 when the file is stale). Offline.
  audit     print every documented matrix row (matrices/torch.toml, tensorflow.toml) that the wheels contradict.
            Offline; exit 1 when a contradiction is not explained by matrices/wheels.toml.

  python tools/audit_wheels.py record            # refresh the evidence (network)
  python tools/audit_wheels.py overlay           # regenerate matrices/wheels.toml from it
  python tools/audit_wheels.py audit             # what the tables say that the wheels do not

What counts: CPython minors with a Linux x86_64 wheel (manylinux*/linux_x86_64; the matrix describes Linux GPU
machines), Requires-Python, the nvidia-* / tensorrt pins of Requires-Dist (torch's own and tensorflow's
``and-cuda`` extra, with the pinned distributions' own wheels, so an extra that cannot install on a Python is
visible), ``torch/version.py`` (cuda) and TensorFlow's ``build_info.py`` (cuda / cudnn).
"""

from __future__ import annotations

import argparse
import json
import re
import struct
import sys
import urllib.request
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterable

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "wheels" / "pypi.json"
OVERLAY = ROOT / "matrices" / "wheels.toml"
INDEX = "https://pypi.org"
REVIEWED = "2026-11-24"

# The frameworks whose every final release is audited, and the files read from one Linux x86_64 wheel of each
# (TensorFlow 1.15 keeps its modules under tensorflow_core/).
FRAMEWORKS = {
    "torch": ("torch/version.py",),
    "tensorflow": ("tensorflow/python/platform/build_info.py", "tensorflow_core/python/platform/build_info.py"),
    "tensorflow-gpu": ("tensorflow/python/platform/build_info.py", "tensorflow_core/python/platform/build_info.py"),
}
# Distributions whose releases are listed (every release: the cuDNN a pin names must exist as a wheel).
LISTED = ("nvidia-cudnn-cu11", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13")
# Requires-Dist lines kept in the fixture: the CUDA-stack pins (the rest of a framework's dependencies is not
# compatibility knowledge of this matrix).
KEEP_REQUIREMENT = re.compile(r"^(nvidia-|tensorrt)", re.I)
_FINAL = re.compile(r"^\d+(\.\d+)*(\.post\d+)?$")
_LINUX_X86 = re.compile(r"^(manylinux\w*_x86_64|linux_x86_64)$")


# ---------------------------------------------------------------------------------------------------------------
# Pure functions over wheel file names and requirements (shared by overlay and audit, and by the tests)


def vkey(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version.split("+")[0].split(".post")[0]))


def wheel_tags(filename: str) -> tuple[str, str, str] | None:
    """'torch-1.13.1-cp310-cp310-manylinux1_x86_64.whl' -> ('cp310', 'cp310', 'manylinux1_x86_64'); None for an sdist.
    Works on the fixture's shortened names ('cp310-cp310-manylinux1_x86_64.whl') too."""
    if not filename.endswith(".whl"):
        return None
    parts = filename[:-4].split("-")
    if len(parts) < 3:
        return None
    return parts[-3], parts[-2], parts[-1]


def linux_pythons(files: Iterable[str]) -> list[str]:
    """CPython minors ('3.11') with a Linux x86_64 wheel among ``files``; 'py3' / 'any' wheels count for none."""
    out: set[str] = set()
    for name in files:
        tags = wheel_tags(name)
        if tags is None:
            continue
        py, _abi, platforms = tags
        if not any(_LINUX_X86.match(p) for p in platforms.split(".")):
            continue
        for tag in py.split("."):
            m = re.fullmatch(r"cp(\d)(\d+)", tag)
            if m:
                out.add(f"{m.group(1)}.{m.group(2)}")
    return sorted(out, key=vkey)


def any_python_wheel(files: Iterable[str]) -> bool:
    """A pure-Python / abi-independent Linux-capable wheel (py3-none-any, py3-none-manylinux...)."""
    for name in files:
        tags = wheel_tags(name)
        if tags and tags[0].startswith("py") and (tags[2] == "any" or any(_LINUX_X86.match(p) for p in tags[2].split("."))):
            return True
    return False


_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?\s*([^;()]*?)\s*\)?\s*(?:;\s*(.*))?$")


def parse_requirement(line: str) -> tuple[str, str, str]:
    """'nvidia-cudnn-cu11 (==8.5.0.96) ; platform_system == "Linux"' -> ('nvidia-cudnn-cu11', '==8.5.0.96', marker)."""
    m = _REQ.match(line)
    if not m:
        return line.strip(), "", ""
    return m.group(1).lower().replace("_", "-"), m.group(2).replace(" ", ""), (m.group(3) or "").strip()


def marker_extra(marker: str) -> str | None:
    m = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
    return m.group(1) if m else None


def marker_linux(marker: str) -> bool:
    """Does a Requires-Dist marker apply on Linux x86_64 (the extra aside)? Conservative: unknown markers apply."""
    if re.search(r"platform_system\s*==\s*['\"](Windows|Darwin)['\"]", marker) or re.search(r"sys_platform\s*==\s*['\"](win32|darwin)['\"]", marker):
        return False
    if re.search(r"platform_machine\s*==\s*['\"](aarch64|arm64|AMD64)['\"]", marker):
        return False
    return True


def exact_pin(spec: str) -> str | None:
    m = re.fullmatch(r"==([\w.+]+)", spec)
    return m.group(1) if m else None


# ---------------------------------------------------------------------------------------------------------------
# record (network)


def _get(url: str, headers: dict[str, str] | None = None, attempts: int = 4) -> bytes:
    last: Exception | None = None
    for _ in range(attempts):
        try:
            req = urllib.request.Request(url, headers={"User-Agent": "gpudoctor-audit-wheels/1", **(headers or {})})
            with urllib.request.urlopen(req, timeout=60) as resp:
                return resp.read()
        except Exception as exc:  # noqa: BLE001 - retried, then raised
            last = exc
    raise RuntimeError(f"{url}: {last}")


def _range(url: str, start: int, end: int) -> bytes:
    data = _get(url, {"Range": f"bytes={start}-{end}"})
    if len(data) != end - start + 1:
        raise RuntimeError(f"{url}: range {start}-{end} gave {len(data)} bytes (no range support?)")
    return data


def zip_members(url: str, size: int, wanted) -> dict[str, str]:
    """Read the members of a remote zip whose names ``wanted(name)`` accepts, with range requests only: the end
    record, the central directory, then each member (a multi-GB wheel is never downloaded whole)."""
    tail_len = min(size, 65536 + 22)
    tail = _range(url, size - tail_len, size - 1)
    eocd = tail.rfind(b"PK\x05\x06")
    if eocd < 0:
        raise RuntimeError(f"{url}: no end-of-central-directory record")
    _sig, _d, _ds, _n1, entries, cd_size, cd_offset, _cl = struct.unpack("<IHHHHIIH", tail[eocd : eocd + 22])
    if cd_offset == 0xFFFFFFFF or cd_size == 0xFFFFFFFF or entries == 0xFFFF:
        loc = tail.rfind(b"PK\x06\x07", 0, eocd)
        if loc < 0:
            raise RuntimeError(f"{url}: zip64 without a locator")
        (z64_offset,) = struct.unpack("<Q", tail[loc + 8 : loc + 16])
        rec = _range(url, z64_offset, z64_offset + 55)
        cd_size, cd_offset = struct.unpack("<QQ", rec[40:56])
    cd = _range(url, cd_offset, cd_offset + cd_size - 1)
    found: dict[str, str] = {}
    pos = 0
    while pos + 46 <= len(cd) and cd[pos : pos + 4] == b"PK\x01\x02":
        (method, _t, _d, _crc, csize, usize, nlen, xlen, clen) = struct.unpack("<HHHIIIHHH", cd[pos + 10 : pos + 34])
        (local,) = struct.unpack("<I", cd[pos + 42 : pos + 46])
        name = cd[pos + 46 : pos + 46 + nlen].decode("utf-8", "replace")
        if wanted(name):
            extra = cd[pos + 46 + nlen : pos + 46 + nlen + xlen]
            if 0xFFFFFFFF in (csize, usize, local):
                n = (len(extra) - 4) // 8
                it = iter(struct.unpack("<" + "Q" * n, extra[4 : 4 + 8 * n]) if extra[:2] == b"\x01\x00" else ())
                usize = next(it) if usize == 0xFFFFFFFF else usize
                csize = next(it) if csize == 0xFFFFFFFF else csize
                local = next(it) if local == 0xFFFFFFFF else local
            head = _range(url, local, local + 29)
            lnlen, lxlen = struct.unpack("<HH", head[26:30])
            start = local + 30 + lnlen + lxlen
            raw = _range(url, start, start + csize - 1) if csize else b""
            data = zlib.decompress(raw, -15) if method == 8 else raw
            found[name] = data.decode("utf-8", "replace")
        pos += 46 + nlen + xlen + clen
    return found


def file_url(url: str) -> str:
    """The index's file URL, absolute (a mirror may answer with '../../packages/packages/<hash path>')."""
    return re.sub(r"^(?:\.\./)+packages/", "https://files.pythonhosted.org/", url)


_KEEP_LINE = re.compile(r"cuda|cudnn|hip|rocm|^__version__|^version|^debug|tensorrt", re.I)


def _trim(text: str) -> list[str]:
    """The lines of version.py / build_info.py that state versions (the rest is license text and helpers)."""
    return [line.rstrip() for line in text.splitlines() if _KEEP_LINE.search(line) and not line.lstrip().startswith("#")][:20]


def _short(project: str, version: str, filename: str) -> str:
    """Drop the '<name>-<version>-' prefix: the fixture keys files by project and version already."""
    stem = re.sub(r"[-_.]+", "_", project).lower()
    m = re.match(rf"(?i){re.escape(stem)}-{re.escape(version)}-(.*)$", filename)
    return m.group(1) if m else filename


def _metadata_file(files: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The Linux x86_64 wheel whose METADATA and contents stand for the release: the newest CPython tag."""
    best = None
    for f in files:
        tags = wheel_tags(f["filename"])
        if not tags or not any(_LINUX_X86.match(p) for p in tags[2].split(".")):
            continue
        m = re.match(r"cp(\d)(\d+)", tags[0])
        key = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        if best is None or key > best[0]:
            best = (key, f)
    return best[1] if best else None


def _parse_metadata(text: str) -> dict[str, Any]:
    requires_python, requires = None, []
    for line in text.splitlines():
        if not line.strip():
            break  # the body (long description) follows the first empty line
        if line.startswith("Requires-Python:"):
            requires_python = line.split(":", 1)[1].strip()
        elif line.startswith("Requires-Dist:"):
            req = line.split(":", 1)[1].strip()
            if KEEP_REQUIREMENT.match(req):
                requires.append(req)
    return {"requires_python": requires_python, "requires_dist": requires}


def _record_release(project: str, version: str, files: list[dict[str, Any]], members: tuple[str, ...]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "files": sorted(_short(project, version, f["filename"]) for f in files if not f.get("yanked")),
        "requires_python": sorted({f["requires_python"] for f in files if f.get("requires_python")}),
    }
    yanked = sorted(_short(project, version, f["filename"]) for f in files if f.get("yanked"))
    if yanked:
        entry["yanked"] = yanked
    chosen = _metadata_file([f for f in files if not f.get("yanked")])
    if chosen is None or not members:
        return entry
    url = file_url(chosen["url"])
    entry["wheel"] = url
    try:
        got = zip_members(url, chosen["size"], lambda n: n in members or re.fullmatch(r"[^/]+\.dist-info/METADATA", n) is not None)
    except RuntimeError as exc:
        entry["error"] = str(exc)
        return entry
    meta = next((t for n, t in got.items() if n.endswith(".dist-info/METADATA")), None)
    if meta is not None:
        entry["metadata"] = _parse_metadata(meta)
    entry["contents"] = {m: _trim(got[m]) for m in members if m in got}
    return entry


def _project(name: str) -> dict[str, Any]:
    return json.loads(_get(f"{INDEX}/pypi/{name}/json"))


def record(out: Path, jobs: int = 8) -> dict[str, Any]:
    projects: dict[str, Any] = {}
    for name, members in FRAMEWORKS.items():
        data = _project(name)
        releases = {v: fs for v, fs in data["releases"].items() if _FINAL.match(v) and fs}
        with ThreadPoolExecutor(jobs) as pool:
            done = dict(zip(releases, pool.map(lambda v: _record_release(name, v, releases[v], members), releases)))
        projects[name] = {"page": f"{INDEX}/project/{name}/", "releases": {v: done[v] for v in sorted(done, key=vkey)}}
        print(f"{name}: {len(done)} releases", file=sys.stderr)
    for name in LISTED:
        data = _project(name)
        projects[name] = {
            "page": f"{INDEX}/project/{name}/",
            "releases": {v: _record_release(name, v, fs, ()) for v, fs in sorted(data["releases"].items(), key=lambda kv: vkey(kv[0])) if fs},
        }
    _record_dependencies(projects)
    fixture = {
        "recorded": REVIEWED,
        "index": INDEX,
        "method": "PyPI JSON API /pypi/<name>/json (files per release), PEP 658 <wheel>.metadata, HTTP range reads of one Linux x86_64 wheel per release",
        "projects": projects,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dump_fixture(fixture))
    return fixture


def _record_dependencies(projects: dict[str, Any]) -> None:
    """The distributions a framework's nvidia-* / tensorrt requirements name: for an exact pin (torch's, the
    and-cuda extra's) the pinned release's files, so "this pin has no wheel for Python X" can be read offline; for
    a range (tensorflow >= 2.16 and-cuda) the newest release in it, i.e. what pip resolves on the recording day."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    pinned: dict[str, set[str]] = {}
    ranged: dict[str, set[str]] = {}
    for name in FRAMEWORKS:
        for rel in projects[name]["releases"].values():
            for req in (rel.get("metadata") or {}).get("requires_dist", []):
                dist, spec, _marker = parse_requirement(req)
                pin = exact_pin(spec)
                if pin:
                    pinned.setdefault(dist, set()).add(pin)
                elif spec:
                    ranged.setdefault(dist, set()).add(spec)
    for dist in sorted(set(pinned) | set(ranged)):
        entry = projects.get(dist) if dist in LISTED else None
        try:
            data = _project(dist)
        except RuntimeError:
            projects[dist] = {"page": f"{INDEX}/project/{dist}/", "releases": {}, "missing": True}
            continue
        wanted = set(pinned.get(dist, ()))
        for spec in ranged.get(dist, ()):
            inside = []
            for v, fs in data["releases"].items():
                try:
                    if fs and not Version(v).is_prerelease and Version(v) in SpecifierSet(spec):
                        inside.append(v)
                except InvalidVersion:
                    continue
            if inside:
                wanted.add(max(inside, key=Version))
        if entry is not None:
            continue  # a listed distribution has every release already
        projects[dist] = {
            "page": f"{INDEX}/project/{dist}/",
            "releases": {v: _record_release(dist, v, data["releases"].get(v, []), ()) for v in sorted(wanted, key=vkey)},
        }


def dump_fixture(fixture: dict[str, Any]) -> str:
    """JSON with one line per release (small, and a re-recording diffs release by release)."""
    lines = ["{"]
    for key in ("recorded", "index", "method"):
        lines.append(f" {json.dumps(key)}: {json.dumps(fixture[key])},")
    lines.append(' "projects": {')
    names = list(fixture["projects"])
    for i, name in enumerate(names):
        project = fixture["projects"][name]
        head = {k: v for k, v in project.items() if k != "releases"}
        lines.append(f"  {json.dumps(name)}: {{" + "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in head.items()) + '"releases": {')
        versions = list(project["releases"])
        for j, version in enumerate(versions):
            comma = "," if j < len(versions) - 1 else ""
            lines.append(f"   {json.dumps(version)}: {json.dumps(project['releases'][version], separators=(',', ':'))}{comma}")
        lines.append("  }}" + ("," if i < len(names) - 1 else ""))
    lines.append(" }")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------------------
# overlay (offline): fixture -> matrices/wheels.toml


def _release_url(project: str, version: str) -> str:
    return f"{INDEX}/project/{project}/{version}/#files"


def _pyset(fixture: dict[str, Any], dist: str, version: str) -> list[str] | None:
    """CPython minors a pinned distribution release installs on (Linux x86_64); None = any Python (pure wheel)."""
    rel = fixture["projects"].get(dist, {}).get("releases", {}).get(version)
    if rel is None:
        return []
    if any_python_wheel(rel["files"]) or any(not f.endswith(".whl") for f in rel["files"]):
        return None  # a pure wheel, or an sdist (which may build anywhere): not "no wheel"
    return linux_pythons(rel["files"])


def _resolve(fixture: dict[str, Any], requirements: list[str], prefix: str) -> str | None:
    """The release of the distribution starting with ``prefix`` that pip installs for these requirements: the pin,
    or the newest final release in the range among those the fixture recorded."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    for req in requirements:
        dist, spec, _m = parse_requirement(req)
        if not dist.startswith(prefix):
            continue
        pin = exact_pin(spec)
        if pin:
            return pin
        best = None
        for v, rel in fixture["projects"].get(dist, {}).get("releases", {}).items():
            try:
                ver = Version(v)
            except InvalidVersion:
                continue
            if rel.get("files") and not ver.is_prerelease and ver in SpecifierSet(spec) and (best is None or ver > best[0]):
                best = (ver, v)
        return best[1] if best else None
    return None


def _torch_cuda(lines: list[str] | None) -> str | None:
    for line in lines or ():
        m = re.match(r"^cuda\s*(?::\s*[\w\[\], ]+)?\s*=\s*['\"]([\d.]+)['\"]", line)
        if m:
            return m.group(1)
    return None


def _tf_build(lines: list[str] | None) -> tuple[str | None, str | None, list[str] | None]:
    """build_info.py: 'cuda_version_number = '10'' (1.x), "'cuda_version': '11.2'" (dict) or "('cuda_version', '12.5.1')"
    (OrderedDict) -> (cuda, cudnn, the configured cuda_compute_capabilities)."""
    cuda = cudnn = None
    arch = None
    for line in lines or ():
        for key, value in re.findall(r"['\"]?(cuda_version|cudnn_version|cuda_version_number|cudnn_version_number)['\"]?\s*[:=,]\s*['\"]([\d.]+)['\"]", line):
            if key.startswith("cuda_"):
                cuda = cuda or value
            else:
                cudnn = cudnn or value
        m = re.search(r"['\"]cuda_compute_capabilities['\"]\s*[:,]\s*\[([^\]]*)\]", line)
        if m and arch is None:
            arch = re.findall(r"['\"]([\w.]+)['\"]", m.group(1))
    return cuda, cudnn, arch


def wheel_entries(fixture: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per audited framework release with a Linux x86_64 wheel: what that wheel says."""
    out = []
    for project in FRAMEWORKS:
        for version, rel in fixture["projects"].get(project, {}).get("releases", {}).items():
            pythons = linux_pythons(rel["files"])
            if not pythons:
                continue
            entry: dict[str, Any] = {"package": project, "version": version, "python": pythons}
            meta = rel.get("metadata") or {}
            if meta.get("requires_python"):
                entry["requires_python"] = meta["requires_python"]
            lines = next(iter((rel.get("contents") or {}).values()), None)
            if project == "torch":
                cuda = _torch_cuda(lines)
                if cuda:
                    entry["cuda"] = cuda
            else:
                cuda, cudnn, arch = _tf_build(lines)
                if cuda:
                    entry["cuda"] = cuda
                if cudnn:
                    entry["cudnn"] = cudnn
                if arch:
                    entry["arch"] = arch
            pins, extra_pins = [], []
            for req in meta.get("requires_dist", []):
                dist, spec, marker = parse_requirement(req)
                if not marker_linux(marker):
                    continue
                text = f"{dist}{spec}"
                (extra_pins if marker_extra(marker) == "and-cuda" else pins if marker_extra(marker) is None else []).append(text)
            if pins:
                entry["pins"] = pins
            cudnn_pin = next((exact_pin(parse_requirement(p)[1]) for p in pins if p.startswith("nvidia-cudnn-cu")), None)
            if cudnn_pin:
                entry["cudnn_pin"] = cudnn_pin
            if extra_pins:
                entry["and_cuda"] = extra_pins
                runtime = _resolve(fixture, extra_pins, "nvidia-cuda-runtime-cu")
                if runtime:
                    entry["and_cuda_cuda"] = ".".join(runtime.split(".")[:2])
                cudnn_got = _resolve(fixture, extra_pins, "nvidia-cudnn-cu")
                if cudnn_got:
                    entry["and_cuda_cudnn"] = cudnn_got
                blocked = {}
                for py in pythons:
                    for req in extra_pins:
                        dist, spec, _m = parse_requirement(req)
                        pin = exact_pin(spec)
                        if pin is None:
                            continue
                        ok = _pyset(fixture, dist, pin)
                        if ok is not None and py not in ok:
                            blocked[py] = f"{dist}=={pin}"
                            break
                if blocked:
                    entry["and_cuda_no_wheel"] = blocked
            entry["source"] = _release_url(project, version)
            if rel.get("wheel"):
                entry["wheel"] = rel["wheel"]
            out.append(entry)
    return out


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def _rows(matrix_dir: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """(package, minor series) -> the documented row (torch.toml / tensorflow.toml read as plain TOML)."""
    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for file, default in (("torch.toml", "torch"), ("tensorflow.toml", "tensorflow")):
        for row in tomllib.loads((matrix_dir / file).read_text()).get("release", []):
            package = row.get("package", default)
            for v in row.get("versions", []):
                rows[(package, ".".join(v.split(".")[:2]))] = row
    return rows


def overlay_entries(fixture: dict[str, Any], matrix_dir: Path | None = None) -> list[dict[str, Any]]:
    """What the wheels say where it differs from or adds to the documented rows: one entry per release of a series
    the tables cover, holding only the fields that differ or add (Pythons, CUDA, the cuDNN pin, the and-cuda
    extra's requirements, what it resolves to, and the Pythons it cannot install on)."""
    rows = _rows(matrix_dir or ROOT / "matrices")
    out = []
    for e in wheel_entries(fixture):
        row = rows.get((e["package"], ".".join(e["version"].split(".")[:2])))
        if row is None:
            continue  # no documented row: nothing to correct (the audit reports it once a row is added)
        keep: dict[str, Any] = {}
        if sorted(row.get("python", []), key=vkey) != e["python"]:
            keep["python"] = e["python"]
        if e["package"] == "torch":
            default = next((v for v in row.get("variant", []) if v.get("tag") == row.get("default_linux")), {})
            if e.get("cuda") and default.get("cuda") and not _same_version(e["cuda"], default["cuda"]):
                keep["cuda"] = e["cuda"]
            if e.get("cudnn_pin") and e["cudnn_pin"] != default.get("cudnn"):
                keep["cudnn_pin"] = e["cudnn_pin"]
        else:
            if e.get("cuda") and row.get("cuda") and not _same_version(e["cuda"], row["cuda"]):
                keep["cuda"] = e["cuda"]
            if e.get("and_cuda"):
                documented = row.get("and_cuda")
                if documented is None or sorted(map(_norm_req, documented)) != sorted(map(_norm_req, e["and_cuda"])):
                    keep["and_cuda"] = e["and_cuda"]
                if any(not exact_pin(parse_requirement(r)[1]) for r in e["and_cuda"]):
                    keep.update({k: e[k] for k in ("and_cuda_cuda", "and_cuda_cudnn") if k in e})
                if e.get("and_cuda_no_wheel"):
                    keep["and_cuda_no_wheel"] = e["and_cuda_no_wheel"]
        if not keep:
            continue
        entry = {"package": e["package"], "version": e["version"], **keep}
        for k in ("requires_python", "source", "wheel"):
            if k in e:
                entry[k] = e[k]
        out.append(entry)
    return out


def render_overlay(fixture: dict[str, Any], matrix_dir: Path | None = None) -> str:
    lines = [
        "# What the published wheels say where it differs from or adds to the documented tables (torch.toml,",
        "# tensorflow.toml): generated by tools/audit_wheels.py from its recorded evidence (tests/data/wheels/pypi.json)",
        "# and those tables. Do not edit by hand: `python tools/audit_wheels.py record` (network) refreshes the",
        "# evidence, `python tools/audit_wheels.py overlay` rewrites this file (run it after editing a [[release]] row",
        "# too); tests/matrix/test_wheels.py fails when this file, the tables and the evidence disagree.",
        "#",
        "# Where a wheel and the table disagree, the wheel is what users get (DESIGN.md rule 3): gpudoctor judges and",
        "# solves with these values, and the table's stay visible (gpudoctor.matrix.tables.wheels; `audit_wheels.py audit`).",
        "#",
        "# python      CPython minors with a Linux x86_64 wheel of that exact release (where the row says otherwise)",
        "# cuda        torch/version.py (torch) or tensorflow/python/platform/build_info.py (TensorFlow) of that wheel",
        "# cudnn_pin   torch: the nvidia-cudnn-cuXX pin of the package-index wheel (the cuDNN it bundles)",
        "# and_cuda    the requirements of tensorflow's `and-cuda` extra; and_cuda_cuda / and_cuda_cudnn: the CUDA runtime",
        "#             and cuDNN pip installs for a range (the newest release in it on the recording day);",
        "#             and_cuda_no_wheel: Python -> the pin that has no wheel for it (the extra cannot install there)",
        "# source      the release's files on PyPI; wheel: the file whose METADATA and contents were read",
        "",
        f'reviewed = "{fixture["recorded"]}"',
        "sources = [" + ", ".join(json.dumps(p["page"]) for n, p in fixture["projects"].items() if n in FRAMEWORKS) + "]",
        'evidence = "tests/data/wheels/pypi.json"',
    ]
    order = ("package", "version", "python", "requires_python", "cuda", "cudnn_pin", "and_cuda", "and_cuda_cuda",
             "and_cuda_cudnn", "and_cuda_no_wheel", "source", "wheel")
    for entry in overlay_entries(fixture, matrix_dir):
        lines.append("")
        lines.append("[[wheel]]")
        for key in order:
            if key in entry:
                lines.append(f"{key} = {_toml_value(entry[key])}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------------------
# audit (offline): documented rows against the wheels


def _tf_arch_expanded(arch: list[str]) -> list[str]:
    """TensorFlow's TF_CUDA_COMPUTE_CAPABILITIES notation: 'compute_XY' builds SASS and PTX for XY, 'sm_XY' SASS only."""
    out = set(arch)
    out.update(f"sm_{a[len('compute_'):]}" for a in arch if a.startswith("compute_"))
    return sorted(out)


def _norm_req(req: str) -> str:
    dist, spec, _m = parse_requirement(req)
    return dist + ",".join(sorted(spec.split(",")))


def _same_version(a: str, b: str) -> bool:
    """'10' and '10.0' agree; '11.8' and '11.2' do not (compared to the shorter one's precision, at most x.y)."""
    ka, kb = vkey(a)[:2], vkey(b)[:2]
    n = max(len(ka), len(kb))
    return ka + (0,) * (n - len(ka)) == kb + (0,) * (n - len(kb))


def contradictions(fixture: dict[str, Any], matrix_dir: Path | None = None) -> list[dict[str, str]]:
    """Every documented row field the wheels contradict: {file, row, field, table, wheels, source}. Reads the
    documented tables as TOML (not through the loader, so that the overlay does not hide what it corrects)."""
    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    directory = matrix_dir or ROOT / "matrices"
    wheels = {(e["package"], e["version"]): e for e in wheel_entries(fixture)}
    found: list[dict[str, str]] = []

    def add(file: str, row: str, field: str, table: Any, wheel: Any, source: str, package: str, version: str | None, series: str) -> None:
        found.append({"file": file, "row": row, "field": field, "table": str(table), "wheels": str(wheel), "source": source,
                      "package": package, "version": version, "series": series})

    torch = tomllib.loads((directory / "torch.toml").read_text())
    for row in torch.get("release", []):
        versions = row.get("versions", [])
        label = f"release {versions[-1] if versions else '?'}"
        seen = [wheels[("torch", v)] for v in versions if ("torch", v) in wheels]
        if not seen:
            continue
        union = sorted({p for e in seen for p in e["python"]}, key=vkey)
        documented = row.get("python", [])
        if sorted(documented, key=vkey) != union:
            add("torch.toml", label, "python", documented, union, seen[-1]["source"], "torch", None, ".".join(versions[-1].split(".")[:2]))
        default = next((v for v in row.get("variant", []) if v.get("tag") == row.get("default_linux")), None)
        for e in seen:
            if default and default.get("cuda") and e.get("cuda") and not _same_version(e["cuda"], default["cuda"]):
                add("torch.toml", f"{label} ({e['version']})", f"variant {default['tag']} (default_linux) cuda", default["cuda"], e["cuda"], e["source"], "torch", e["version"], "")
            if default and default.get("cudnn") and e.get("cudnn_pin") and e["cudnn_pin"] != default["cudnn"]:
                add("torch.toml", f"{label} ({e['version']})", f"variant {default['tag']} (default_linux) cudnn", default["cudnn"], e["cudnn_pin"], e["source"], "torch", e["version"], "")
    tf = tomllib.loads((directory / "tensorflow.toml").read_text())
    for row in tf.get("release", []):
        versions = row.get("versions", [])
        package = row.get("package", "tensorflow")
        label = f"release {versions[-1] if versions else '?'}"
        for v in versions:
            e = wheels.get((package, v))
            if e is None:
                continue
            documented = row.get("python", [])
            if sorted(documented, key=vkey) != e["python"]:
                add("tensorflow.toml", f"{label} ({package} {v})", "python", documented, e["python"], e["source"], package, v, "")
            if e.get("cuda") and row.get("cuda") and not _same_version(e["cuda"], row["cuda"]):
                add("tensorflow.toml", f"{label} ({package} {v})", "cuda", row["cuda"], e["cuda"], e["source"], package, v, "")
            if e.get("arch") and row.get("arch") and sorted(row["arch"]) != _tf_arch_expanded(e["arch"]):
                add("tensorflow.toml", f"{label} ({package} {v})", "arch (build_info.py cuda_compute_capabilities)", row["arch"], e["arch"], e["source"], package, v, "")
            if e.get("and_cuda") and row.get("and_cuda") is not None and sorted(map(_norm_req, row["and_cuda"])) != sorted(map(_norm_req, e["and_cuda"])):
                add("tensorflow.toml", f"{label} ({package} {v})", "and_cuda", row["and_cuda"], e["and_cuda"], e["source"], package, v, "")
            if e.get("and_cuda_no_wheel"):
                add("tensorflow.toml", f"{label} ({package} {v})", "and_cuda (installable)", f"python {documented}",
                    f"no wheel for {e['and_cuda_no_wheel']}", e["source"], package, v, "")
    return found


def load_fixture(path: Path = FIXTURE) -> dict[str, Any]:
    return json.loads(path.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("record", help="re-read the package index into the fixture (network)")
    p.add_argument("--out", type=Path, default=FIXTURE)
    p.add_argument("--jobs", type=int, default=8)
    p = sub.add_parser("overlay", help="write matrices/wheels.toml from the fixture (offline)")
    p.add_argument("--fixture", type=Path, default=FIXTURE)
    p.add_argument("--out", type=Path, default=OVERLAY)
    p.add_argument("--check", action="store_true", help="only compare; exit 1 when the file is stale")
    p.add_argument("--matrices", type=Path, default=ROOT / "matrices")
    p = sub.add_parser("audit", help="print every matrix row the wheels contradict (offline)")
    p.add_argument("--fixture", type=Path, default=FIXTURE)
    p.add_argument("--matrices", type=Path, default=ROOT / "matrices")
    args = parser.parse_args(argv)

    if args.command == "record":
        record(args.out, args.jobs)
        print(f"wrote {args.out}")
        return 0
    fixture = load_fixture(args.fixture)
    if args.command == "overlay":
        text = render_overlay(fixture, args.matrices)
        if args.check:
            same = args.out.exists() and args.out.read_text() == text
            print(f"{args.out}: {'up to date' if same else 'STALE: run python tools/audit_wheels.py overlay'}")
            return 0 if same else 1
        args.out.write_text(text)
        print(f"wrote {args.out}")
        return 0
    found = contradictions(fixture, args.matrices)
    for c in found:
        print(f"{c['file']} {c['row']}: {c['field']}: table says {c['table']}, wheels say {c['wheels']}  [{c['source']}]")
    print(f"{len(found)} contradiction(s) between the documented tables and the published wheels"
          + ("; the overlay matrices/wheels.toml carries the wheels' values" if found else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
