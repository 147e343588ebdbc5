"""The fleet report as one self-contained HTML page: a table a person can sort (click a heading) and filter (type
in the box), then findings, drift and golden differences. No network: the style and the script are inline, and no
value from a node ever reaches the script (values are escaped into table cells only)."""

from __future__ import annotations

from .. import __version__
from ..fleet.model import FleetReport
from .. import escape
from .fleet_common import SEVERITY_SYMBOLS, section_title, status_word, summary

_h = escape.html

_STYLE = """body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:2px 8px;text-align:left}th{cursor:pointer;background:#f3f3f3}
.ok{color:#176d2b}.note,.info{color:#1b5e8a}.warning{color:#8a5a00}.error,.crashed,.failed{color:#b00020;font-weight:bold}
.na{color:#999}input{margin:0.5em 0;padding:3px;width:24em}li{margin:2px 0}"""

# Sort by the clicked column (numbers as numbers), filter rows by any text in them. Reads only the table's cells.
_SCRIPT = """const t=document.getElementById('nodes'),f=document.getElementById('filter');
f.addEventListener('input',()=>{const q=f.value.toLowerCase();for(const r of t.tBodies[0].rows)
r.style.display=r.textContent.toLowerCase().includes(q)?'':'none';});
t.tHead.addEventListener('click',e=>{const th=e.target.closest('th');if(!th)return;const i=th.cellIndex,
d=th.dataset.dir=th.dataset.dir==='a'?'d':'a',rows=[...t.tBodies[0].rows],
k=r=>{const c=r.cells[i];return c?c.textContent:''};rows.sort((x,y)=>{const a=k(x),b=k(y),
n=a.localeCompare(b,undefined,{numeric:true});return d==='a'?n:-n});rows.forEach(r=>t.tBodies[0].appendChild(r));});"""

_CLASSES = {"ok": "ok", "note": "note", "warning": "warning", "error": "error", "crashed": "crashed"}


def render_fleet_html(report: FleetReport) -> str:
    title = "gpudoctor fleet" + (f" — {report.source}" if report.source else "")
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; '
           'script-src \'unsafe-inline\'">',
           f"<title>{_h(title)}</title><style>{_STYLE}</style></head><body>",
           f"<h1>{_h(title)}</h1>", f"<p>{_h(summary(report))} · gpudoctor {_h(__version__)}</p>",
           '<input id="filter" type="search" placeholder="filter nodes (name, status, failure, value)">',
           '<table id="nodes"><thead><tr><th>node</th>'
           + "".join(f"<th>{_h(section_title(s))}</th>" for s in report.sections)
           + "<th>exit</th><th>driver</th><th>GPUs</th><th>failure</th></tr></thead><tbody>"]
    for node in report.nodes:
        statuses = dict(node.sections)
        cells = "".join(f'<td class="{_CLASSES.get(statuses.get(s, ""), "na")}">{_h(status_word(statuses.get(s)))}</td>'
                        for s in report.sections)
        gpus = " × ".join(_h(v) for v in (node.fact("gpu_count"), node.fact("gpu_model")) if v)
        failure = f'<td class="failed">{_h(node.failure)}</td>' if node.failure else "<td></td>"
        out.append(f"<tr><td>{_h(node.name)}</td>{cells}<td>{'' if node.exit_code is None else node.exit_code}</td>"
                   f"<td>{_h(node.fact('driver') or '')}</td><td>{gpus}</td>{failure}</tr>")
    out.append("</tbody></table>")
    if report.findings:
        out.append("<h2>Findings by id</h2><ul>")
        out += [f'<li class="{group.severity}">{SEVERITY_SYMBOLS[group.severity]} <code>{_h(group.id)}</code> on '
                f"{len(group.nodes)} node(s): {_h(', '.join(group.nodes))} <br><small>e.g. {_h(group.title)}</small></li>"
                for group in report.findings]
        out.append("</ul>")
    out.append("<h2>Drift</h2><ul>")
    if not report.drift:
        out.append("<li>none: every fact compared is the same on every node that reported it</li>")
    out += [f"<li><b>{_h(d.label)}</b>: {_h(d.summary)}; {'outliers' if d.majority is not None else 'values'}: "
            + _h(", ".join(f"{node} {value}" for node, value in d.outliers)) + "</li>" for d in report.drift]
    out.append("</ul>")
    if report.golden is not None:
        out.append(f"<h2>Against the golden node ({_h(report.golden)})</h2><ul>")
        out += [f"<li>{_h(d.node)}: {_h(d.label)} {_h(d.value)}, "
                f"golden {_h(d.golden)}</li>" for d in report.golden_diffs] or ["<li>every node matches</li>"]
        out.append("</ul>")
    out.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(out) + "\n"
