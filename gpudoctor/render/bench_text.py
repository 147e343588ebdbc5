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
from gpudoctor.escape import text as safe


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
    ratio = (f"{judged.ratio:.0%} of {quantity(judged.peak, m.unit)}"
             if judged and judged.ratio is not None and judged.peak is not None else "")  # a saved file may lack either
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
        parts += [Text(safe(j.text)) for j in d.judged if j.name.startswith("realistic-")]
        for f in d.findings:
            parts.append(Text(f"\n{safe(f.severity.upper())} [{safe(f.id)}] {safe(f.title)}"))
            parts += [Text(f"  {safe(e)}") for e in f.evidence]
            parts += [Text(f"  fix: {safe(x)}") for x in f.fix]
        timing = f"{d.wall_s:.1f} s" if d.wall_s is not None else "?"
        inner = f", of which measuring {d.measure_s:.1f} s" if d.measure_s is not None else ""
        parts.append(Text(f"\nchild process {timing}{inner}; {safe(d.framework_version or '')}"))
    parts += across_lines(report)
    return _render(parts)


def across_lines(report: BenchReport) -> list:
    """The all-reduce across devices, the P2P matrix and NVIDIA's tools' verdicts (each only when there is one)."""
    parts: list = []
    ic = report.interconnect
    if ic is not None:
        where = f"{ic.ranks} GPUs (NCCL)" if ic.backend == "nccl" else f"{ic.ranks} gloo processes on the CPU"
        parts.append(Text(f"\nall-reduce across {where}:"))
        if ic.error:
            parts.append(Text(f"  failed: {safe(ic.error)}"))
        elif ic.busbw_gbs is not None:
            size = f" of {ic.nbytes / 2**20:g} MiB" if ic.nbytes else ""
            line = f"  bus bandwidth {quantity(ic.busbw_gbs, 'GB/s')}{size} (algbw {quantity(ic.algbw_gbs or 0, 'GB/s')}; nccl-tests' busbw)"
            if ic.ratio is not None and ic.expected_gbs is not None:
                line += f" = {ic.ratio:.0%} of {quantity(ic.expected_gbs, 'GB/s')}: {safe(ic.expected_basis or '')}"
            elif ic.backend == "gloo":
                line += "; the CPU has no link spec to judge it against"
            parts.append(Text(line))
        if ic.links:
            parts.append(_p2p_table(ic))
        for f in ic.findings:
            parts.append(Text(f"\n{safe(f.severity.upper())} [{safe(f.id)}] {safe(f.title)}"))
            parts += [Text(f"  {safe(e)}") for e in f.evidence]
            parts += [Text(f"  fix: {safe(x)}") for x in f.fix]
    for t in report.nvidia_tools:
        parts.append(Text(f"\n{safe(t.tool)}: {safe(t.verdict.upper())} - {safe(t.summary)}  ({safe(t.command)})"))
        parts += [Text(f"  {safe(d)}") for d in t.details[:12]]
    return parts


def _p2p_table(ic) -> Table:  # ic: Interconnect
    """GPU x GPU: the topo -m link code and NVML's P2P read status ("ok" or why not)."""
    gpus = sorted({p.a for p in ic.links} | {p.b for p in ic.links})
    cell = {(p.a, p.b): f"{p.link or '?'} {'P2P' if p.p2p_read == 'ok' else 'no P2P' if p.p2p_read else '?'}" for p in ic.links}
    table = Table(show_edge=False, pad_edge=False, box=None, title=None)
    table.add_column("link / P2P")
    for g in gpus:
        table.add_column(f"GPU{g}")
    for a in gpus:
        table.add_row(Text(f"GPU{a}"), *(Text("X" if a == b else safe(cell.get((a, b), "?"))) for b in gpus))
    return table


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
