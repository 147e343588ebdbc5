from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.model import Facts
from gpudoctor.snapshot import facts_from_json

DATA = Path(__file__).parent / "data"
FACTS_DIR = DATA / "facts"


def load_facts(name: str) -> Facts:
    path = FACTS_DIR / f"{name}.json"
    return facts_from_json(path.read_text(), str(path))


@pytest.fixture
def facts_fixture():
    return load_facts


@pytest.fixture(autouse=True, scope="session")
def _private_matrix_cache(tmp_path_factory):
    """The suite keeps the matrix cache (gpudoctor/matrix/cache.py) in its own directory, not the user's ~/.cache;
    child processes the tests start inherit it through the environment."""
    import os

    previous = os.environ.get("GPUDOCTOR_CACHE_DIR")
    os.environ["GPUDOCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("gpudoctor-cache"))
    yield
    if previous is None:
        os.environ.pop("GPUDOCTOR_CACHE_DIR", None)
    else:
        os.environ["GPUDOCTOR_CACHE_DIR"] = previous
