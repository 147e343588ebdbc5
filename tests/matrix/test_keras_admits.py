"""matrix.keras.admits decides ">=A" and ">=A,<B" by PEP 440's rules without importing packaging.specifiers: it
must give SpecifierSet's answer (pre-releases allowed) for every version, including pre-, post-, dev-releases,
epochs and local labels, and for every requirement keras.toml holds."""

from __future__ import annotations

try:
    import tomllib  # novermin: tomli stands in below 3.11
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from gpudoctor.matrix.tables.keras import admits
from gpudoctor.resources import matrices_dir


def _table_specs() -> list[str]:
    data = tomllib.loads((matrices_dir() / "keras.toml").read_text())
    specs = {row["keras"] for row in data.get("tensorflow", [])} | {row["tensorflow"] for row in data.get("standalone", [])}
    return sorted(specs)


TABLE_SPECS = _table_specs()


def reference(spec: str, version: Version) -> bool:
    return SpecifierSet(spec).contains(version, prereleases=True)


@st.composite
def versions(draw) -> Version:
    release = ".".join(str(draw(st.integers(0, 3 if i else 4))) for i in range(draw(st.integers(1, 3))))
    text = release
    if draw(st.booleans()):
        text = f"{draw(st.integers(0, 1))}!{text}" if draw(st.integers(0, 9)) == 0 else text
    if draw(st.booleans()):
        text += f"{draw(st.sampled_from(['a', 'b', 'rc']))}{draw(st.integers(0, 2))}"
    if draw(st.integers(0, 3)) == 0:
        text += f".post{draw(st.integers(0, 2))}"
    if draw(st.integers(0, 3)) == 0:
        text += f".dev{draw(st.integers(0, 2))}"
    if draw(st.integers(0, 3)) == 0:
        text += f"+{draw(st.sampled_from(['cpu', 'cu121', 'local.7']))}"
    return Version(text)


@st.composite
def ordered_specs(draw) -> str:
    def bound() -> str:
        text = ".".join(str(draw(st.integers(0, 3 if i else 4))) for i in range(draw(st.integers(1, 3))))
        if draw(st.integers(0, 2)) == 0:
            text += f"{draw(st.sampled_from(['a', 'b', 'rc']))}{draw(st.integers(0, 2))}"
        if draw(st.integers(0, 4)) == 0:
            text += f".dev{draw(st.integers(0, 2))}"
        return text
    clauses = [f">={bound()}"] if draw(st.booleans()) else []
    if not clauses or draw(st.booleans()):
        clauses.append(f"<{bound()}")
    return ",".join(clauses)


@settings(max_examples=3000, deadline=None)
@given(version=versions(), spec=st.one_of(st.sampled_from(TABLE_SPECS), ordered_specs()))
def test_admits_agrees_with_specifierset(version, spec):
    assert admits(spec, version) == reference(spec, version)


@pytest.mark.parametrize("spec, version, expected", [
    (">=2.15.0,<2.16", "2.15.1", True),
    (">=2.15.0,<2.16", "2.16.0rc1", False),  # a pre-release of the excluded bound
    (">=2.15.0,<2.16", "2.16.0", False),
    (">=2.15.0,<2.16", "2.15.0rc2", False),  # before the lower bound
    (">=2.9.0rc0,<2.10.0", "2.9.0rc1", True),
    (">=3.5.0", "3.5.0+local", True),  # a local label is ignored by >=
    (">=3.5.0", "3.4.9", False),
    ("~=3.5", "3.6.1", True),  # another operator: SpecifierSet itself
    ("==2.15.*", "2.15.1", True),
])
def test_admits_examples(spec, version, expected):
    assert admits(spec, Version(version)) is expected
