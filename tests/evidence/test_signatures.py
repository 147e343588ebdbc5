"""The failure-signature table (matrices/signatures.toml) tested from itself: every entry's real lines match, its
near misses do not, its sources are threads, and what it supports is a documented finding id."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.evidence import read_evidence
from gpudoctor.evidence.document import Document
from gpudoctor.evidence.readers import error_lines as reader
from gpudoctor.matrix.tables.signatures import expand, load_signatures, parse_signatures

TABLE = load_signatures()
DOCUMENTED = set(re.findall(r"^\| `([a-z0-9-]+)` \|", (Path(__file__).resolve().parents[2] / "docs" / "facts-format.md").read_text(), re.M))


def _only(signature):
    """A table holding just this entry, so a line is judged by it alone."""
    return type(TABLE)(TABLE.reviewed, (signature,), ())


def _seen(signature, line: str) -> list:
    return list(reader.read(Document.from_text(line), _only(signature)))


@pytest.mark.parametrize("signature", TABLE.signatures, ids=lambda s: s.id)
def test_every_must_match_line_matches_and_establishes_something(signature):
    for line in signature.must_match:
        seen = _seen(signature, line)
        assert seen, f"{signature.id}: {line!r} matched nothing"
        if signature.symptom:
            assert any(o.key == "symptoms[]" and o.value["kind"] == signature.symptom for o in seen), line


@pytest.mark.parametrize("signature", TABLE.signatures, ids=lambda s: s.id)
def test_no_must_not_match_line_matches(signature):
    for line in signature.must_not_match:
        assert _seen(signature, line) == [], f"{signature.id}: {line!r} must not match"


@pytest.mark.parametrize("signature", TABLE.signatures, ids=lambda s: s.id)
def test_every_keyword_filter_lets_its_real_lines_through(signature):
    """A keyword is a cheap pre-filter: a real line the pattern matches must hold one, or it would never be tried."""
    for line in signature.must_match:
        if signature.regex.search(line):
            assert any(k in line for k in signature.keywords), f"{signature.id}: no keyword in {line!r}"


def _top_level_alternatives(pattern: str) -> list[str]:
    """The pattern split at its top-level "|" (not inside a group or a character class)."""
    out, current, depth, in_class, i = [], "", 0, False, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            current, i = current + pattern[i:i + 2], i + 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c in "()":
            depth += 1 if c == "(" else -1
        elif c == "|" and depth == 0:
            out, current, i = out + [current], "", i + 1
            continue
        current, i = current + c, i + 1
    return out + [current]


def _literal(alternative: str) -> str | None:
    """The text an alternative matches when it is a plain literal (escapes and \\b aside), else None."""
    text = re.sub(r"\\b", "", alternative.strip("^$"))
    if re.search(r"(?<!\\)[\[\](){}*+?.|^$]", text):
        return None
    return re.sub(r"\\(.)", r"\1", text)


@pytest.mark.parametrize("signature", [s for s in TABLE.signatures if "(?i)" not in s.pattern], ids=lambda s: s.id)
def test_every_literal_alternative_holds_a_keyword(signature):
    """An alternative of the pattern that no keyword is part of is never tried: "cudaErrorUnsupportedPtxVersion"
    (keyword "PTX") and "CUDA_ERROR_OUT_OF_MEMORY" (keywords "memory", "Memory") were such, found on a real thread."""
    for alternative in _top_level_alternatives(signature.pattern):
        literal = _literal(alternative)
        if literal is not None:
            assert any(k in literal for k in signature.keywords), f"{signature.id}: no keyword in {literal!r}"


@pytest.mark.parametrize("signature", TABLE.signatures, ids=lambda s: s.id)
def test_every_entry_names_its_threads_and_a_documented_finding(signature):
    assert signature.sources and all(s.startswith("https://") for s in signature.sources)
    if signature.supports:
        assert signature.supports in DOCUMENTED, f"{signature.id} supports an undocumented id {signature.supports}"


def test_every_log_finding_id_is_documented():
    assert {f.id for f in TABLE.findings} <= DOCUMENTED


def test_ids_are_unique_and_the_table_is_reviewed():
    ids = [s.id for s in TABLE.signatures]
    assert len(ids) == len(set(ids))
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", TABLE.reviewed)


def test_a_harmless_numpy_warning_is_no_symptom_in_a_whole_report():
    """Class 6 of issue 20: NumPy 1.x's 'dtype size changed' RuntimeWarning is harmless; its ValueError is not."""
    warning = read_evidence("RuntimeWarning: numpy.dtype size changed, may indicate binary incompatibility. Expected 96, got 88\n")
    assert not [s for s in warning.symptoms or () if s.kind == "numpy-abi"]
    error = read_evidence("ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject\n")
    assert [s.kind for s in error.symptoms] == ["numpy-abi"]


