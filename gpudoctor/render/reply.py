"""The Markdown comment a triage posts on an issue. Every value that came from the issue (lines, GPU names, versions
in titles) goes through escape.py once: prose through ``markdown`` (no HTML, link, image, heading or ping can
start in it), quoted lines inside a fence that none of them can close (``fence``) after ``markdown_code``. Home
paths and GPU UUIDs are redacted as in ``check --markdown``. Returns the comment, or "" when there is nothing to post."""

from __future__ import annotations

from .. import __version__
from ..triage.verdict import Outcome, Triage
from ..escape import fence, markdown, markdown_code
from .markdown import _link, redact

MAX_LINE = 300  # a quoted line longer than this is cut (and says so)
_FOOTER = (f"_Written by gpudoctor {__version__} from the text of this issue. It names a cause only when command "
           "output pasted here shows it; otherwise it asks for the output that would. A maintainer may disagree._")


def render_reply(result: Triage) -> str:
    if result.outcome is Outcome.CAUSE and result.cause is not None:
        out = _cause(result)
    elif result.outcome is Outcome.ASK:
        out = _ask(result)
    else:
        return ""
    return "\n".join([*out, "", _FOOTER]) + "\n"


def _md(value: object) -> str:
    return markdown(redact(str(value)))


def _code_block(lines: list[str], info: str = "") -> list[str]:
    shown = [markdown_code(redact(line)) for line in lines]
    marker = fence(shown)
    return [f"{marker}{info}", *shown, marker]


def _cause(result: Triage) -> list[str]:
    cause = result.cause
    out = [f"**gpudoctor: {_md(cause.title)}** ({_id(cause.id)})", ""]
    if result.quoted:
        out += ["What shows it in this issue:", ""]
        for q in result.quoted:
            text = q.text if len(q.text) <= MAX_LINE else q.text[:MAX_LINE] + " …(cut)"
            out += [f"- line {q.line}" + (f" of input {q.input + 1}" if q.input else "") + f" ({_md(q.reader)}):", ""]
            out += ["  " + line for line in _code_block([text], "text")] + [""]
    if cause.evidence:
        out += ["Why:", "", *[f"- {_md(line)}" for line in cause.evidence], ""]
    if cause.explains:
        out += [f"It also explains: {', '.join(_id(i) for i in cause.explains)}.", ""]
    if cause.fix:
        out += [f"**Fix:** {_md(cause.fix.summary)}", ""]
        if cause.fix.commands:
            out += [*_code_block(list(cause.fix.commands), "sh"), ""]
        if cause.fix.url:
            out += [f"See {_link(cause.fix.url, _md)}", ""]
    out += _missing(result, "Not judged from this issue (the output of these would settle it):")
    return out[:-1] if out and out[-1] == "" else out


def _ask(result: Triage) -> list[str]:
    out = ["**gpudoctor cannot tell the cause from this issue yet.**", ""]
    if result.doubt:
        out += [f"What it suspects is not certain: {_md(result.doubt)}.", ""]
    commands = list(dict.fromkeys([*result.doubt_commands, *(m.command for m in result.missing)]))
    if not commands:
        commands = ["python -m torch.utils.collect_env", "nvidia-smi"]
    out += ["Could you run these where the problem happens and paste their output here?", "", *_code_block(commands, "sh")]
    unjudged = result.missing
    if unjudged:
        out += ["", "Not judged yet: " + "; ".join(f"{_md(m.section.value)} ({_md(m.reason)})" for m in unjudged) + "."]
    return out


def _missing(result: Triage, heading: str) -> list[str]:
    if not result.missing:
        return []
    out = [heading, ""]
    for m in result.missing:
        out.append(f"- {_md(m.section.value)}: {_md(m.reason)}")
    return [*out, "", *_code_block([m.command for m in result.missing], "sh"), ""]


def _id(finding_id: str) -> str:
    """A finding id as a code span: ids are kebab-case constants of gpudoctor, anything else is escaped prose."""
    import re

    return f"`{finding_id}`" if re.fullmatch(r"[a-z0-9][a-z0-9-]{0,80}", finding_id) else _md(finding_id)
