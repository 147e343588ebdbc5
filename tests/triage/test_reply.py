"""gpudoctor triage: when it names a cause, what it quotes, and that nothing in an issue body can add structure,
a ping, a link or HTML to the reply."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from gpudoctor.evidence.observation import Observation
from gpudoctor.matrix import load_matrix
from gpudoctor.escape import markdown_code
from gpudoctor.render.reply import render_reply
from gpudoctor.triage import Outcome, triage
from gpudoctor.triage import support
from tests.evidence.corpus import threads

EVENTS = Path(__file__).resolve().parent.parent / "data" / "github-events"
MATRIX = load_matrix()
TF_BUILD = 'python -c "import tensorflow as tf; print(tf.__version__, tf.sysconfig.get_build_info())"'


def body(name: str) -> str:
    return json.loads((EVENTS / f"issues-opened-{name}.json").read_text(encoding="utf-8"))["issue"]["body"]


def tokens(reply: str):
    """Every token of the reply as CommonMark reads it, inline children included."""
    out = []
    for token in MarkdownIt("commonmark").parse(reply):
        out.append(token)
        out += token.children or []
    return out


def assert_inert(reply: str, fix_urls: tuple[str, ...] = ()) -> None:
    """No raw HTML, image or link but gpudoctor's own fix page, no heading, no live mention, no bare URL outside code."""
    all_tokens = tokens(reply)
    kinds = {t.type for t in all_tokens}
    assert not kinds & {"html_inline", "html_block", "image", "heading_open"}, kinds
    in_link = False
    for t in all_tokens:
        if t.type in ("link_open", "link_close"):
            assert t.type == "link_close" or t.attrs["href"] in fix_urls, t.attrs
            in_link = t.type == "link_open"
        if t.type == "text" and not in_link:
            assert not re.search(r"(?<![\w`])@[A-Za-z0-9]", t.content), t.content  # GitHub would ping it
            assert not re.search(r"(?i)[a-z]://|(?<![\w.])www\.", t.content), t.content  # GitHub would link it


def test_a_broken_report_gets_its_cause_the_lines_that_show_it_and_the_fix():
    result = triage([(body("broken"), "issue")], MATRIX)
    assert result.outcome is Outcome.CAUSE and result.cause.id == "gpu-arch-not-in-build"
    assert any("sm_120 is not compatible" in q.text for q in result.quoted)
    reply = render_reply(result)
    assert "`gpu-arch-not-in-build`" in reply and "pip install torch==" in reply
    assert_inert(reply, (result.cause.fix.url,))


def test_a_healthy_report_gets_no_reply():
    result = triage([(body("healthy"), "issue")], MATRIX)
    assert result.outcome is Outcome.NOTHING and render_reply(result) == ""


def test_a_hostile_body_is_quoted_inside_a_fence_it_cannot_close_and_adds_nothing_live():
    result = triage([(body("hostile"), "issue")], MATRIX)
    assert result.outcome is Outcome.CAUSE and result.quoted
    reply = render_reply(result)
    assert_inert(reply, (result.cause.fix.url,))
    fences = [t for t in tokens(reply) if t.type == "fence"]
    for q in result.quoted:  # each quoted line is the whole content of one fence: it closed nothing
        assert any(f.content.strip("\n").strip() == markdown_code(q.text).strip() for f in fences), q.text
    assert "<img" not in reply and "<script" not in reply and "<!--" not in reply
    # outside code, what the body says is escaped text: the reply's structure is gpudoctor's alone
    assert [t.type for t in tokens(reply) if t.type in ("bullet_list_open", "fence")].count("fence") == len(fences)


