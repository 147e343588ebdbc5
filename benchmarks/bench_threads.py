"""Accuracy of `check --from` on the thread corpus, and the time to read a large pasted report.

    python benchmarks/bench_threads.py            # the development part (tests/data/threads/)
    python benchmarks/bench_threads.py --frozen   # the frozen test part, once, at the end of a piece of work

The development part mixes the threads tuned against (before issue 20), the blind ones and the frozen parts of
rounds 1 to 7 (each scored once, then moved there: tests/data/threads/FROZEN-ROUND-1.txt to FROZEN-ROUND-7.txt); each
is shown apart. The frozen part (tests/data/threads-frozen/, round 8 next, chosen by tools/corpus_split.py) is never
opened while code changes; threads listed in its SEEN-BY-DEVELOPER.txt (seen before the split, if any) are left out
of its score.

Prints, for the pasted text alone and with the facts each thread states in words ([context]): how many threads
get their cause right (broken) or get no false error (healthy), by era; then the time to parse and judge a 1 MB
bug report built from the corpus's own pastes (in this process, and as `check --from FILE` in a fresh one), and a
50 MB log (medians of 5 / one run). The budget (issue 23): a 1 MB paste < 0.3 s.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpudoctor.checks import run_checks  # noqa: E402
from gpudoctor.evidence import read_evidence  # noqa: E402
from gpudoctor.matrix import load_matrix  # noqa: E402
from gpudoctor.model import Severity  # noqa: E402
from benchmarks.bench_check import time_command  # noqa: E402
from tests.evidence.corpus import FROZEN, THREADS, diagnose, is_right, threads  # noqa: E402


def _score(label: str, corpus: list, show_misses: bool) -> None:
    broken = [t for t in corpus if not t.healthy]
    healthy = [t for t in corpus if t.healthy]
    named = [t for t in broken if is_right(t, diagnose(t))]
    alarms = [t for t in healthy if not is_right(t, diagnose(t))]
    print(f"{label}: right cause named on {len(named)}/{len(broken)} broken threads ({len(named) / max(len(broken), 1):.1%}); "
          f"an error on {len(alarms)} of {len(healthy)} healthy threads")
    if show_misses:
        for t in broken:
            if t not in named:
                found = sorted({f"{f.id}:{f.severity.label}" for f in diagnose(t).findings if f.severity >= Severity.WARNING})
                print(f"    missed {t.name}: expected {list(t.expected)}, found {found}")
        for t in alarms:
            print(f"    false alarm {t.name}")


def frozen() -> None:
    seen = _listed(FROZEN / "SEEN-BY-DEVELOPER.txt")
    corpus = [t for t in threads(FROZEN) if f"{t.name}.toml" not in seen]
    _score(f"frozen test part ({len(corpus)} threads; {len(seen)} seen as search excerpts left out)", corpus, show_misses=True)


def _listed(path: Path) -> set[str]:
    """The file names a list holds, one a line (lines starting with # are comments)."""
    if not path.exists():
        return set()
    return {line.strip() for line in path.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")}


def accuracy() -> None:
    corpus = threads()
    rounds = {n: _listed(THREADS / f"FROZEN-ROUND-{n}.txt") for n in (1, 2, 3, 4, 5, 6, 7)}
    earlier_frozen = set().union(*rounds.values())
    blind = [t for t in corpus if t.blind and f"{t.name}.toml" not in earlier_frozen]
    _score("blind development part (paste alone)", blind, show_misses="-v" in sys.argv)
    for n, names in rounds.items():
        _score(f"round-{n} frozen part, now development (paste alone)", [t for t in corpus if f"{t.name}.toml" in names],
               show_misses="-v" in sys.argv)
    _score("tuned development part (paste alone)", [t for t in corpus if not t.blind], show_misses="-v" in sys.argv)
    for with_context in (False, True):
        right, total = Counter(), Counter()
        false_alarms = []
        for thread in corpus:
            report = diagnose(thread, with_context)
            ok = is_right(thread, report)
            for key in (thread.era, "healthy" if thread.healthy else "broken", "all"):
                total[key] += 1
                right[key] += ok
            if thread.healthy and not ok:
                false_alarms.append(thread.name)
        label = "pasted text + the thread's stated context" if with_context else "pasted text alone"
        print(f"{label}: {right['all']}/{total['all']} right ({right['all'] / total['all']:.1%})")
        for key in sorted(k for k in total if k != "all"):
            print(f"    {key:10} {right[key]:3}/{total[key]:<3} ({right[key] / total[key]:.0%})")
        print(f"    false alarms on healthy threads: {len(false_alarms)} {false_alarms or ''}")


def timing() -> None:
    matrix = load_matrix()
    pastes = "\n\n".join(t.pasted for t in threads())
    one_mb = (pastes * (1_000_000 // len(pastes) + 1))[:1_000_000]
    runs, cpu = [], []
    for _ in range(5):
        start, start_cpu = time.perf_counter(), time.process_time()
        run_checks(read_evidence(one_mb, "1 MB report"), matrix)
        runs.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)  # what the work costs even when other processes share the cores
    print(f"1 MB bug report ({len(one_mb.splitlines()):,} lines): parse and judge, median of 5: "
          f"{statistics.median(runs) * 1000:.0f} ms wall, {statistics.median(cpu) * 1000:.0f} ms CPU; load {os.getloadavg()[0]:.2f}")
    wall, cpu_s = _command(one_mb)
    print(f"    as a user runs it, `gpudoctor check --from FILE --json` in a fresh process, median of 5: {wall * 1000:.0f} ms "
          f"wall, {cpu_s * 1000:.0f} ms CPU (Python's start, the imports, reading, judging and the JSON)")
    big = one_mb * 50
    start = time.perf_counter()
    report = run_checks(read_evidence(big, "50 MB log"), matrix)
    cut = any(s.kind == "input-truncated" for s in report.facts.symptoms or ())
    print(f"50 MB log: {time.perf_counter() - start:.1f} s{' (cut at the reading limit, said in the report)' if cut else ''}, "
          f"{sum(f.severity == Severity.ERROR for f in report.findings)} error findings")


def _command(text: str) -> tuple[float, float]:
    """Median wall and CPU seconds (user + system of the child) of `check --from` a file holding ``text``."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.txt"
        path.write_text(text, encoding="utf-8")
        argv = [sys.executable, "-m", "gpudoctor", "check", "--from", str(path), "--json"]
        env = {**os.environ, "PYTHONPATH": str(root), "NO_COLOR": "1"}
        wall, cpu, _ = time_command(argv, 5, env)
    return wall, cpu


if __name__ == "__main__":
    if "--frozen" in sys.argv:
        frozen()
    else:
        accuracy()
        timing()
