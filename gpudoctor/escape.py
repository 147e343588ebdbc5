"""Escaping of untrusted text, once, for each output format.

Everything in a report that was read from a snapshot, a paste or the machine is untrusted (DESIGN rule 7): a GPU
name, a path, an environment variable, an error line. The renderers pass every such string through one function
here just before it is written into the output, and through nothing else:

- ``text``: control characters, line and paragraph separators, lone surrogates and the bidirectional overrides
  are shown as ``\\xNN`` / ``\\uNNNN`` (and ``\\n``, ``\\r``, ``\\t``), so a value can neither move the cursor, colour
  the terminal, nor start a new (forged) report line.
- ``markdown``: the same, then Markdown and HTML metacharacters are backslash-escaped (no heading, list, code span,
  fence, link, image, table, emphasis or raw HTML can start inside a value), ``@`` and bare-URL schemes get a
  zero-width space so nobody is pinged and nothing is auto-linked.
- ``markdown_code``: for text inside a code block, where backslashes would show: control characters only.
- ``fence``: a code fence longer than any backtick run in the commands it encloses.

JSON needs nothing here: ``json.dumps`` escapes every control character and surrogate.
"""

from __future__ import annotations

import re
import unicodedata

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Bidirectional embeddings, overrides and isolates ("Trojan Source"): they reorder what the reader sees.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
# Inline structure anywhere in a value: code spans, emphasis, links and images (a "[" is needed for both), raw HTML
# and autolinks, tables, strikethrough, entities, math, issue references.
_MD_INLINE = frozenset("\\`*_[]<>|~&$#")
# Block structure, which a value could start after the renderer's "- ": headings, quotes, lists, breaks.
_MD_BLOCK_START = re.compile(r"^(\s*)([#>+\-=]|\d+[.)])")
_ZWSP = "&#8203;"


def _visible(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _unsafe(char: str) -> bool:
    return char in _BIDI or unicodedata.category(char) in _UNSAFE_CATEGORIES


def text(value: object) -> str:
    """One line of plain text: nothing in it can control the terminal or break the line."""
    s = str(value)
    if s.isprintable():  # fast path: no control character, separator or surrogate (isprintable is False for those)
        return s if not any(c in _BIDI for c in s) else "".join(_visible(c) if c in _BIDI else c for c in s)
    return "".join(_visible(c) if _unsafe(c) else c for c in s)


def markdown(value: object) -> str:
    """Inline Markdown: the value shows as the characters it has, and adds no structure, link, image, HTML or ping."""
    out = []
    for char in text(value):
        if char in _MD_INLINE:
            out.append("\\" + char)
        elif char == "@":
            out.append("@" + _ZWSP)
        else:
            out.append(char)
    escaped = _MD_BLOCK_START.sub(lambda m: m.group(1) + _escape_marker(m.group(2)), "".join(out))
    # GitHub auto-links bare "http://..." and "www.": a zero-width space breaks the scheme.
    return re.sub(r"(?i)(?<=[a-z0-9])(://)|(?<![a-z0-9])(www)(?=\.)", lambda m: _ZWSP + m.group(1) if m.group(1) else m.group(2) + _ZWSP, escaped)


def _escape_marker(marker: str) -> str:
    return marker[:-1] + "\\" + marker[-1] if marker[-1] in ".)" else "\\" + marker


def markdown_code(value: object) -> str:
    """Text inside an (indented or fenced) code block: Markdown is not interpreted there, so only make it one line."""
    return text(value)


def fence(lines: list[str]) -> str:
    """A backtick fence that no line of ``lines`` can close."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)


def html(value: object) -> str:
    """Text inside an HTML element or a quoted attribute: one visible line, no markup (``& < > " '`` escaped)."""
    import html as _html

    return _html.escape(text(value), quote=True)
