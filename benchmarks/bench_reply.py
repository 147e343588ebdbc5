"""How right `gpudoctor triage` is when it speaks, over a thread corpus (a directory of thread TOML files: `pasted`,
`healthy`, `expected`; see tests/evidence/corpus.py).

    python benchmarks/bench_reply.py                       # the development part, tests/data/threads/
    python benchmarks/bench_reply.py DIRECTORY [-v]        # any other part (the frozen one is scored once, at the end)

Each thread's `pasted` text is triaged as an issue body would be (no `context`: a bot sees only the issue). Prints:
when the reply names a cause, how often it is one of the thread's `expected` ids (a cause named on a healthy thread
counts as wrong); the share of broken threads where it names a cause; every cause posted on a healthy thread; how
often it asks for output or stays silent; and the time per thread. `-v` lists every wrong or missed thread.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpudoctor.matrix import load_matrix  # noqa: E402
from gpudoctor.triage import Outcome, triage  # noqa: E402
from tests.evidence.corpus import THREADS, threads  # noqa: E402


def score(directory: Path, verbose: bool = False) -> dict:
    matrix = load_matrix()
    corpus = threads(directory)
    outcomes: Counter = Counter()
    right, wrong, healthy_named, missed, seconds = [], [], [], [], []
    for thread in corpus:
        start = time.perf_counter()
        result = triage([(thread.pasted, thread.name)], matrix)
        seconds.append(time.perf_counter() - start)
        outcomes[(thread.healthy, result.outcome)] += 1
        if result.outcome is Outcome.CAUSE:
            cause = result.cause.id
            if thread.healthy:
                healthy_named.append((thread.name, cause))
            (right if cause in thread.expected else wrong).append((thread.name, cause, thread.expected))
        elif not thread.healthy:
            missed.append((thread.name, result.outcome.name.lower(), result.doubt, thread.expected))
    broken = sum(not t.healthy for t in corpus)
    named = len(right) + len(wrong)
    named_broken = sum(n for (healthy, o), n in outcomes.items() if not healthy and o is Outcome.CAUSE)
    print(f"{directory}: {len(corpus)} threads ({broken} broken, {len(corpus) - broken} healthy)")
    print(f"  cause named on {named} threads: one of the expected ids on {len(right)}/{named} "
          f"({len(right) / max(named, 1):.1%})")
    print(f"  broken threads with a cause named: {named_broken}/{broken} ({named_broken / max(broken, 1):.1%})")
    print(f"  causes posted on healthy threads: {len(healthy_named)} {healthy_named or ''}")
    for healthy in (False, True):
        shown = ", ".join(f"{o.name.lower()} {outcomes[(healthy, o)]}" for o in Outcome if outcomes[(healthy, o)])
        print(f"  {'healthy' if healthy else 'broken'} threads' replies: {shown}")
    print(f"  triage time per thread: median {statistics.median(seconds) * 1000:.0f} ms, max {max(seconds) * 1000:.0f} ms")
    if verbose:
        healthy_names = {t.name for t in corpus if t.healthy}
        for name, cause, expected in wrong:
            what = list(expected) or ("nothing (healthy)" if name in healthy_names else "[] (broken; no documented id names its cause)")
            print(f"    wrong  {name}: named {cause}, expected {what}")
        for name, outcome, doubt, expected in missed:
            print(f"    {outcome:6} {name}: expected {list(expected)}{f' ({doubt})' if doubt else ''}")
    return {"named": named, "right": len(right), "broken": broken, "named_broken": named_broken,
            "healthy_named": healthy_named}


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    score(Path(args[0]) if args else THREADS, verbose="-v" in sys.argv)
