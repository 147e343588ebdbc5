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


def test_every_id_is_documented():
    doc = (ROOT / "docs" / "facts-format.md").read_text()
    documented = set(re.findall(r"^\| `([a-z0-9-]+)` \|", doc, flags=re.M))
    assert ids_in_code() - documented == set()
