"""The thread corpus (tests/data/threads/*.toml) and the one rule for what counts as right; shared by the test and by
benchmarks/bench_threads.py."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_many
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Report, Severity

THREADS = Path(__file__).resolve().parent.parent / "data" / "threads"
# The frozen test part (tools/corpus_split.py): scored by benchmarks/bench_threads.py --frozen once, at the end of a
# piece of work; never opened, and never run by the tests, while gpudoctor's code changes.
FROZEN = THREADS.parent / "threads-frozen"


@dataclass(frozen=True)
class Thread:
    name: str
    url: str
    era: str
    tags: tuple[str, ...]
    healthy: bool
    expected: tuple[str, ...]
    pasted: str
    context: dict | None
    blind: bool = False  # collected blind (issue 20): by a helper who neither read nor ran gpudoctor


def threads(directory: Path = THREADS) -> list[Thread]:
    out = []
    for path in sorted(directory.glob("*.toml")):
        d = tomllib.loads(path.read_text(encoding="utf-8"))
        out.append(Thread(path.stem, d["url"], d["era"], tuple(d.get("tags", ())), d["healthy"], tuple(d["expected"]),
                          d["pasted"], d.get("context"), "collected_by" in d))
    return out


_DIAGNOSED: dict[tuple[str, str, bool], Report] = {}


def diagnose(thread: Thread, with_context: bool = False) -> Report:
    """The report for a thread, judged once per test session (reports are frozen: several tests read the same one)."""
    key = (thread.name, thread.pasted, bool(with_context and thread.context))
    if key not in _DIAGNOSED:
        inputs = [(thread.pasted, thread.name)]
        if key[2]:
            inputs.append((json.dumps(thread.context), f"{thread.name} context"))
        _DIAGNOSED[key] = run_checks(read_many(inputs), load_matrix(), thread.name)
    return _DIAGNOSED[key]


def is_right(thread: Thread, report: Report) -> bool:
    """A healthy thread: no error. A broken one: an expected id at warning or error severity."""
    if thread.healthy:
        return not any(f.severity == Severity.ERROR for f in report.findings)
    return any(f.id in thread.expected and f.severity >= Severity.WARNING for f in report.findings)
