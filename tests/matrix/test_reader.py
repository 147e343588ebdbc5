"""The typed reader of matrices/*.toml (matrix/reader.py): each wrong value is one MatrixError naming the file,
the key path and what was expected (issue 11)."""

from __future__ import annotations

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix.tables.broken import parse_rules
from gpudoctor.matrix.tables.gpu_specs import _spec
from gpudoctor.matrix.tables.reader import Reader
from gpudoctor.matrix.tables.row_readers import gpu

ROW = {"name": "x", "n": 3, "flag": True, "list": ["a"], "versions": ["2.7", "2.8.1"], "urls": ["https://example.org/a"],
       "pins": {"2.7": "0.22"}, "arch": ["sm_80", "compute_90"], "rows": [{"v": "1.0"}, {"v": 2}]}


def reader():
    return Reader("torch.toml", ROW, "release[3]")


def test_values_of_the_right_type_are_read():
    r = reader()
    assert (r.str("name"), r.int("n"), r.bool("flag", False), r.strs("list")) == ("x", 3, True, ("a",))
    assert r.versions("versions") == ("2.7", "2.8.1") and r.urls("urls") == ("https://example.org/a",)
    assert r.pins("pins") == {"2.7": "0.22"} and r.arch("arch") == ("sm_80", "compute_90")
    assert r.str("missing", False) is None and r.int("missing", False) is None and r.strs("missing", False) == ()
    assert r.urls("missing") == () and r.pins("missing") == {} and r.arch("missing") is None and r.bool("missing", True) is True


@pytest.mark.parametrize(("read", "message"), [
    (lambda r: r.str("missing"), "key 'release[3].missing': missing"),
    (lambda r: r.str("n"), "key 'release[3].n': must be a string, got int"),
    (lambda r: r.int("name"), "key 'release[3].name': must be an integer"),
    (lambda r: r.int("flag"), "key 'release[3].flag': must be an integer"),
    (lambda r: r.bool("n", False), "key 'release[3].n': must be true or false"),
    (lambda r: r.strs("name"), "key 'release[3].name': must be a list of strings"),
    (lambda r: r.versions("list"), "key 'release[3].list': not a plain version: 'a'"),
    (lambda r: r.urls("list"), "key 'release[3].list': not a URL: 'a'"),
    (lambda r: r.urls("missing", required=True), "key 'release[3].missing': missing"),
    (lambda r: r.pins("list"), "key 'release[3].list': must be a table of version = version"),
    (lambda r: r.arch("list"), "key 'release[3].list': not an architecture (sm_XY / compute_XY): 'a'"),
    (lambda r: r.sub("name"), "key 'release[3].name': must be a table"),
    (lambda r: r.tables("list"), "key 'release[3].list[0]': must be a table"),
    (lambda r: r.tables("n"), "key 'release[3].n': must be a non-empty array of tables ([[...]])"),
    (lambda r: r.tables("rows")[1].str("v"), "key 'release[3].rows[1].v': must be a string, got int"),
    (lambda r: r.version("name"), "key 'release[3].name': not a version: 'x'"),
    (lambda r: r.date("name"), "key 'release[3].name': must be a date YYYY-MM-DD, got 'x'"),
])
def test_each_wrong_value_names_the_file_and_key(read, message):
    with pytest.raises(MatrixError) as caught:
        read(reader())
    assert str(caught.value) == f"matrices/torch.toml: {message}"


def test_an_empty_required_source_list_is_refused():
    with pytest.raises(MatrixError, match=r"^matrices/x\.toml: key 'sources': must list at least one source URL$"):
        Reader("x.toml", {"sources": []}, "").urls("sources", required=True)


def test_a_gpu_row_or_spec_without_names_is_refused():
    for read, row in ((gpu, {"cc": "8.9", "architecture": "Ada", "names": []}), (_spec, {"name": "x", "names": []})):
        with pytest.raises(MatrixError) as caught:
            read(Reader("gpus.toml", row, "cc[3]"))
        assert str(caught.value) == "matrices/gpus.toml: key 'cc[3].names': must list at least one product name"


def test_a_known_broken_table_without_its_date_names_the_key():
    with pytest.raises(MatrixError) as caught:
        parse_rules({"sources": ["https://example.org"]}, lambda doc, where: Reader("known_broken.toml", doc, where))
    assert str(caught.value) == "matrices/known_broken.toml: key 'reviewed': missing"
