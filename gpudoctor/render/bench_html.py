"""``gpudoctor bench --html FILE``: one self-contained page (inline CSS bars, no script, no network) with each
measured figure as a bar against its spec. Every value from the machine is escaped here, once, with escape.html
(control characters shown, markup characters escaped)."""

from __future__ import annotations

from gpudoctor.bench.assess import quantity
from gpudoctor.bench.model import MEASUREMENTS, BenchReport
from gpudoctor import escape

_STYLE = """body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:60em;color:#222}
table{border-collapse:collapse;width:100%}td,th{padding:.3em .5em;text-align:left;vertical-align:middle}
.bar{background:#eee;width:24em;height:1.1em;position:relative}.fill{background:#4a7;height:100%}
.low .fill{background:#d65}.finding{margin:.8em 0;padding:.5em;border-left:4px solid #d65;background:#fdf3f2}
.info{border-left-color:#58a;background:#f1f6fb}code{background:#f4f4f4;padding:0 .2em}"""


_SEVERITY_CLASSES = frozenset({"ok", "info", "warning", "error"})


def _e(value: object) -> str:
    return escape.html(value)


def _across(report: BenchReport) -> list[str]:
    out: list[str] = []
    ic = report.interconnect
    if ic is not None:
        where = f"{ic.ranks} GPUs (NCCL)" if ic.backend == "nccl" else f"{ic.ranks} gloo processes on the CPU"
        out.append(f"<h2>all-reduce across {_e(where)}</h2>")
        if ic.error:
            out.append(f"<p>failed: {_e(ic.error)}</p>")
        elif ic.busbw_gbs is not None:
            text = f"bus bandwidth {quantity(ic.busbw_gbs, 'GB/s')} (nccl-tests' busbw)"
            bar = ""
            if ic.ratio is not None and ic.expected_gbs is not None:
                width = max(0.0, min(ic.ratio, 1.0)) * 100
                low = " low" if ic.findings and any(f.id == "bench-allreduce-below-topology" for f in ic.findings) else ""
                bar = (f'<div class="bar{low}"><div class="fill" style="width:{width:.1f}%"></div></div>'
                       f"{ic.ratio:.0%} of {_e(quantity(ic.expected_gbs, 'GB/s'))}: {_e(ic.expected_basis or '')}")  # fmt: skip
            out.append(f"<p>{_e(text)}</p>{bar}")
        if ic.links:
            gpus = sorted({p.a for p in ic.links} | {p.b for p in ic.links})
            cell = {(p.a, p.b): f"{p.link or '?'} {'P2P' if p.p2p_read == 'ok' else 'no P2P' if p.p2p_read else '?'}"
                    for p in ic.links}  # fmt: skip
            out.append("<table><tr><th>link / P2P</th>" + "".join(f"<th>GPU{g}</th>" for g in gpus) + "</tr>")
            for a in gpus:
                row = "".join(f"<td>{'X' if a == b else _e(cell.get((a, b), '?'))}</td>" for b in gpus)
                out.append(f"<tr><td>GPU{a}</td>{row}</tr>")
            out.append("</table>")
        out += [_finding(f) for f in ic.findings]
    if report.nvidia_tools:
        out.append("<h2>NVIDIA's tools</h2><ul>")
        for t in report.nvidia_tools:
            items = "".join(f"<li>{_e(d)}</li>" for d in t.details[:12])
            out.append(f"<li><b>{_e(t.tool)}</b>: {_e(t.verdict)} - {_e(t.summary)} (<code>{_e(t.command)}</code>)"
                       f"<ul>{items}</ul></li>")  # fmt: skip
        out.append("</ul>")
    return out


def _finding(f) -> str:  # f: BenchFinding
    items = "".join(f"<li>{_e(e)}</li>" for e in f.evidence) + "".join(f"<li>fix: <code>{_e(x)}</code></li>" for x in f.fix)
    css = f.severity if f.severity in _SEVERITY_CLASSES else "unknown"  # a class name never comes from input
    return f'<div class="finding {css}"><b>{_e(f.severity)}</b> <code>{_e(f.id)}</code> {_e(f.title)}<ul>{items}</ul></div>'


def to_html(report: BenchReport) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>gpudoctor bench</title>", f"<style>{_STYLE}</style></head><body>"]  # fmt: skip
    for d in report.devices:
        where = "the CPU" if d.device == "cpu" else f"{d.device_name or 'an unnamed GPU'} ({d.device})"
        out.append(f"<h1>gpudoctor bench: {_e(where)}</h1>")
        if d.note:
            out.append(f"<p>{_e(d.note)}</p>")
        spec = f"judged against the {d.spec_name} spec (matrices/gpus.toml)" if d.spec_name else "no sourced spec: no bars"
        out.append(f"<p>{_e(spec)}</p><table><tr><th>measurement</th><th>measured</th><th>against the spec</th></tr>")
        for name, (label, unit) in MEASUREMENTS.items():
            m = d.measurement(name)
            if m is None or (m.value is None and not m.error):
                continue
            judged = next((j for j in d.judged if j.name == name), None)
            value = quantity(m.value, unit) if m.value is not None else f"failed: {m.error}"
            bar = ""
            if judged is not None and judged.ratio is not None and judged.peak is not None:
                width = max(0.0, min(judged.ratio, 1.0)) * 100
                low = " low" if any(judged.text in e for f in d.findings for e in f.evidence) else ""
                bar = (f'<div class="bar{low}" title="{_e(judged.text)}"><div class="fill" style="width:{width:.1f}%">'
                       f"</div></div>{judged.ratio:.0%} of {_e(quantity(judged.peak, unit))}")  # fmt: skip
            out.append(f"<tr><td>{_e(label)}</td><td>{_e(value)}</td><td>{bar}</td></tr>")
        out.append("</table>")
        speed = next((j for j in d.judged if j.name == "cnn-speedup"), None)
        if speed is not None:
            out.append(f"<p>{_e(speed.text)}</p>")
        out += [f"<p>{_e(j.text)}</p>" for j in d.judged if j.name.startswith("realistic-")]
        out += [_finding(f) for f in d.findings]
    out += _across(report)
    out.append("</body></html>")
    return "\n".join(out) + "\n"
