"""``gpudoctor bench`` for people: a rich table rendered to a string (no colour unless asked), and two saved results
side by side (--compare). Everything the machine or a saved file supplied is escaped here (escape.text), and rich
gets Text objects, so a GPU name like "[bold]x" is shown as written, never read as markup."""

from __future__ import annotations

import io
import math

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpudoctor.bench.assess import quantity
from gpudoctor.bench.model import MEASUREMENTS, BenchReport, DeviceResult
from gpudoctor.render.escape import text as safe


def _console(width: int, color: bool) -> Console:
    return Console(file=io.StringIO(), width=width, color_system="standard" if color else None, force_terminal=color,
                   highlight=False, emoji=False)  # fmt: skip


def _render(renderables: list, width: int = 110, color: bool = False) -> str:
    console = _console(width, color)
    for r in renderables:
        console.print(r)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def where(d: DeviceResult) -> str:
    if d.device == "cpu":
        return "on the CPU" + (f" ({safe(d.note)})" if d.note else "")
    cc = f", compute capability {safe(d.compute_capability)}" if d.compute_capability else ""
    spec = f"; judged against the {safe(d.spec_name)} spec" if d.spec_name else "; no sourced spec for it"
    return f"on {safe(d.device_name or 'an unnamed GPU')} ({safe(d.device)}{cc}){spec}"


def _value(d: DeviceResult, name: str) -> tuple[str, str]:
    m = d.measurement(name)
    if m is None:
        return "-", ""
    if m.value is None:
        return ("failed", safe(m.error or "")) if m.error else ("n/a", safe(m.skipped or ""))
    judged = next((j for j in d.judged if j.name == name), None)
    ratio = f"{judged.ratio:.0%} of {quantity(judged.peak, m.unit)}" if judged and judged.ratio is not None else ""
    return quantity(m.value, m.unit), ratio or safe(m.detail)


def to_text(report: BenchReport, verbose: bool = False, color: bool = False) -> str:
    parts: list = []
    for d in report.devices:
        parts.append(Text(f"gpudoctor bench{' --quick' if report.quick else ''}: measured {where(d)}"))
        table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold" if color else "")
        for column in ("measurement", "measured", "vs spec" if d.device != "cpu" else "how"):
            table.add_column(column)
        for name, (label, _unit) in MEASUREMENTS.items():
            value, note = _value(d, name)
            if value == "n/a" and not verbose:
                continue
            table.add_row(Text(label), Text(value), Text(note))
        parts.append(table)
        speed = next((j for j in d.judged if j.name == "cnn-speedup"), None)
        if speed is not None:
            parts.append(Text(safe(speed.text)))
        for f in d.findings:
            parts.append(Text(f"\n{safe(f.severity.upper())} [{safe(f.id)}] {safe(f.title)}"))
            parts += [Text(f"  {safe(e)}") for e in f.evidence]
            parts += [Text(f"  fix: {safe(x)}") for x in f.fix]
        timing = f"{d.wall_s:.1f} s" if d.wall_s is not None else "?"
        inner = f", of which measuring {d.measure_s:.1f} s" if d.measure_s is not None else ""
        parts.append(Text(f"\nchild process {timing}{inner}; {safe(d.framework_version or '')}"))
    return _render(parts)


def compare_text(a: BenchReport, b: BenchReport, name_a: str, name_b: str) -> str:
    """Two saved results side by side: each measurement of the first device of each, and B / A."""
    da, db = a.devices[0], b.devices[0]
    table = Table(show_edge=False, pad_edge=False, box=None)
    for column in ("measurement", safe(name_a), safe(name_b), "B / A"):
        table.add_column(column)
    table.add_row(Text("device"), Text(safe(da.device_name or da.device)), Text(safe(db.device_name or db.device)), Text(""))
    for name, (label, unit) in MEASUREMENTS.items():
        ma, mb = da.measurement(name), db.measurement(name)
        va = ma.value if ma is not None else None
        vb = mb.value if mb is not None else None
        if va is None and vb is None:
            continue
        ratio = f"{vb / va:.2f}x" if va and vb and math.isfinite(vb / va) else ""
        table.add_row(Text(label), Text(quantity(va, unit) if va is not None else "-"),
                      Text(quantity(vb, unit) if vb is not None else "-"), Text(ratio))  # fmt: skip
    note = "for step times lower is better (B / A below 1 means B is faster); for the rest higher is better"
    return _render([Text(f"gpudoctor bench --compare: A = {safe(name_a)}, B = {safe(name_b)}"), table, Text(note)])
