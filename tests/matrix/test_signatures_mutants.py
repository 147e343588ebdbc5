"""matrix/signatures.py (issue 20) pinned for mutation testing from the matrix package's own tests: the transforms a
template names, ``expand``, and every refusal of ``parse_signatures`` with its exact one-line message. The table is
parsed here from the file itself (``load_signatures`` and ``load_matrix`` cache theirs once a process).

Equivalent mutants:
- _cuda_code `len(text) > 7` for `> 6`: a seven-digit code is at least 1000000, which the range check (< 100000) refuses
  as well; the length check only spares ``int()`` a very long string.
- expand `failed = None` for `failed = False`: ``failed`` is only tested for truth.
- expand's inner value() returning "XXXX" instead of "" after a transform refuses: ``failed`` is set, so the whole
  template is None whatever that part holds.
- _signature `_TEMPLATE.finditer(template or "XXXX")` for `or ""`: neither string holds a placeholder.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from gpudoctor.errors import MatrixError
from gpudoctor.matrix.tables import signatures as s
from gpudoctor.model import Fix, Section, Severity

TOML = Path(__file__).resolve().parents[2] / "matrices" / "signatures.toml"


def doc() -> dict:
    return tomllib.loads(TOML.read_text())


# -- transforms ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "out"), [
    ("11040", "11.4"), ("12020", "12.2"), ("1000", "1.0"), ("99990", "99.99"), ("999", None), ("100000", None),
    ("1234567", None), ("11.4", None), ("", None), ("099999", "99.99"),
])
def test_cuda_code(text, out):
    assert s._cuda_code(text) == out


@pytest.mark.parametrize(("text", "out"), [
    ("sm_86", "8.6"), ("compute_90", "9.0"), ("sm_120a", "12.0"), (" SM_75 ", "7.5"), ("sm_37", "3.7"), ("sm_8", None),
    ("gfx90a", None), ("sm_86ab", None), ("sm_086", "8.6"),
])
def test_cc(text, out):
    assert s._cc(text) == out


@pytest.mark.parametrize(("text", "out"), [
    ("6021", "6.0.21"), ("7605", "7.6.5"), ("5105", "5.1.5"), ("7005", "7.0.5"), ("8000", "8.0.0"), ("7.6.0", "7.6.0"), ("123", "123"), ("12345", "12345"), ("7a05", "7a05"),
])
def test_cudnn_code(text, out):
    assert s._cudnn_code(text) == out


@pytest.mark.parametrize(("text", "out"), [
    ("(8, 5, 0)", "8.5.0"), ("7102", "7.1.2"), ("7005", "7.0.5"), ("8900", "8.9.0"), ("(9, 1)", "9.1"), ("1234567", "1234567"), ("", ""),
    # up to six digits are read as M*1000+m*100+p, the only integer form torch's message has had (cuDNN <= 8); newer
    # torch prints a tuple, so a cuDNN 9 code (90100) never reaches this branch
    ("100005", "100.0.5"),
])
def test_torch_cudnn(text, out):
    assert s._torch_cudnn(text) == out


@pytest.mark.parametrize(("text", "out"), [("12.4.1", "12.4"), ("08.01", "8.1"), ("12", None), ("x1.2", None), ("1.2x", "1.2")])
def test_major_minor(text, out):
    assert s._major_minor(text) == out


# -- expand ----------------------------------------------------------------------------------------------------------


def _m(pattern: str, text: str) -> re.Match:
    match = re.search(pattern, text)
    assert match
    return match


@pytest.mark.parametrize("template", [True, 3, None, ["{1}"], {"a": "{1}"}])
def test_a_template_that_is_no_string_is_kept(template):
    assert s.expand(template, _m(r"(x)", "x")) is template


def test_expand_puts_groups_in_stripped_and_keeps_a_whole_placeholder_s_type():
    m = _m(r"for (\S+) (\w*)\s*\((.*)\)", "for torch==1.13.1 cu121 ( sm_50 sm_60 )")
    assert s.expand("{1}|{3}", m) == "torch==1.13.1|sm_50 sm_60"
    assert s.expand("{3|words}", m) == ["sm_50", "sm_60"]
    assert s.expand("{2}", m) == "cu121"
    assert s.expand("x {2}", m) == "x cu121"
    assert s.expand("plain", m) == "plain"


def test_expand_gives_none_for_a_missing_group_or_a_refusing_transform():
    m = _m(r"(a)(b)?", "a")
    assert s.expand("{2}", m) is None  # the optional group did not take part
    assert s.expand("{9}", m) is None  # no such group
    assert s.expand("{1}{2}", m) == "a"  # a missing group in a longer template is left empty
    assert s.expand("{2} ", m) is None  # nothing but blanks left
    assert s.expand("{1|cuda_code}", m) is None
    assert s.expand("v{1|cuda_code}", m) is None  # a refusal anywhere refuses the whole template
    assert s.expand("{1|words}", _m(r"(.*)", ", ,")) is None  # an empty list
    assert s.expand("{1|pin}", _m(r"(\d*)x", "x")) is None
    assert s.expand("{1|pin}", _m(r"(\d+)", "12")) == "==12"


def test_a_regex_without_groups_expands_placeholders_to_nothing():
    assert s.expand("{1}", _m(r"abc", "abc")) is None
    assert s.expand("k={1}", _m(r"abc", "abc")) == "k="


# -- parse_signatures ------------------------------------------------------------------------------------------------


def entry(**kw) -> dict:
    base = {"id": "a", "pattern": r"x(\d)", "keywords": ["x"], "symptom": "s", "sources": ["https://x"], "must_match": ["x1"],
            "must_not_match": ["y"]}
    base.update(kw)
    return {k: v for k, v in base.items() if v is not ...}


def refused(message: str, signatures=(), findings=()):
    with pytest.raises(MatrixError) as exc:
        s.parse_signatures({"signature": list(signatures), "finding": list(findings)})
    assert str(exc.value) == message


@pytest.mark.parametrize(("kw", "message"), [
    ({"colour": 1, "size": 2}, "signatures.toml: signature 'a': unknown keys ['colour', 'size']"),
    ({"id": ...}, "signatures.toml: signature 0: id must be a non-empty string"),
    ({"id": ""}, "signatures.toml: signature '': id must be a non-empty string"),
    ({"id": 5}, "signatures.toml: signature 5: id must be a non-empty string"),
    ({"pattern": ""}, "signatures.toml: signature 'a': pattern must be a non-empty string"),
    ({"pattern": ...}, "signatures.toml: signature 'a': pattern must be a non-empty string"),
    ({"pattern": "("}, "signatures.toml: signature 'a': pattern does not compile: missing ), unterminated subpattern at position 0"),
    ({"symptom": 1}, "signatures.toml: signature 'a': symptom must be a string"),
    ({"framework": ["torch"]}, "signatures.toml: signature 'a': framework must be a string"),
    ({"subject": 1}, "signatures.toml: signature 'a': subject must be a string"),
    ({"when": 1}, "signatures.toml: signature 'a': when must be a string"),
    ({"family": 1}, "signatures.toml: signature 'a': family must be a string"),
    ({"supports": 1}, "signatures.toml: signature 'a': supports must be a string"),
    ({"facts": []}, "signatures.toml: signature 'a': facts and implied must be tables (implied: of strings)"),
    ({"implied": []}, "signatures.toml: signature 'a': facts and implied must be tables (implied: of strings)"),
    ({"implied": {"k": 1}}, "signatures.toml: signature 'a': facts and implied must be tables (implied: of strings)"),
    ({"symptom": ...}, "signatures.toml: signature 'a': establishes nothing (no symptom and no facts)"),
    ({"sources": []}, "signatures.toml: signature 'a': sources must be a non-empty list of strings"),
    ({"sources": "https://x"}, "signatures.toml: signature 'a': sources must be a non-empty list of strings"),
    ({"sources": ["https://x", 1]}, "signatures.toml: signature 'a': sources must be a non-empty list of strings"),
    ({"sources": ["https://x", "http://y"]}, "signatures.toml: signature 'a': every source must be an https URL"),
    ({"subject": "{2}"}, "signatures.toml: signature 'a': template {2} names no group or transform of it"),
    ({"when": "{1|nope}"}, "signatures.toml: signature 'a': template {1|nope} names no group or transform of it"),
    ({"facts": {"k.{2}": "v"}}, "signatures.toml: signature 'a': template {2} names no group or transform of it"),
    ({"facts": {"k": "{3|cc}"}}, "signatures.toml: signature 'a': template {3|cc} names no group or transform of it"),
    ({"keywords": []}, "signatures.toml: signature 'a': keywords must be a non-empty list of strings"),
    ({"keywords": ...}, "signatures.toml: signature 'a': keywords must be a non-empty list of strings"),
    ({"must_match": []}, "signatures.toml: signature 'a': must_match must be a non-empty list of strings"),
    ({"must_not_match": ...}, "signatures.toml: signature 'a': must_not_match must be a non-empty list of strings"),
])
def test_a_malformed_signature_is_refused_with_its_exact_message(kw, message):
    refused(message, [entry(**kw)])


def test_an_optional_list_of_strings_may_be_left_out_or_empty():
    assert s._strings({}, "k", "w") == () and s._strings({"k": []}, "k", "w") == ()
    assert s._strings({"k": ["a", "b"]}, "k", "w") == ("a", "b")
    with pytest.raises(MatrixError, match="^signatures.toml: w: k must be a list of strings$"):
        s._strings({"k": "a"}, "k", "w")


def test_what_a_signature_keeps():
    facts = {"k.{1}": "{1|cc}", "flag": True}
    table = s.parse_signatures({"reviewed": "2026-11-01", "signature": [entry(
        framework="torch", subject="{1}", facts=facts, implied={"k": "why"}, when="{1}", family="f", supports="x-y",
        must_not_match=["y", "z"], keywords=["x", "q"])]})
    assert table.reviewed == "2026-11-01" and table.findings == ()
    (sig,) = table.signatures
    assert sig == s.Signature("a", r"x(\d)", ("x", "q"), "s", "torch", "{1}", (("k.{1}", "{1|cc}"), ("flag", True)), {"k": "why"},
                              "{1}", "f", "x-y", ("https://x",), ("x1",), ("y", "z"))
    assert sig.regex.pattern == r"x(\d)" and sig.regex is sig.regex


def test_facts_alone_establish_something_and_optional_keys_default():
    (sig,) = s.parse_signatures({"signature": [entry(symptom=..., facts={"driver.version": "{1}"}, must_not_match=["y"])]}).signatures
    assert (sig.symptom, sig.framework, sig.subject, sig.when, sig.family, sig.supports, sig.implied) == (None, None, None, None, None, None, {})
    assert s.parse_signatures({}).signatures == () and s.parse_signatures({}).reviewed == ""


def test_a_duplicate_id_is_refused():
    refused("signatures.toml: signature id 'a' is used twice", [entry(), entry(id="b"), entry()])


FINDING = {"symptom": "s", "id": "f", "severity": "warning", "section": "cudnn", "title": "t", "fix": {"summary": "do", "commands": ["c"], "url": "https://u"},
           "explanation": ["because"]}


def test_what_a_finding_keeps():
    (f,) = s.parse_signatures({"signature": [entry()], "finding": [FINDING]}).findings
    assert f == s.LogFinding("s", "f", Severity.WARNING, Section.CUDNN, "t", Fix("do", ("c",), "https://u"), ("because",))
    bare_entry = {**{k: v for k, v in FINDING.items() if k != "explanation"}, "fix": {"summary": "do"}}
    (bare,) = s.parse_signatures({"signature": [entry()], "finding": [bare_entry]}).findings
    assert bare.fix == Fix("do", (), None) and bare.explanation == ()


@pytest.mark.parametrize(("change", "message"), [
    ({"fix": ...}, "signatures.toml: finding 'f': missing or malformed 'fix'"),
    ({"title": ...}, "signatures.toml: finding 'f': missing or malformed 'title'"),
    ({"severity": "fatal"}, "signatures.toml: finding 'f': missing or malformed 'FATAL'"),
    ({"section": 3}, "signatures.toml: finding 'f': missing or malformed 'int' object has no attribute 'upper'"),
    ({"fix": {"commands": []}}, "signatures.toml: finding 'f': missing or malformed 'summary'"),
    ({"id": ...}, "signatures.toml: finding 0: missing or malformed 'id'"),
])
def test_a_malformed_finding_is_refused_naming_it(change, message):
    bad = {k: v for k, v in {**FINDING, **change}.items() if v is not ...}
    refused(message, [entry()], [bad])


def test_a_finding_for_a_symptom_no_signature_establishes_is_refused():
    refused("signatures.toml: finding for symptom 'ghost', which no signature establishes", [entry()], [FINDING, {**FINDING, "symptom": "ghost"}])


def test_the_real_table_parses_whole():
    data = doc()
    table = s.parse_signatures(data)
    assert [x.id for x in table.signatures] == [e["id"] for e in data["signature"]]
    assert [(f.symptom, f.id) for f in table.findings] == [(e["symptom"], e["id"]) for e in data["finding"]]
    assert table.reviewed == str(data["reviewed"])


def test_load_signatures_reads_the_directory_given(tmp_path):
    (tmp_path / "signatures.toml").write_text('reviewed = "2026-01-02"\n[[signature]]\nid = "a"\npattern = "x"\nkeywords = ["x"]\n'
                                              'symptom = "s"\nsources = ["https://x"]\nmust_match = ["x"]\nmust_not_match = ["y"]\n')
    table = s.load_signatures(tmp_path)
    assert table.reviewed == "2026-01-02" and [x.id for x in table.signatures] == ["a"]
    assert s.load_signatures(None).signatures == s.parse_signatures(doc()).signatures