def test_a_family_keeps_only_its_first_matching_entry():
    line = "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file"
    facts = read_evidence(line)
    assert [(s.kind, s.framework, s.subject) for s in facts.symptoms] == [("library-not-loadable", "tensorflow", "libcudart.so.11.0")]


def test_a_wrapped_message_is_read_across_the_line_break():
    facts = read_evidence("UserWarning: CUDA initialization: The NVIDIA driver on your\nsystem is too old (found version 11040).\n")
    assert [s.kind for s in facts.symptoms] == ["driver-too-old"]
    assert facts.driver.cuda_version == "11.4"


@pytest.mark.parametrize(("template", "text", "expected"), [
    ("{1|cuda_code}", "11040", "11.4"), ("{1|cuda_code}", "99", None), ("{1|cuda_code}", "9" * 4000, None),
    ("{1|cc}", "sm_120a", "12.0"), ("{1|words}", "sm_50 sm_60.", ["sm_50", "sm_60"]), ("{1|torch_cudnn}", "(8, 5, 0)", "8.5.0"),
    ("{1|torch_cudnn}", "7102", "7.1.2"), ("{1|cudnn_code}", "6021", "6.0.21"), ("{1|cudnn_code}", "7.6.0", "7.6.0"),
    ("sm_{1|sm_digits}", "3.5", "sm_35"), ("{1}", "", None), ("x {1|version}", "1.x", None),
])
def test_templates_and_transforms(template, text, expected):
    assert expand(template, re.match(r"(.*)", text)) == expected


@pytest.mark.parametrize(("entry", "message"), [
    ({"id": "a", "pattern": "(", "keywords": ["x"], "symptom": "s", "sources": ["https://x"], "must_match": ["x"], "must_not_match": ["y"]}, "does not compile"),
    ({"id": "a", "pattern": "x", "keywords": ["x"], "sources": ["https://x"], "must_match": ["x"], "must_not_match": ["y"]}, "establishes nothing"),
    ({"id": "a", "pattern": "x", "keywords": ["x"], "symptom": "s", "sources": [], "must_match": ["x"], "must_not_match": ["y"]}, "sources must be"),
    ({"id": "a", "pattern": "x", "keywords": ["x"], "symptom": "s", "sources": ["http://x"], "must_match": ["x"], "must_not_match": ["y"]}, "https"),
    ({"id": "a", "pattern": "x", "keywords": ["x"], "symptom": "s", "subject": "{2}", "sources": ["https://x"], "must_match": ["x"], "must_not_match": ["y"]}, "names no group"),
    ({"id": "a", "pattern": "x", "keywords": ["x"], "symptom": "s", "sources": ["https://x"], "must_match": ["x"], "must_not_match": []}, "must_not_match"),
    ({"id": "a", "pattern": "x", "keywords": ["x"], "symptom": "s", "colour": 1, "sources": ["https://x"], "must_match": ["x"], "must_not_match": ["y"]}, "unknown keys"),
])
def test_a_malformed_entry_is_refused_naming_it(entry, message):
    with pytest.raises(MatrixError, match=message):
        parse_signatures({"signature": [entry]})


def test_a_finding_for_a_symptom_nobody_establishes_is_refused():
    with pytest.raises(MatrixError, match="no signature establishes"):
        parse_signatures({"finding": [{"symptom": "ghost", "id": "x", "severity": "info", "section": "gpu", "title": "t", "fix": {"summary": "s"}}]})


@pytest.mark.parametrize("signature", TABLE.signatures, ids=lambda s: s.id)
def test_the_whole_table_finds_each_real_line(signature):
    """Through the full table (every keyword scan and family at once), each must-match line still gives what its own
    entry establishes, unless an earlier entry of its family took the line."""
    for line in signature.must_match:
        alone = {(o.key, str(o.value)) for o in _seen(signature, line)}
        together = {(o.key, str(o.value)) for o in reader.read(Document.from_text(line))}
        family_first = signature.family and any(
            s.family == signature.family and s.regex.search(line) for s in TABLE.signatures[:TABLE.signatures.index(signature)])
        assert family_first or alone <= together, f"{signature.id}: {line!r}"
