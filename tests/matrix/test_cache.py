"""The on-disk matrix cache: a hit returns what the tables say, any change to the inputs misses, and a broken entry
or an unwritable directory only costs a normal load."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix.tables.cache import cache_dir, cached, content_key
from gpudoctor.resources import matrices_dir


@pytest.fixture
def tables(tmp_path: Path) -> Path:
    directory = tmp_path / "matrices"
    directory.mkdir()
    for path in matrices_dir().glob("*.toml"):  # the required tables and the optional ones (wheels, platforms...)
        shutil.copy(path, directory / path.name)
    return directory


@pytest.fixture
def store(tmp_path: Path, monkeypatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", str(where))
    return where


def counting_loader(calls: list[Path]):
    from gpudoctor.matrix import _parse_and_validate

    def load(directory: Path):
        calls.append(directory)
        return _parse_and_validate(directory)

    return load


def test_a_second_run_reads_the_stored_entry_and_gets_an_equal_matrix(tables, store):
    calls: list[Path] = []
    first = cached(tables, counting_loader(calls))
    second = cached(tables, counting_loader(calls))
    assert calls == [tables]
    assert second == first and second is not first
    assert [p.name for p in store.iterdir()] == [f"matrix-{content_key(tables)}.pickle"]


def test_a_stored_matrix_unpickles_each_table_on_first_use_and_equals_the_loaded_one(tables, store):
    from gpudoctor.matrix.tables.model import _PICKLED, _TABLES

    loaded = cached(tables, counting_loader([]))
    stored = cached(tables, counting_loader([]))
    assert sorted(stored.__dict__[_PICKLED]) == sorted(_TABLES)  # nothing of them unpickled yet
    assert stored.rocm == loaded.rocm and stored.rocm is not None
    assert "rocm" not in stored.__dict__[_PICKLED] and "xid" in stored.__dict__[_PICKLED]
    assert stored == loaded  # compares (so unpickles) every table
    assert stored.__dict__[_PICKLED] == {}
    again = pickle.loads(pickle.dumps(stored))  # a matrix with its tables unpickled pickles them one by one again
    assert sorted(again.__dict__[_PICKLED]) == sorted(_TABLES) and again == loaded


def test_an_edited_table_is_a_different_key_and_is_loaded_again(tables, store):
    calls: list[Path] = []
    before = cached(tables, counting_loader(calls))
    path = tables / "gpus.toml"
    path.write_text(path.read_text().replace('"TITAN RTX"', '"TITAN RTX (edited)"', 1))
    after = cached(tables, counting_loader(calls))
    assert len(calls) == 2
    assert any("TITAN RTX (edited)" in gpu.names for gpu in after.gpus)
    assert not any("TITAN RTX (edited)" in gpu.names for gpu in before.gpus)


def test_a_corrupt_entry_falls_back_to_the_tables(tables, store):
    cached(tables, counting_loader([]))
    (entry,) = store.iterdir()
    entry.write_bytes(b"not a pickle")
    calls: list[Path] = []
    assert cached(tables, counting_loader(calls)).gpus
    assert calls == [tables]


def test_an_invalid_table_is_never_stored(tables, store):
    (tables / "cuda.toml").write_text("this is = not [valid")
    with pytest.raises(MatrixError):
        cached(tables, counting_loader([]))
    assert not store.exists() or not any(store.iterdir())


def test_an_unwritable_cache_directory_still_loads(tables, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", str(blocker / "cache"))
    calls: list[Path] = []
    assert cached(tables, counting_loader(calls)).gpus
    assert calls == [tables]


def test_an_empty_setting_turns_the_cache_off(tables, monkeypatch):
    monkeypatch.setenv("GPUDOCTOR_CACHE_DIR", "")
    assert cache_dir() is None
    calls: list[Path] = []
    cached(tables, counting_loader(calls))
    cached(tables, counting_loader(calls))
    assert calls == [tables, tables]


def test_the_default_place_follows_xdg_and_home(monkeypatch, tmp_path):
    monkeypatch.delenv("GPUDOCTOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "gpudoctor"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "gpudoctor"


def test_a_new_entry_keeps_only_the_three_newest_others(tables, store):
    import os

    store.mkdir(parents=True)
    for age in range(5):  # five entries of earlier releases, the oldest first
        old = store / f"matrix-old{age}.pickle"
        old.write_bytes(b"stale")
        os.utime(old, ns=(1_000_000_000 * (age + 1),) * 2)
    (store / "unrelated-file").write_text("kept")
    cached(tables, counting_loader([]))
    assert sorted(p.name for p in store.iterdir()) == sorted(
        [f"matrix-{content_key(tables)}.pickle", "matrix-old2.pickle", "matrix-old3.pickle", "matrix-old4.pickle",
         "unrelated-file"])
