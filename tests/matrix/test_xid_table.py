"""matrices/xid.toml: a remedy is said as confirmed only with the URL it was read from, and the rows read from NVIDIA's
catalog (its "Resolution Bucket (Immediate Action)" column) keep the catalog's remedy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.xid import load_xid

if sys.version_info >= (3, 11):
    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

HEADER = 'reviewed = "2026-11-25"\ncatalog_url = "https://docs.nvidia.com/deploy/xid-errors/index.html"\n' \
         'sources = ["https://docs.nvidia.com/deploy/xid-errors/index.html"]\n'


def _table(tmp_path: Path, row: str):
    (tmp_path / "xid.toml").write_text(HEADER + "[[xid]]\n" + row, encoding="utf-8")
    return load_xid(tmp_path, tomllib)


def test_a_confirmed_remedy_without_its_source_is_refused(tmp_path):
    with pytest.raises(MatrixError, match="action_source"):
        _table(tmp_path, 'xid = 13\nmeaning = "m"\naction = "restart-app"\naction_confirmed = true\nreviewed = "2026-11-25"\n')


def test_an_action_source_must_be_a_url(tmp_path):
    with pytest.raises(MatrixError, match="not a URL"):
        _table(tmp_path, 'xid = 13\nmeaning = "m"\naction = "restart-app"\naction_confirmed = true\n'
                         'action_source = "the catalog"\nreviewed = "2026-11-25"\n')


def test_every_confirmed_row_in_the_shipped_table_names_its_source():
    table = load_matrix().xid
    confirmed = [r for r in table.rows if r.action_confirmed]
    assert confirmed and all(r.action_source and r.action_source.startswith("https://") for r in confirmed)
    assert all(r.action_source is None for r in table.rows if not r.action_confirmed)


# The catalog's immediate action for each Xid, as NVIDIA's xiderrorsmapping.csv (NVIDIA/NVSentinel) lists it,
# in gpudoctor's words. 48 is WORKFLOW_XID_48, whose solo step is RESET_GPU.
CATALOG = {13: "restart-app", 31: "restart-app", 32: "restart-app", 43: "none", 48: "reset-gpu", 62: "reset-gpu",
           64: "reset-gpu", 68: "restart-app", 69: "restart-app", 79: "reboot", 92: "none", 94: "restart-app",
           95: "reset-gpu", 119: "reset-gpu", 120: "reset-gpu", 140: "reset-gpu"}


@pytest.mark.parametrize("xid", sorted(CATALOG))
def test_catalog_rows_keep_the_catalogs_remedy(xid):
    row = load_matrix().xid.row(xid)
    assert row.action_confirmed and row.action == CATALOG[xid]


@pytest.mark.parametrize("xid", [45, 61, 74])
def test_rows_the_catalog_gives_no_single_remedy_for_stay_likely(xid):
    assert not load_matrix().xid.row(xid).action_confirmed
