"""The escaping functions on the inputs that broke reports before: each shows the value and adds no structure."""

from __future__ import annotations

import pytest

from gpudoctor.escape import fence, markdown, text


@pytest.mark.parametrize("raw, shown", [
    ("Tesla T4", "Tesla T4"),
    ("T4\x1b[2J", "T4\\x1b[2J"),
    ("a\nSummary: no problems found.", "a\\nSummary: no problems found."),
    ("a\r\tb", "a\\r\\tb"),
    ("x\x9b31m", "x\\x9b31m"),  # the one-byte CSI
    ("x\u2028y\u202ez", "x\\u2028y\\u202ez"),
    ("bad \ud800 name", "bad \\ud800 name"),
    ("ünïcode ✓ stays", "ünïcode ✓ stays"),
])
def test_text_shows_control_characters_and_keeps_the_rest(raw, shown):
    assert text(raw) == shown


@pytest.mark.parametrize("raw, shown", [
    ("# Forged", "\\# Forged"),
    ("1. item", "1\\. item"),
    ("- item", "\\- item"),
    ("> quote", "\\> quote"),
    ("[x](http://e)", "\\[x\\](http&#8203;://e)"),
    ("![i](j)", "!\\[i\\](j)"),
    ("<img src=x>", "\\<img src=x\\>"),
    ("ping @octocat", "ping @&#8203;octocat"),
    ("```", "\\`\\`\\`"),
    ("**b** _e_ ~s~ | $m$ &amp;", "\\*\\*b\\*\\* \\_e\\_ \\~s\\~ \\| \\$m\\$ \\&amp;"),
    ("www.evil.example", "www&#8203;.evil.example"),
    ("NVIDIA H100 80GB HBM3, driver 570.124.06", "NVIDIA H100 80GB HBM3, driver 570.124.06"),
    ("line\n## two", "line\\\\n\\#\\# two"),
])
def test_markdown_escapes_structure_and_keeps_plain_values_readable(raw, shown):
    assert markdown(raw) == shown


def test_a_fence_is_longer_than_any_backtick_run_inside():
    assert fence(["echo hi"]) == "```"
    assert fence(["a ```` b", "c"]) == "`````"
