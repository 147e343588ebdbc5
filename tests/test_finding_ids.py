"""Every finding id the checks can emit is documented in docs/facts-format.md, and is kebab-case."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ID_IN_CODE = re.compile(r'Finding\(\s*"([a-z0-9-]+)"|"([a-z0-9]+(?:-[a-z0-9]+)+)",\s*Severity\.')


def ids_in_code() -> set[str]:
    found = set()
    for path in (ROOT / "gpudoctor" / "checks").glob("*.py"):
        for match in ID_IN_CODE.finditer(path.read_text()):
            found.add(match.group(1) or match.group(2))
    return found


def test_checks_emit_ids_found_by_the_scan():
    assert {"no-nvidia-gpu", "gpu-arch-not-in-build", "driver-too-old-for-cuda-build"} <= ids_in_code()


def documented_ids() -> set[str]:
    doc = (ROOT / "docs" / "facts-format.md").read_text()
    return set(re.findall(r"^\| `([a-z0-9-]+)` \|", doc, flags=re.M))


def test_every_id_is_documented():
    assert ids_in_code() - documented_ids() == set()


def test_every_id_the_checks_really_emit_is_documented():
    """The scan above only sees ids written as literals; this runs the checks over every recorded machine and every
    corpus thread, so an id built any other way is caught too."""
    from gpudoctor.checks import run_checks
    from gpudoctor.evidence import read_evidence
    from gpudoctor.matrix import load_matrix
    from tests.conftest import FACTS_DIR, load_facts

    matrix = load_matrix()
    emitted: set[str] = set()
    for path in sorted(FACTS_DIR.glob("*.json")):
        emitted |= {f.id for f in run_checks(load_facts(path.stem), matrix).findings}
    for path in sorted((ROOT / "tests" / "data" / "pasted").glob("*.txt")):
        facts = read_evidence(path.read_text(encoding="utf-8", errors="replace"), path.name)
        emitted |= {f.id for f in run_checks(facts, matrix).findings}
    from tests.evidence.corpus import diagnose, threads

    for thread in threads():
        emitted |= {f.id for f in diagnose(thread, with_context=True).findings}
    assert len(emitted) >= 35  # the fixtures and threads exercise most rules: a broken run would emit almost nothing
    assert all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)+", i) for i in emitted), emitted
    assert emitted - documented_ids() == set()
