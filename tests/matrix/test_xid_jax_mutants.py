"""xid.toml and jax.toml loaders: each field a row states is kept, and a malformed row is refused with one error that
names the file and the key (issue 11: mutants of gpudoctor/matrix/xid.py and jax_table.py that the suite let live)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix.tables.jax_table import JaxCudaMajor, JaxRelease, JaxTable, jax_table
from gpudoctor.matrix.tables.xid import XidRow, load_xid
from gpudoctor.resources import matrices_dir

if sys.version_info >= (3, 11):
    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

XID_HEADER = ('reviewed = "2026-11-25"\ncatalog_url = "https://docs.nvidia.com/deploy/xid-errors/index.html"\n'
              'sources = ["https://docs.nvidia.com/deploy/xid-errors/index.html"]\n')
XID_ROW = '[[xid]]\nxid = {xid}\nmeaning = "m"\naction = "{action}"\nreviewed = "2026-11-25"\n'


def _xid_file(tmp_path: Path, *rows: str):
    (tmp_path / "xid.toml").write_text(XID_HEADER + "".join(rows), encoding="utf-8")
    return load_xid(tmp_path, tomllib)


# The shipped tables are read with the loaders themselves, not through load_matrix(), whose result is cached (in
# memory and on disk) and so would not run the loader code under test.
def test_the_shipped_xid_79_row_keeps_every_field():
    assert load_xid(matrices_dir(), tomllib).row(79) == XidRow(
        xid=79,
        mnemonic="ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS",
        meaning="GPU has fallen off the bus: it stopped answering on PCIe (power, thermals, seating, riser or the GPU itself)",
        action="reboot",
        action_confirmed=True,
        note="if it recurs, check the power supply and cables, the slot and riser, and temperatures, then service the GPU",
        reviewed="2026-11-24",
        action_source="https://github.com/NVIDIA/NVSentinel/blob/main/distros/kubernetes/nvsentinel/charts/gpu-health-monitor/"
                      "xiderrorsmapping.csv",
    )


def test_a_row_without_a_mnemonic_or_note_reads_as_empty_and_none(tmp_path):
    table = _xid_file(tmp_path, XID_ROW.format(xid=13, action="restart-app"))
    assert table.rows == (XidRow(13, "", "m", "restart-app", False, None, "2026-11-25", None),)


def test_an_xid_listed_twice_is_refused_naming_the_file(tmp_path):
    with pytest.raises(MatrixError) as caught:
        _xid_file(tmp_path, XID_ROW.format(xid=13, action="none"), XID_ROW.format(xid=13, action="reboot"))
    assert str(caught.value) == "matrices/xid.toml: key 'xid': Xid 13 is listed twice"


def test_a_bad_action_names_the_file_and_the_row(tmp_path):
    with pytest.raises(MatrixError) as caught:
        _xid_file(tmp_path, XID_ROW.format(xid=13, action="pray"))
    assert str(caught.value) == ("matrices/xid.toml: key 'xid[0].action': must be one of none, restart-app, reset-gpu, "
                                 "reboot, service, got 'pray'")


def _jax_doc(**release) -> dict:
    row = {"versions": ["0.4.30"], "python": ["3.9", "3.10"], "plugins": ["cuda12"], "cudnn_min": {"cuda12": "9.1"},
           "jaxlib_min": {"0.4.30": "0.4.27"}}
    row.update(release)
    major = {"driver_min": "525", "cc_min": "5.2", "cuda_min": "12.1", "nvidia_suffix": "-cu12"}
    return {"reviewed": "2026-11-24", "sources": ["https://docs.jax.dev/en/latest/installation.html"],
            "nvidia_gpu_platforms": {"linux": "yes", "wsl2": "experimental", "windows": "no", "macos": "no"},
            "cuda12": major, "cuda13": dict(major, nvidia_suffix="-cu13"), "release": [row]}


def test_a_jax_release_row_keeps_every_field():
    table = jax_table(_jax_doc(plugins=["cuda12", "cuda13"], cudnn_min={"cuda12": "9.1", "cuda13": "9.8"}))
    assert table.releases == (JaxRelease(("0.4.30",), ("3.9", "3.10"), ("cuda12", "cuda13"), {"cuda12": "9.1", "cuda13": "9.8"},
                                         {"0.4.30": "0.4.27"}),)


def test_the_shipped_jax_0_4_30_row():
    shipped = jax_table(tomllib.loads((matrices_dir() / "jax.toml").read_text(encoding="utf-8")))
    assert shipped.release("0.4.30") == JaxRelease(("0.4.30",), ("3.9", "3.10", "3.11", "3.12"), ("cuda12",),
                                                      {"cuda12": "9.1"}, {"0.4.30": "0.4.27"})


def test_a_cudnn_floor_that_is_not_a_version_names_the_file_and_key():
    with pytest.raises(MatrixError) as caught:
        jax_table(_jax_doc(cudnn_min={"cuda12": "nine"}))
    assert str(caught.value) == "matrices/jax.toml: key 'release[0].cudnn_min': not a version: 'nine'"


def test_a_jaxlib_floor_that_is_not_a_version_names_its_own_key():
    # it was reported under cudnn_min, sending whoever edits jax.toml to the wrong key
    with pytest.raises(MatrixError) as caught:
        jax_table(_jax_doc(jaxlib_min={"0.4.30": "soon"}))
    assert str(caught.value) == "matrices/jax.toml: key 'release[0].jaxlib_min': not a version: 'soon'"


def test_a_jax_file_keeps_its_majors_sources_and_review_date():
    assert jax_table(_jax_doc()) == JaxTable(
        majors=(JaxCudaMajor("cuda12", "525", "5.2", "12.1", "-cu12"), JaxCudaMajor("cuda13", "525", "5.2", "12.1", "-cu13")),
        releases=(JaxRelease(("0.4.30",), ("3.9", "3.10"), ("cuda12",), {"cuda12": "9.1"}, {"0.4.30": "0.4.27"}),),
        sources=("https://docs.jax.dev/en/latest/installation.html",),
        reviewed="2026-11-24",
        nvidia_gpu_platforms=(("linux", "yes"), ("wsl2", "experimental"), ("windows", "no"), ("macos", "no")),
    )


@pytest.mark.parametrize("change, message", [
    ({"plugins": ["cuda12", "rocm"], "cudnn_min": {"cuda12": "9.1"}}, "key 'release[0].plugins': unknown plugin 'rocm' (cuda12 or cuda13)"),
    ({"cudnn_min": {"cuda13": "9.1"}},
     "key 'release[0].cudnn_min': must name a cuDNN floor for each of the release's plugins, and no other"),
    ({"jaxlib_min": {"0.4.31": "0.4.27"}}, "key 'release[0].jaxlib_min': names a version the row does not list"),
])
def test_an_inconsistent_release_row_names_the_file_and_key(change, message):
    with pytest.raises(MatrixError) as caught:
        jax_table(_jax_doc(**change))
    assert str(caught.value) == "matrices/jax.toml: " + message


def test_a_jax_file_without_sources_is_refused():
    doc = _jax_doc()
    doc["sources"] = []
    with pytest.raises(MatrixError) as caught:
        jax_table(doc)
    assert str(caught.value) == "matrices/jax.toml: key 'sources': must list at least one source URL"


def test_the_nvidia_gpu_platforms_are_read_and_validated():
    table = jax_table(_jax_doc())
    assert table.nvidia_gpu_platforms == (("linux", "yes"), ("wsl2", "experimental"), ("windows", "no"), ("macos", "no"))
    assert table.nvidia_gpu_support("windows") == "no" and table.nvidia_gpu_support("freebsd") is None
    doc = _jax_doc()
    doc["nvidia_gpu_platforms"]["windows"] = "maybe"
    with pytest.raises(MatrixError, match=r"jax.toml: key 'nvidia_gpu_platforms.windows': must be yes, experimental or no"):
        jax_table(doc)
    del doc["nvidia_gpu_platforms"]["windows"]
    with pytest.raises(MatrixError, match="nvidia_gpu_platforms.windows"):
        jax_table(doc)
