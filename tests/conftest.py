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