@pytest.mark.parametrize("text", [
    "```\n@octocat\n```", "<!-- hidden -->@a/b", "[x](javascript:alert(1)) ![i](http://x/i.png) <https://e.x>",
    "````\n~~~\n</details>\n# h", "*bold* _it_ | a | b |\n|---|---|", "\u202e\u2066evil\u2069 \x1b[31mred",
])
def test_any_text_in_a_quoted_line_stays_inert(text):
    from gpudoctor.triage.verdict import QuotedLine

    result = triage([(body("broken"), "issue")], MATRIX)
    hostile = type(result)(result.outcome, result.report, result.cause, (QuotedLine(0, 1, text.replace("\n", " "), text),))
    assert_inert(render_reply(hostile), (result.cause.fix.url,))


def test_a_cause_resting_only_on_the_reporters_words_is_not_named():
    # TensorFlow's version stated in the issue form only (Windows is printed: the Python banner says "on win32")
    thread = next(t for t in threads() if t.name == "gh-tensorflow-62080")
    result = triage([(thread.pasted, thread.name)], MATRIX)
    assert result.outcome is Outcome.ASK and result.cause is None and "states" in result.doubt
    # the commands are those of the stated facts the cause needs (TensorFlow's version), not of every stated one
    assert (result.doubt, result.doubt_commands) == (
        "it rests on what the report states in words or in the issue form, not on output a command printed", (TF_BUILD,))
    assert triage([(thread.pasted, thread.name)], MATRIX, only_when_sure=True).outcome is Outcome.UNSURE
    reply = render_reply(result)
    assert "gpudoctor cannot tell" in reply and "```sh" in reply
    assert_inert(reply)


def test_the_os_stated_only_in_words_asks_for_the_command_that_prints_it():
    thread = next(t for t in threads() if t.name == "gh-tensorflow-62080")
    without_banner = "\n".join(line for line in thread.pasted.splitlines() if "[MSC v." not in line)
    result = triage([(without_banner, thread.name)], MATRIX)
    assert result.doubt_commands == (TF_BUILD, 'python -c "import platform, sys; print(platform.platform(), sys.version)"')


def test_touching_sees_a_contradiction_the_cause_depends_on():
    from gpudoctor.model import Contradiction

    observations = [Observation("frameworks.torch.version", "2.6.0+cpu", 1, "collect_env")]
    judge = support.judge_with(MATRIX, "x")
    lost = Contradiction("frameworks.torch.version", "2.6.0+cpu", "collect_env, line 1", "2.6.0+cu126", "pip list, line 9")
    unrelated = Contradiction("host.python", "3.11", "collect_env, line 2", "3.12", "pip list, line 1")
    found = [f.id for f in judge(observations).findings if f.severity >= 2]
    shown = support.minimal(observations, found[0], judge)
    assert support.touching(shown, observations, [unrelated], found[0], judge) == []
    assert support.touching(shown, observations, [lost], found[0], judge) == [lost]


def test_the_smallest_support_keeps_only_what_the_cause_needs():
    observations = [Observation("frameworks.torch.version", "2.6.0+cpu", 1, "collect_env"),
                    Observation("host.python", "3.11.4", 2, "collect_env"),
                    Observation("host.os", "Ubuntu 22.04", 3, "collect_env")]
    judge = support.judge_with(MATRIX, "x")
    cause = next(f.id for f in judge(observations).findings if f.severity >= 2)
    assert [g[0].key for g in support.minimal(observations, cause, judge)] == ["frameworks.torch.version"]


def test_no_cause_is_posted_on_a_healthy_development_thread():
    posted = [t.name for t in threads() if t.healthy and triage([(t.pasted, t.name)], MATRIX).outcome is Outcome.CAUSE]
    assert posted == []


def test_every_reply_on_the_development_threads_is_inert():
    for thread in threads()[::5]:
        result = triage([(thread.pasted, thread.name)], MATRIX)
        assert_inert(render_reply(result), (result.cause.fix.url,) if result.cause and result.cause.fix else ())


