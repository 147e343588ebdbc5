"""Any text at all gives a report or a one-line error: never a traceback, never a crashed check."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudoctor.checks import run_checks
from gpudoctor.errors import SnapshotError
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.render.markdown import render_markdown
from gpudoctor.render.text import render_text

from .corpus import threads

MATRIX = load_matrix()
# Fragments of real output, so that generated text reaches deep into the readers instead of bouncing off them.
FRAGMENTS = [line for t in threads()[:40] for line in t.pasted.splitlines() if line.strip()][:400] + [
    "Driver Version:", "CUDA Version:", "PyTorch version:", "GPU 0:", "sm_", "[pip3] torch==", "(found version", "|", "{", "[",
    "Could not collect", "N/A", "\x1b[2J", "\x00", "9" * 50, "\ud800",
    "### GPU model and memory", "### CUDA/cuDNN version", "- CUDA/cuDNN version:", "- GPU Model/Driver: [", "WSL2", "_No response_",
]
texts = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=40)), max_size=30).map("\n".join)


def test_a_prompt_followed_by_a_traceback_line():  # found by the property test below
    text = '>>> torch.cuda.is_available()\n  File "/data/users/x/pytorch/torch/cuda/__init__.py", line 311, in _lazy_init'
    assert read_evidence(text).frameworks is None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_any_text_is_read_and_judged_without_a_crash(text):
    try:
        facts = read_evidence(text, "fuzz")
    except SnapshotError as exc:
        assert "\n" not in str(exc)
        return
    report = run_checks(facts, MATRIX, "fuzz")
    assert report.crashes == ()
    for rendered in (render_text(report, verbose=True), render_markdown(report)):
        assert "\x1b" not in rendered and "\x00" not in rendered


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=60))
def test_shuffled_real_lines_never_crash_a_check(lines):
    try:
        facts = read_evidence("\n".join(lines), "fuzz")
    except SnapshotError as exc:  # e.g. a lone "{": a snapshot that does not parse is a one-line error, not a crash
        assert "\n" not in str(exc)
        return
    report = run_checks(facts, MATRIX, "fuzz")
    assert report.crashes == ()
