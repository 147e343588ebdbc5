"""Rows added on 2026-11-24 (torch 1.0-1.11, CUDA 7.0-8.0, cuDNN rows between the read matrices) checked against the
values recorded from their sources under tests/data/matrix/ (the wheels themselves, NVIDIA's Table 3, the package
index), never against a re-typed copy of the TOML."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.model import arch_support, vtuple
from gpudoctor.matrix.solver.solve import driver_verdict

M = load_matrix()
DATA = Path(__file__).resolve().parent.parent / "data" / "matrix"


# -- CUDA: NVIDIA Table 3 rows up to 10.2 ------------------------------------------------------------------------

def _table3() -> list[tuple[str, str, str]]:
    rows = []
    for line in (DATA / "nvidia_cuda_table3_pre11.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        toolkit, linux, windows = (cell.strip() for cell in line.split("|"))
        m = re.search(r"\((\d+\.\d+\.\d+)", toolkit) or re.search(r"CUDA (\d+\.\d+\.\d+)", toolkit)
        rows.append((m.group(1), linux.lstrip(">= ").strip(), windows.lstrip(">= ").strip()))
    return rows


@pytest.mark.parametrize(("version", "linux", "windows"), _table3())
def test_cuda_rows_match_nvidia_table3(version, linux, windows):
    row = next(r for r in M.cuda_releases if r.version == version)
    assert (row.linux, row.windows) == (linux, windows)


def test_cuda_7_and_8_are_known_and_have_compile_targets():
    assert M.min_driver("8.0") == "367.48" and M.min_driver("8.0.61") == "375.26" and M.min_driver("7.0", "windows") == "347.62"
    assert M.driver_cuda("375.26") == "8.0" and M.driver_cuda("352.31") == "7.5"
    assert (M.cuda_targets_for("8.0").min_cc, M.cuda_targets_for("8.0").max_cc) == ("2.0", "6.2")
    assert M.cuda_targets_for("7.5").max_cc == "5.3"


@pytest.mark.parametrize(
    ("cuda", "driver", "ok"),
    [
        ("10.2", "440.33", True), ("10.2", "418.39", False),  # no minor-version compatibility within 10.x
        ("10.1", "418.39", True), ("10.1", "410.48", False), ("10.0", "396.37", False), ("9.2", "396.26", True),
        ("9.0", "384.81", True), ("8.0", "367.48", True), ("8.0.61", "367.48", False), ("8.0.61", "375.26", True),
        ("7.5", "346.46", False), ("11.8", "450.80.02", True), ("11.8", "450.51.06", False),  # 11.x: MVC floor
    ],
)
def test_driver_rule_has_no_minor_version_compatibility_before_cuda_11(cuda, driver, ok):
    verdict = driver_verdict(M, cuda, driver, None)
    assert verdict.ok is ok
    if vtuple(cuda)[0] < 11:
        assert verdict.mode in (None, "native") and verdict.need == M.min_driver(cuda)


def test_driver_cuda_alone_below_the_build_is_not_enough_before_11():
    assert driver_verdict(M, "10.2", None, "10.1").ok is False
    assert driver_verdict(M, "11.8", None, "11.4").ok is True  # minor-version compatibility from 11 on


def test_driver_floor_is_the_toolkit_driver_before_11():
    assert M.driver_floor("10.2") == "440.33" and M.driver_floor("9.2", "windows") == "397.44"
    assert M.driver_floor("11.3") == "450.80.02" and M.driver_floor("12.4", "windows") == "528.33"


# -- torch 1.0 - 1.11: the published wheels --------------------------------------------------------------------

SOURCES = json.loads((DATA / "torch_old_sources.json").read_text())


def _gencode_to_arch(flags: str) -> list[str]:
    """'-gencode;arch=compute_37,code=sm_37;...;-gencode;arch=compute_37,code=compute_37' -> torch's list."""
    sass = sorted({int(c) for c in re.findall(r"code=sm_(\d+)", flags)})
    ptx = sorted({int(c) for c in re.findall(r"code=compute_(\d+)", flags)})
    return [f"sm_{c}" for c in sass] + [f"compute_{c}" for c in ptx]


@pytest.mark.parametrize("version", sorted(SOURCES["wheels"], key=vtuple))
def test_torch_row_matches_its_package_index_wheels(version):
    rec = SOURCES["wheels"][version]
    release = M.torch_release(version)
    assert version in release.versions
    # Python: the CPython tags of the Linux x86_64 wheels of the row's newest release
    if version == release.latest:
        assert list(release.python) == [f"{t[2]}.{t[3:]}" for t in sorted(rec["linux_cp_tags"], key=lambda t: int(t[3:]) + 100 * int(t[2]))]
    # the package-index wheel is the default Linux variant; its CUDA comes from torch/version.py
    default = release.variant(release.default_linux)
    assert vtuple(default.cuda)[:2] == vtuple(rec["version_py_cuda"])[:2]
    # arch: the -gencode string compiled into the wheel's CUDA library
    if rec.get("gencode"):
        assert list(default.arch) == _gencode_to_arch(rec["gencode"]) and default.arch_confirmed
    elif rec.get("fatbin_sass"):
        # no -gencode string in the library (1.0.x): every listed SASS is in its fatbinaries and the PTX is exactly theirs
        sass = {int(a[3:]) for a in default.arch if a.startswith("sm_")}
        ptx = {int(a[8:]) for a in default.arch if a.startswith("compute_")}
        assert sass <= set(rec["fatbin_sass"]) and ptx == set(rec["fatbin_ptx"])


