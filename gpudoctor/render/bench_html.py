"""``gpudoctor bench --html FILE``: one self-contained page (inline CSS bars, no script, no network) with each
measured figure as a bar against its spec. Every value from the machine is escaped here, once, with escape.html
(control characters shown, markup characters escaped)."""

from __future__ import annotations

from gpudoctor.bench.assess import quantity
from gpudoctor.bench.model import MEASUREMENTS, BenchReport
from gpudoctor.render import escape

_STYLE = """body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:60em;color:#222}
table{border-collapse:collapse;width:100%}td,th{padding:.3em .5em;text-align:left;vertical-align:middle}
.bar{background:#eee;width:24em;height:1.1em;position:relative}.fill{background:#4a7;height:100%}
.low .fill{background:#d65}.finding{margin:.8em 0;padding:.5em;border-left:4px solid #d65;background:#fdf3f2}
.info{border-left-color:#58a;background:#f1f6fb}code{background:#f4f4f4;padding:0 .2em}"""


_SEVERITY_CLASSES = frozenset({"ok", "info", "warning", "error"})


def _e(value: object) -> str:
    return escape.html(value)


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
        for f in d.findings:
            items = "".join(f"<li>{_e(e)}</li>" for e in f.evidence) + "".join(f"<li>fix: <code>{_e(x)}</code></li>" for x in f.fix)
            css = f.severity if f.severity in _SEVERITY_CLASSES else "unknown"  # a class name never comes from input
            out.append(f'<div class="finding {css}"><b>{_e(f.severity)}</b> <code>{_e(f.id)}</code> '
                       f"{_e(f.title)}<ul>{items}</ul></div>")  # fmt: skip
    out.append("</body></html>")
    return "\n".join(out) + "\n"
