"""One JSON nesting bound on every Python (gpudoctor/jsontext.py): 3.11 refused a 5,000-deep object with
RecursionError, 3.12 and later parsed it and the snapshot loaded (exit 0 where 3.11 said exit 2)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpudoctor import jsontext


def _object(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


def _array(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("make", [_object, _array])
def test_the_bound_is_the_same_whatever_the_interpreter_can_parse(make):
    assert jsontext.loads(make(jsontext.MAX_DEPTH)) is not None
    for depth in (jsontext.MAX_DEPTH + 1, 5_000, 100_000):
        with pytest.raises(jsontext.TooDeep):
            jsontext.loads(make(depth))


def test_too_deep_is_a_value_error_and_bytes_work():
    assert issubclass(jsontext.TooDeep, ValueError)
    assert jsontext.loads(b'{"a": [1, 2]}') == {"a": [1, 2]}
    with pytest.raises(jsontext.TooDeep):
        jsontext.loads(_array(200).encode())


@given(st.recursive(st.none() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=40))
def test_anything_shallow_reads_as_json_loads_reads_it(value):
    text = json.dumps(value)
    assert jsontext.loads(text) == json.loads(text)
