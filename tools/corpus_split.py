"""The one rule that decides which collected threads form the frozen test part of the thread corpus.

Fixed before any new thread was collected (issue 20): a thread is frozen when the first hex digit of the SHA-256 of
its normalised URL is 0-7, i.e. about half of the new threads, chosen by a hash nobody can steer. Frozen threads go
to tests/data/threads-frozen/ and are not opened while gpudoctor's code changes; benchmarks/bench_threads.py scores
them apart from the development part (tests/data/threads/).

    python tools/corpus_split.py INCOMING_DIR     # moves each new *.toml to its part; refuses duplicates
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DEVELOPMENT = ROOT / "tests" / "data" / "threads"
FROZEN = ROOT / "tests" / "data" / "threads-frozen"


def normalised(url: str) -> str:
    return url.strip().lower().rstrip("/").split("#")[0]


def is_frozen(url: str) -> bool:
    return hashlib.sha256(normalised(url).encode()).hexdigest()[0] in "01234567"


def known_urls() -> set[str]:
    return {normalised(tomllib.loads(p.read_text(encoding="utf-8"))["url"])
            for part in (DEVELOPMENT, FROZEN) for p in part.glob("*.toml")}


def main(incoming: Path) -> int:
    seen = known_urls()
    moved = {"development": 0, "frozen": 0, "duplicate": 0, "unreadable": 0}
    for path in sorted(incoming.rglob("*.toml")):
        try:
            url = tomllib.loads(path.read_text(encoding="utf-8"))["url"]
        except (tomllib.TOMLDecodeError, KeyError, UnicodeDecodeError) as exc:
            print(f"unreadable, left where it is: {path}: {exc}", file=sys.stderr)
            moved["unreadable"] += 1
            continue
        if normalised(url) in seen:
            moved["duplicate"] += 1
            continue
        seen.add(normalised(url))
        part = FROZEN if is_frozen(url) else DEVELOPMENT
        part.mkdir(parents=True, exist_ok=True)
        target = part / path.name
        if target.exists():
            target = part / f"{path.stem}-{hashlib.sha256(url.encode()).hexdigest()[:6]}.toml"
        path.rename(target)
        moved["frozen" if part is FROZEN else "development"] += 1
    print(", ".join(f"{k}: {v}" for k, v in moved.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