def test_every_old_torch_variant_says_where_its_arch_comes_from():
    for r in M.torch:
        if vtuple(r.latest) >= (1, 12):
            continue
        assert r.sources, r.series
        for v in r.variants:
            assert v.arch is not None, (r.series, v.tag)
            if v.tag != r.default_linux:
                # lists read from a dated master commit of pytorch/builder are not claimed as confirmed
                assert v.arch_confirmed is False or "release/" in " ".join(r.sources), (r.series, v.tag)


def test_arch_milestones_of_the_old_wheels():
    # Kepler sm_35 (K40) left with 1.3.1; sm_37 (K80) stays to 1.12/1.13 (cu102/cu11x)
    assert "sm_35" in M.torch_release("1.2.0").variant("cu100").arch
    assert "sm_35" not in M.torch_release("1.3.1").variant("cu101").arch
    # cu102 from 1.8 carries no sm_75: Turing runs the sm_70 SASS
    cu102 = M.torch_release("1.8.1").variant("cu102")
    assert "sm_75" not in cu102.arch and arch_support(cu102.arch, "7.5") == "sass"
    # no PTX from 1.6: an A100 (8.0) has no kernel in cu102 builds, and gets sm_80 from cu110/cu111
    assert arch_support(M.torch_release("1.9.1").variant("cu102").arch, "8.0") is None
    assert arch_support(M.torch_release("1.9.1").variant("cu111").arch, "8.6") == "sass"
    # 1.5 cu102 has compute_37: newer GPUs JIT it
    assert arch_support(M.torch_release("1.5.1").variant("cu102").arch, "8.0") == "ptx"


def test_audit_items_for_torch():
    assert "3.11" in M.torch_release("1.13.1").python  # audit #2
    assert "compute_120" in M.torch_release("2.7.1").variant("cu128").arch  # audit #3
    assert "sm_61" not in M.torch_release("2.5.1").variant("cu118").arch  # audit #4
    for series, tag in (("2.9", "cu130"), ("2.10", "cu130"), ("2.12", "cu132"), ("2.13", "cu132"), ("2.14", "cu132"), ("2.15", "cu130")):
        assert not any(a.startswith("compute_") for a in M.torch_release(series).variant(tag).arch), (series, tag)  # audit #8
    assert M.torch_release("1.12.1").rocm == "5.1.1"  # audit #12


# -- cuDNN: every release with a wheel lands on a row that has a build for that CUDA major ------------------------

CUDNN_WHEELS = json.loads((DATA / "nvidia_cudnn_wheels.json").read_text())["builds"]


@pytest.mark.parametrize(("package", "major"), [("nvidia-cudnn-cu11", 11), ("nvidia-cudnn-cu12", 12)])
def test_cudnn_rows_cover_the_cuda_major_of_every_wheel(package, major):
    for version in CUDNN_WHEELS[package]:
        row = M.cudnn_release(version)
        if not row.cuda:  # 9.11+: the row knows only the compute-capability floor
            continue
        majors = {vtuple(lo)[0] for lo, _hi in row.cuda} | {vtuple(hi)[0] for _lo, hi in row.cuda}
        assert major in majors, (version, row.version, row.cuda)


def test_cudnn_gap_rows_and_audit_items():
    assert M.cudnn_release("8.7.0").version == "8.7.0" and ("11.0", "11.8") in M.cudnn_release("8.7.0").cuda  # audit #1
    assert any(vtuple(lo)[0] == 12 for lo, _ in M.cudnn_release("8.9.2").cuda)
    assert M.cudnn_cc_min("8.7.0") is None  # floor not confirmed between 8.5.0 (3.5) and 8.9.6 (5.0)
    assert ("11.0", "11.8") in M.cudnn_release("9.1.0").cuda and ("11.0", "11.8") in M.cudnn_release("9.5.1").cuda  # audit #7
    assert M.cudnn_cc_min("9.11.0") == "7.5" and "9.17" in M.cudnn_release("9.11.0").note  # audit #9
    assert M.cudnn_release("7.6.0").version == "7.6.2" and M.cudnn_cc_min("7.6.0") == "3.0"


@pytest.mark.parametrize(("version", "row", "cuda"), [
    ("5.1.10", "5.1.10", (("7.5", "8.0"),)),  # anaconda free channel: cudnn-5.1.10-cuda7.5_0 / -cuda8.0_0
    ("6.0", "6.0.21", (("7.5", "8.0"),)),  # cudnn-6.0.21-cuda7.5_0 / -cuda8.0_0
    ("7.0.5", "7.0.5", (("8.0", "8.0"), ("9.0", "9.1"))),  # libcudnn7=7.0.5.15-1+cuda8.0/9.0/9.1
    ("7.3.1", "7.4.2", (("9.0", "9.0"), ("9.2", "9.2"), ("10.0", "10.0"))),  # redist v7.3.1 / v7.4.1 / v7.4.2
    ("7.4.1", "7.4.2", (("9.0", "9.0"), ("9.2", "9.2"), ("10.0", "10.0"))),
    ("7.5.0", "7.5.0", (("9.0", "9.0"), ("9.2", "9.2"), ("10.0", "10.1"))),  # redist v7.5.0 has a cuda10.1 deb
])
def test_cudnn_rows_of_the_seeds_era_follow_nvidias_packages(version, row, cuda):
    found = M.cudnn_release(version)
    assert (found.version, found.cuda) == (row, cuda)
    assert M.cudnn_cc_min(version) == ("3.0" if version.startswith("7") else None)  # 5.1/6.0 floor: not confirmed


@pytest.mark.parametrize("version", ["7.0.3", "7.1.4", "7.2.1", "7.3.0"])
def test_unconfirmed_cudnn_releases_are_unknown_not_answered_by_an_older_row(version):
    found = M.cudnn_release(version)
    assert found.cuda == () and found.cc_min is None and "not confirmed" in found.note