@pytest.mark.parametrize("name, flags, code, printed", [
    ("broken", [], 0, True), ("unsure", [], 4, True), ("unsure", ["--only-when-sure"], 5, False),
    ("healthy", [], 6, False), ("hostile", ["--only-when-sure"], 0, True),
])
def test_the_exit_code_says_which_reply_was_made(tmp_path, name, flags, code, printed):
    from click.testing import CliRunner

    from gpudoctor.cli import main

    issue = tmp_path / "issue.md"
    issue.write_text(body(name), encoding="utf-8")
    done = CliRunner().invoke(main, ["triage", str(issue), "--id-file", str(tmp_path / "id"), *flags])
    assert done.exit_code == code, done.output
    assert bool(done.output) is printed
    assert (tmp_path / "id").exists() is (code == 0)


def test_an_empty_issue_gets_no_reply_and_a_missing_file_is_a_usage_error(tmp_path):
    from click.testing import CliRunner

    from gpudoctor.cli import main

    (tmp_path / "empty.md").write_text("", encoding="utf-8")
    assert CliRunner().invoke(main, ["triage", str(tmp_path / "empty.md")]).exit_code == 6
    assert CliRunner().invoke(main, ["triage", str(tmp_path / "nothing.md")]).exit_code == 2


def test_an_effect_without_its_cause_is_asked_about_not_named():
    # torch cannot load cuDNN, which its wheel brings: the report shows that the install is broken, not why
    text = ('  File "/home/u/venv/lib64/python3.11/site-packages/torch/__init__.py", line 427, in <module>\n'
            "    from torch._C import *  # noqa: F403\n"
            "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n")
    result = triage([(text, "issue")], MATRIX)
    assert "cuda-library-not-on-loader-path" in {f.id for f in result.report.findings}
    assert result.outcome is Outcome.ASK and result.cause is None
    assert result.doubt == "the report shows that the GPU cannot be used, but not why"


def test_doubt_of_a_warning_and_of_a_cause_the_pasted_outputs_disagree_about():
    import dataclasses

    from gpudoctor.model import Contradiction, Severity
    from gpudoctor.triage import _doubt

    judge = support.judge_with(MATRIX, "x")
    printed = [Observation("frameworks.torch.version", "2.6.0+cu126", 1, "collect_env"),
               Observation("frameworks.torch.arch_list", ["sm_50", "sm_80", "sm_90"], 2, "collect_env"),
               Observation("gpus[0].name", "NVIDIA GeForce RTX 5090", 3, "nvidia-smi"),
               Observation("gpus[0].compute_capability", "12.0", 4, "nvidia-smi")]
    report = judge(printed)
    (cause,) = [f for f in report.findings if f.id == "gpu-arch-not-in-build"]
    assert _doubt(printed, printed, report, cause, judge)[:2] == (None, ())  # nothing disagrees: it may be named
    # a warning is what may go wrong, never the cause; its section's command would show more
    warning = dataclasses.replace(cause, severity=Severity.WARNING)
    assert _doubt(printed, printed, report, warning, judge) == (
        "what the report shows may go wrong, but not why the GPU does not work", ("python -m torch.utils.collect_env",), [])
    # the outputs disagree about the GPU (twice) and the torch build the cause rests on, and about an unrelated Python
    gpu = ("gpus[0].name", "NVIDIA GeForce RTX 5090", "nvidia-smi, line 3")
    disagree = (Contradiction("host.python", "3.11", "collect_env, line 2", "3.12", "pip list, line 1"),
                Contradiction(*gpu, "NVIDIA A100-SXM4-80GB", "issue form"),
                Contradiction("frameworks.torch.version", "2.6.0+cu126", "collect_env, line 1", "2.8.0+cu128", "pip list, line 4"),
                Contradiction(*gpu, "NVIDIA GeForce RTX 4090", "issue body"))
    report = dataclasses.replace(report, facts=dataclasses.replace(report.facts, contradictions=disagree))
    assert _doubt(printed, printed, report, cause, judge) == (
        "the pasted outputs disagree about gpus[0].name, frameworks.torch.version", ("nvidia-smi", "python -m torch.utils.collect_env"), [])
