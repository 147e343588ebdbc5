"""Fuzz the installed CLI (``python -m gpudoctor``, this checkout first on PYTHONPATH) over hostile inputs for the
newest surfaces (tools/fuzz_cases.py) and classify every outcome against DESIGN.md's contract:

  traceback       stderr has "Traceback"
  hang            the run passed its timeout
  exit-code       an exit code outside what the command may return (3 = gpudoctor itself failed, always a defect)
  control-char    a raw control character, ESC, bidi override, separator or lone surrogate in stdout or stderr
  forged-line     a line of the output starts with text that came from the input (a newline in a value)
  error-line      an exit-2 run whose stderr is not one "gpudoctor: error: ..." line
  html            an element or attribute in an HTML page that came from the input
  markdown        Markdown structure from the input (a heading, link, image, mention, raw HTML, extra table cell)
  clobbered       a file that existed was changed without --force

    nice -n 10 /work/main/.venv/bin/python tools/fuzz_cli.py [--cases 60] [--seed 1] [--jobs 2] [--only fleet,bench]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools import fuzz_cases  # noqa: E402
from tools.fuzz_cases import REPO, Case  # noqa: E402
from tests.render.html_check import injected_markup  # noqa: E402

RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
FORGED = re.compile(r"^[\s|#>*`\-]*FORGED", re.M)


def html_problems(page: str) -> list[str]:
    return injected_markup(page, "FUZZ")


def markdown_problems(md: str) -> list[str]:
    problems = []
    header_cells, fence = None, None
    for line in md.splitlines():
        # The renderer's own code (fenced or indented: shown literally) and its <details> wrapper are not prose.
        if fence:
            fence = None if line == fence else fence
            continue
        opening = re.fullmatch(r"( *`{3,})(?:sh|text)", line)  # the commands, and the lines a triage reply quotes
        if opening:
            fence = opening.group(1)
            continue
        if line.startswith("    ") or line in ("<details><summary>facts</summary>", "</details>"):
            continue
        if re.match(r"^ {0,3}#+ .*(FORGED|FUZZ)", line):
            problems.append("heading from input")
        # "  - see <https://...>" (a triage reply: "See <https://...>") is the renderer's own autolink for a fix's page (a URL from gpudoctor's code or
        # matrix, never from the input): not markup from the input
        prose = re.sub(r"^(?:  - see|See) <https://[^<>\s]+>$", "", line)
        if re.search(r"(?<!\\)\]\(", prose) or re.search(r"(?<!\\)<[A-Za-z!/]", prose):
            problems.append("link/image/HTML from input")
        if "@fuzzmention" in line:
            problems.append("mention from input")
        if line.startswith("|"):
            cells = len(re.findall(r"(?<!\\)\|", line))
            header_cells = header_cells or cells
            if cells != header_cells:
                problems.append("table row with extra cells")
        else:
            header_cells = None
    return problems


def classify(case: Case, rc: int | None, out: str, err: str, workdir: Path, before: dict, details: list) -> list[str]:
    """The defect classes of one run; ``details`` gets what the HTML and Markdown checks saw."""
    if rc is None:
        return ["hang"]
    found = []
    if "Traceback" in err or "Traceback" in out:
        found.append("traceback")
    if rc not in case.codes:
        found.append("exit-code")
    if RAW_CONTROL.search(out) or RAW_CONTROL.search(err):
        found.append("control-char")
    if FORGED.search(err) or (not case.html and FORGED.search(out)):
        found.append("forged-line")
    if rc == 2 and not (err.startswith("gpudoctor: error: ") or err.startswith("Usage:")) or (rc == 2 and err.startswith("gpudoctor: error: ") and err.count("\n") != 1):
        found.append("error-line")
    if case.html and rc in (0, 1):
        page = out if "-o" not in case.argv else (workdir / case.argv[case.argv.index("-o") + 1]).read_text(errors="replace")
        if html_problems(page):
            found.append("html")
            details += html_problems(page)
    if case.markdown and (rc in (0, 1) or (case.surface == "triage" and rc == 4)) and markdown_problems(out):
        found.append("markdown")
        details += [line for line in out.splitlines() if markdown_problems(line) and not line.startswith("    ")][:3]
    for name, content in before.items():
        if (workdir / name).read_bytes() != content:
            found.append("clobbered")
    return found


def _argv(args: list[str]) -> list[str]:
    # An argument cannot hold NUL or an unencodable surrogate: the OS would refuse it before gpudoctor sees it.
    return [a.replace("\x00", "0").encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
            if _encodable(a) else a.encode("utf-8", "replace").decode() for a in args]


def _encodable(a: str) -> bool:
    try:
        a.encode("utf-8", "surrogateescape")
        return True
    except UnicodeEncodeError:
        return False


def run_case(case: Case, timeout: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="gpudoctor-fuzz-") as tmp:
        workdir = Path(tmp)
        case.setup(workdir)
        before = {name: (workdir / name).read_bytes() for name in case.protected}
        env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
        env.pop("GPUDOCTOR_DEBUG", None)
        start = time.monotonic()
        try:
            done = subprocess.run([sys.executable, "-m", "gpudoctor", *_argv(case.argv)], cwd=workdir, env=env,
                                  capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
            rc, out, err = done.returncode, done.stdout.decode("utf-8", "surrogateescape"), done.stderr.decode("utf-8", "surrogateescape")
        except subprocess.TimeoutExpired:
            rc, out, err = None, "", ""
        details: list[str] = []
        classes = classify(case, rc, out, err, workdir, before, details)
    return {"details": details, "surface": case.surface, "argv": [a[:80] for a in case.argv], "note": case.note, "rc": rc,
            "classes": classes, "seconds": round(time.monotonic() - start, 2), "stderr": err[-600:], "stdout": out[:300]}


def build_cases(count: int, seed: int, only: set[str] | None) -> list[Case]:
    rng = random.Random(seed)
    snapshots = fuzz_cases.snapshot_examples(max(count, 10), seed)
    base = fuzz_cases.base_report()
    cases = (fuzz_cases.fleet_cases(rng, base, snapshots, count) + fuzz_cases.bench_cases(rng, count)
             + fuzz_cases.check_cases(rng, snapshots, count) + fuzz_cases.matrix_cases(rng, count // 2)
             + fuzz_cases.triage_cases(rng, count))
    return [c for c in cases if only is None or c.surface in only]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=60, help="generated cases per surface")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--only", help="comma-separated surfaces: fleet, bench, snapshot, paste, matrix, triage")
    parser.add_argument("--log", type=Path, help="write every outcome as JSON lines here")
    args = parser.parse_args()
    cases = build_cases(args.cases, args.seed, set(args.only.split(",")) if args.only else None)
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda c: run_case(c, args.timeout), cases))
    if args.log:
        args.log.write_text("".join(json.dumps(r) + "\n" for r in results))
    by_class = collections.Counter(c for r in results for c in r["classes"])
    by_surface = collections.Counter((r["surface"], c) for r in results for c in r["classes"])
    print(f"{len(results)} cases, {sum(1 for r in results if r['classes'])} with a defect")
    for name, count in sorted(by_class.items()):
        print(f"  {name}: {count}  (" + ", ".join(f"{s} {n}" for (s, c), n in sorted(by_surface.items()) if c == name) + ")")
    shown = set()
    for r in results:
        for c in r["classes"]:
            if (r["surface"], c) not in shown:
                shown.add((r["surface"], c))
                print(f"\n[{c}] {r['surface']} {r['note']} rc={r['rc']} argv={r['argv']!r}\n  stderr: {r['stderr'][-300:]!r}\n  stdout: {r['stdout'][:200]!r}\n  details: {r['details']!r}")
    return 1 if by_class else 0


if __name__ == "__main__":
    sys.exit(main())
