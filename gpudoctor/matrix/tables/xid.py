"""matrices/xid.toml: what an NVIDIA Xid number means and the first step that clears it (nothing, restart the
application, reset the GPU, reboot, service the hardware). Pure data; loaded with the rest of the matrix."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .reader import Reader, read_toml

XID_FILE = "xid.toml"
# The remedies, mildest first; a finding about several Xids asks for the strongest of them.
ACTIONS = ("none", "restart-app", "reset-gpu", "reboot", "service")


@dataclass(frozen=True)
class XidRow:
    """One NVIDIA Xid error: its driver name, meaning and the action NVIDIA recommends."""
    xid: int
    mnemonic: str  # the driver's name for it (nverror.h): "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"
    meaning: str
    action: str  # one of ACTIONS
    action_confirmed: bool  # False: the remedy was not read from NVIDIA's catalog itself; it is said as "likely"
    note: str | None
    reviewed: str
    action_source: str | None = None  # where a confirmed remedy was read (NVIDIA's catalog or the driver's own text)


@dataclass(frozen=True)
class XidTable:
    """The Xid catalog of xid.toml, with its source and review date."""
    rows: tuple[XidRow, ...]
    catalog_url: str
    sources: tuple[str, ...]
    reviewed: str

    def row(self, xid: int) -> XidRow | None:
        return next((r for r in self.rows if r.xid == xid), None)


def load_xid(directory: Path, tomllib: Any) -> XidTable | None:
    """The table, validated; None when xid.toml is absent (a hand-built matrix directory)."""
    doc = read_toml(Path(directory) / XID_FILE, tomllib, required=False)
    if doc is None:
        return None
    top = Reader(XID_FILE, doc, "")
    rows = tuple(_row(t) for t in top.tables("xid"))
    seen: set[int] = set()
    for row in rows:
        if row.xid in seen:
            raise top.fail("xid", f"Xid {row.xid} is listed twice")
        seen.add(row.xid)
    return XidTable(rows, top.str("catalog_url"), top.urls("sources", required=True), top.date("reviewed"))


def _row(t: Reader) -> XidRow:
    action = t.str("action")
    if action not in ACTIONS:
        raise t.fail("action", f"must be one of {', '.join(ACTIONS)}, got {action!r}")
    xid = t.int("xid")
    if xid is None or not 0 < xid < 1000:
        raise t.fail("xid", "must be an Xid number (1-999)")
    confirmed = t.bool("action_confirmed", False)
    source = t.str("action_source", required=False)
    if source is not None and not source.startswith("https://"):
        raise t.fail("action_source", f"not a URL: {source!r}")
    if confirmed and not source:
        raise t.fail("action_confirmed", "a confirmed remedy needs action_source, the URL it was read from")
    return XidRow(xid, t.str("mnemonic", required=False) or "", t.str("meaning"), action, confirmed,
                  t.str("note", required=False), t.date("reviewed"), source)
