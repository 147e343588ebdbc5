"""Every TensorFlow row reviewed on 2026-11-24 (1.0-2.3, the Python of 2.11) against its recorded sources in
tests/data/sources/tensorflow/: the tested build configuration tables (tensorflow/docs), the wheel file lists of
PyPI, and the fatbinary scan of the wheels (tools/scan_fatbin.py). The expectations are read from those files,
never re-typed from the TOML."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.model import vtuple

M = load_matrix()
SOURCES = Path(__file__).resolve().parents[1] / "data" / "sources" / "tensorflow"
REVIEWED = "2026-11-24"
ROWS = [r for r in M.tensorflow if r.reviewed == REVIEWED]
NEW_SERIES = [f"1.{n}" for n in range(16)] + ["2.0", "2.1", "2.2", "2.3"]
# 2.11: its arch/sources row was reviewed again for audit #11 (2.11.1 has no cp37: matrices/wheels.toml)


def _series(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _wheels() -> dict[str, dict[str, list[tuple[str, int]]]]:
    data = json.loads((SOURCES / "pypi-wheels.json").read_text())
    return {pkg: {v: [tuple(f) for f in files] for v, files in rel.items()} for pkg, rel in data["packages"].items()}


WHEELS = _wheels()


def _pythons(files, platform: str) -> tuple[str, ...]:
    """cp36 -> "3.6" for the wheels of one platform ("manylinux" / "win")."""
    out = set()
    for name, _size in files:
        parts = name[: -len(".whl")].split("-")
        if parts[-1].startswith(platform):
            tag = parts[-3]
            out.add(f"{tag[2]}.{tag[3:]}")
    return tuple(sorted(out, key=vtuple))


def _linux_size(files, tag: str) -> int | None:
    return next((size for name, size in files if f"-{tag}-" in name and "manylinux" in name), None)


def _table(name: str) -> list[list[str]]:
    rows, current = [], None
    for line in (SOURCES / "tested-build-configurations.txt").read_text().splitlines():
        if line.startswith("["):
            current = line.strip("[]")
        elif line.startswith("<tr>") and current == name:
            rows.append(re.findall(r"<td>(.*?)</td>", line))
    return rows


def _doc_pythons(cell: str) -> tuple[str, ...]:
    """"2.7, 3.3-3.7" -> ("2.7", "3.3", "3.4", "3.5", "3.6", "3.7")."""
    out = []
    for part in cell.split(","):
        lo, _, hi = part.strip().partition("-")
        if not hi:
            out.append(lo)
            continue
        major, a, b = vtuple(lo)[0], vtuple(lo)[1], vtuple(hi)[1]
        out += [f"{major}.{m}" for m in range(a, b + 1)]
    return tuple(out)


def _doc_version(cell: str) -> str:
    """"tensorflow_gpu-1.14.0" / "tensorflow-2.3.0" -> "1.14.0"."""
    return cell.split("-", 1)[1]


def _cuda(cell: str) -> str:
    """The table writes "8", "9", "10" for 8.0, 9.0, 10.0."""
    return cell if "." in cell else f"{cell}.0"


def _scan() -> dict[str, dict]:
    path = SOURCES / "fatbin-scan.json"
    return {entry["wheel"]: entry for entry in json.loads(path.read_text())["wheels"]}


SCAN = _scan()


def _wheel_version(name: str) -> tuple[str, str]:
    dist, version = name.split("-")[:2]
    return dist.replace("_", "-"), version


# ---------------------------------------------------------------------------------------------------------------


def test_every_new_series_is_a_reviewed_row_with_sources():
    assert [r.series for r in ROWS] == NEW_SERIES + ["2.11"]
    for r in ROWS:
        assert r.sources and all(u.startswith("https://") for u in r.sources), r.series


@pytest.mark.parametrize("release", ROWS, ids=lambda r: r.series)
def test_versions_are_the_final_releases_on_pypi(release):
    published = sorted((v for v in WHEELS[release.package] if _series(v) == release.series), key=vtuple)
    assert list(release.versions) == published


@pytest.mark.parametrize("release", ROWS, ids=lambda r: r.series)
def test_python_is_the_linux_wheel_set_per_patch_release(release):
    """The wheel wins over the table: what check and env use for an exact release is its Linux wheels (the table's
    row, corrected by matrices/wheels.toml where they differ)."""
    wheels = WHEELS[release.package]
    for version in release.versions:
        assert M.python_for("tensorflow", version) == _pythons(wheels[version], "manylinux"), version
    assert set(release.python) == {p for v in release.versions for p in _pythons(wheels[v], "manylinux")}


@pytest.mark.parametrize("release", ROWS, ids=lambda r: r.series)
def test_windows_python_is_the_windows_wheel_set(release):
    wheels = WHEELS[release.package]
    with_windows = [v for v in release.versions if _pythons(wheels[v], "win")]
    if release.series == "2.11":
        assert not release.windows_gpu  # the 2.11 Windows wheels are the tensorflow-intel stubs: no GPU
        return
    assert release.windows_gpu and with_windows
    assert release.windows_python == _pythons(wheels[with_windows[-1]], "win")


@pytest.mark.parametrize("row", _table("site/en/install/source.md linux-gpu"), ids=lambda row: row[0])
def test_linux_gpu_table(row):
    version = _doc_version(row[0])
    release = M.tf_release(version)
    if release is None or release.reviewed != REVIEWED:
        pytest.skip("row reviewed before 2026-11-24 (test_matrix_data covers it)")
    python, cudnn, cuda = row[1], row[4], row[5]
    assert release.cuda == _cuda(cuda)
    assert release.cudnn == cudnn
    documented = _doc_pythons(python)
    assert (release.python_documented or release.python) == documented  # the table stays visible


def test_every_reviewed_row_is_in_the_linux_and_windows_gpu_tables():
    linux = {_series(_doc_version(r[0])) for r in _table("site/en/install/source.md linux-gpu")}
    windows = {_series(_doc_version(r[0])) for r in _table("site/en/install/source_windows.md windows-gpu")}
    for r in ROWS:
        assert r.series in linux, r.series
        if r.series != "2.11":
            assert r.series in windows, r.series


@pytest.mark.parametrize("row", _table("site/en/install/source_windows.md windows-gpu"), ids=lambda row: row[0])
def test_windows_gpu_table(row):
    release = M.tf_release(_doc_version(row[0]))
    if release is None or release.reviewed != REVIEWED:
        pytest.skip("row reviewed before 2026-11-24")
    assert release.windows_gpu
    assert release.windows_cuda == _cuda(row[5])
    assert release.windows_cudnn == row[4]
    # the wheels of the newest version with a Windows build are within the documented set
    assert set(release.windows_python) <= set(_doc_pythons(row[1]))


@pytest.mark.parametrize("release", ROWS, ids=lambda r: r.series)
def test_arch_is_what_the_scanned_wheels_carry(release):
    scanned = [e for name, e in SCAN.items() if _wheel_version(name)[0] == "tensorflow-gpu" and _series(_wheel_version(name)[1]) == release.series]
    if release.series == "2.11":
        pytest.skip("2.11's arch row predates this review (compat-facts 4d)")
    assert scanned, f"no scanned tensorflow-gpu wheel for {release.series}"
    for entry in scanned:
        version = _wheel_version(entry["wheel"])[1]
        assert set(release.arch_for(version)) == set(entry["sass"]) | set(entry["ptx"]), version


@pytest.mark.parametrize("release", ROWS, ids=lambda r: r.series)
def test_plain_tensorflow_is_a_cuda_build_where_the_matrix_says(release):
    """The `tensorflow` wheel is the CUDA build when its Linux wheel is as large as `tensorflow-gpu`'s of the same
    version and Python (the CPU-only wheel is a quarter of it), and the scanned ones carry CUDA fatbinaries."""
    if release.series == "2.11":
        pytest.skip("not part of the 1.x/2.0 package split")
    for version in release.versions:
        cpu, gpu = WHEELS["tensorflow"].get(version), WHEELS["tensorflow-gpu"].get(version)
        tag = "cp36" if _linux_size(gpu, "cp36") else "cp37"
        ratio = _linux_size(cpu, tag) / _linux_size(gpu, tag)
        assert release.tensorflow_has_gpu(version) is (ratio > 0.9), (version, round(ratio, 2))
    for name, entry in SCAN.items():
        dist, version = _wheel_version(name)
        if dist == "tensorflow" and _series(version) == release.series:
            assert release.tensorflow_has_gpu(version) is bool(entry["sass"]), version


def test_the_package_to_install_for_the_gpu():
    # RELEASE.md 1.15.0 / 2.1.0 (recorded in the row sources); the wheels decide per patch (test above)
    for r in ROWS:
        if r.series == "2.11":
            continue
        no_plain_gpu = [v for v in r.versions if r.tensorflow_has_gpu(v) is False]
        assert (r.package == "tensorflow-gpu") is bool(no_plain_gpu), r.series


def test_the_seed_documents_answer():
    """shared/seeds: "TensorFlow-gpu==1.14.0 ... cuDNN 7.4 and CUDA toolkit 10" on Windows 10 with Python 3.6."""
    r = M.tf_release("1.14.0")
    assert (r.cuda, r.cudnn, r.windows_cuda, r.windows_cudnn) == ("10.0", "7.4", "10.0", "7.4")
    assert "3.6" in r.windows_python and r.package == "tensorflow-gpu"
    assert M.min_driver("10.0") == "410.48" and M.mvc_floor(10) is None
