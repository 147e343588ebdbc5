"""Hostile inputs for the newest surfaces of the CLI (used by tools/fuzz_cli.py): fleet directories, saved bench
results for --compare, pasted AMD / Jetson text, matrix arguments, snapshots with the new keys, and outputs that must
not be written over. Each case is (surface, argv, setup) where setup(dir) creates the files argv names, relative to
the case's own empty directory. Markers (FORGED, FUZZ) let the classifier tell input text from the renderer's own."""

from __future__ import annotations

import copy
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent

# Each would control a terminal, start a forged line, or add Markdown/HTML structure if written raw.
MARKED = [
    "\nFORGED line", "\r\nFORGED", "\x1b[31mFUZZ", "\x1b]8;;http://evil\x07FUZZ", "\x9b2J", "\x00", "\x7f", "\u2028FORGED",
    "\u202eFUZZ", "\ud800", "\x08\x08", "```", "\n```\nFORGED", "\n# FORGED heading", "[FUZZ](http://evil.example)",
    "![FUZZ](http://e/x.png)", "<script>FUZZ</script>", '"><b class=FUZZ>', "' onmouseover='FUZZ", "<!--", "]]>",
    "@fuzzmention", "| FUZZ | col |", "**FUZZ**", "&amp;", "[bold]FUZZ[/bold]", "%s%n", "{0}", "\\", "\t",
]
ODD = ["sm_86", "cu121", "", " ", "9" * 60, "9" * 5000, "1." + "9" * 4400, "nan", "-1", "gfx", "gfx90a:sramecc+:xnack-",
       "r36.4.3", "6.4", "RTX 4090", "²", "٣", "１２.８", "node²", "\udcff"]


def hostile(rng: random.Random) -> str:
    parts = [rng.choice(MARKED + ODD) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.3:
        parts.append("".join(chr(rng.randint(1, 0x2FFF)) for _ in range(rng.randint(1, 6))))
    return "".join(parts)


@dataclass
class Case:
    surface: str
    argv: list[str]
    setup: Callable[[Path], None] = lambda d: None
    protected: tuple[str, ...] = ()  # files created by setup that the run must leave as they were
    html: bool = False
    markdown: bool = False
    codes: frozenset = frozenset({0, 1, 2})
    note: str = ""
    extra: dict = field(default_factory=dict)


def _write(path: Path, content: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        text = content if isinstance(content, str) else json.dumps(content)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")


def base_report() -> dict:
    from gpudoctor.checks import run_checks
    from gpudoctor.matrix import load_matrix
    from gpudoctor.render.json_report import report_to_dict
    from gpudoctor.snapshot import facts_from_json

    path = REPO / "tests/data/facts/torch-tf-cudnn-conflict.json"
    return json.loads(json.dumps(report_to_dict(run_checks(facts_from_json(path.read_text(), str(path)), load_matrix(), "fuzz"))))


def hostile_report(rng: random.Random, base: dict) -> dict:
    report = copy.deepcopy(base)
    for section in report.get("sections", []):
        if rng.random() < 0.3:
            section["section"] = hostile(rng)
        if rng.random() < 0.3:
            section["status"] = hostile(rng)
    for finding in report.get("findings", []):
        for key in ("id", "title", "severity"):
            if rng.random() < 0.3:
                finding[key] = hostile(rng)
    facts = report.setdefault("facts", {})
    facts.setdefault("driver", {})["version"] = hostile(rng)
    for gpu in facts.get("gpus") or []:
        gpu["name"] = hostile(rng)
    report.setdefault("summary", {})["exit_code"] = rng.choice([0, 1, 2**70, -1, "1", None, True])
    return report


def snapshot_examples(count: int, seed: int) -> list:
    """Hostile snapshots from the suite's hypothesis strategy over the whole Facts format (new keys included)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    from tests.render.hostile import any_snapshot

    found: list = []

    @hseed(seed)
    @settings(max_examples=count, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(any_snapshot)
    def grab(data):
        found.append(data)

    grab()
    return found[:count]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def fleet_cases(rng: random.Random, base: dict, snapshots: list, n: int) -> list[Case]:
    garbage = ["", "{", "null", "[]", '"x"', nested(100_000), '{"a":' * 50_000, "1" * 5000, '{"schema": 1}',
               json.dumps({"schema": "gpudoctor.report/1", "summary": {"exit_code": 10**30}}), "\x00" * 100,
               json.dumps({"schema": "gpudoctor.report/1", "findings": "x" * 10_000_000}), "NaN", "[1e999]"]
    cases = []
    for i in range(n):
        files: dict[str, object] = {}
        for _ in range(rng.randint(1, 5)):
            name = hostile(rng).replace("/", "_").replace("\x00", "0")[:100] or "n"
            kind = rng.random()
            files[name] = (hostile_report(rng, base) if kind < 0.5 else rng.choice(snapshots) if kind < 0.8
                           else rng.choice(garbage))
        golden = rng.random() < 0.3
        fmt = rng.choice([[], ["--json"], ["--markdown"], ["--html"]])

        def setup(d: Path, files=files, golden=golden) -> None:
            for name, content in files.items():
                try:
                    _write(d / "nodes" / f"{name}.json", content)
                except (OSError, UnicodeEncodeError):
                    _write(d / "nodes" / f"n{len(name)}.json", content)
            if golden:
                _write(d / "golden.json", rng.choice(list(files.values())))

        cases.append(Case("fleet", ["fleet", "--from", "nodes", *(["--golden", "golden.json"] if golden else []), *fmt],
                          setup, html=fmt == ["--html"], markdown=fmt == ["--markdown"]))
    cases += _fleet_special(base)
    return cases


def _fleet_special(base: dict) -> list[Case]:
    def many(d: Path) -> None:
        for i in range(1000):
            _write(d / "nodes" / f"node{i}\x1b[31m\nFORGED.json", hostile_report(random.Random(i), base))

    def odd_names(d: Path) -> None:
        (d / "nodes").mkdir()
        for raw in (b"\xff\xfe.json", b"node\xc3.json", "².json".encode(), ("9" * 5000)[:200].encode() + b".json",
                    "node٣.json".encode()):
            (d / "nodes" / os.fsdecode(raw)).write_text(json.dumps(base))

    def links(d: Path) -> None:
        (d / "nodes").mkdir()
        os.symlink("loop", d / "nodes" / "loop")
        os.symlink("../nodes", d / "nodes" / "up")
        os.symlink("/dev/zero", d / "nodes" / "zero.json")
        os.symlink("missing", d / "nodes" / "dangling.json")
        os.mkdir(d / "nodes" / "dir.json")

    def fifo(d: Path) -> None:
        (d / "nodes").mkdir()
        _write(d / "nodes" / "ok.json", base)
        os.mkfifo(d / "nodes" / "pipe.json")

    def big(d: Path) -> None:
        _write(d / "nodes" / "big.json", {**base, "facts": {"driver": {"version": "x" * 10_000_000}}})
        _write(d / "nodes" / "huge.json", "[" + "1," * 9_000_000 + "1]")

    def existing(d: Path) -> None:
        _write(d / "nodes" / "a.json", base)
        _write(d / "out.html", "precious")

    def parent_is_file(d: Path) -> None:
        _write(d / "nodes" / "a.json", base)
        _write(d / "file", "precious")

    return [
        Case("fleet", ["fleet", "--from", "nodes"], many, note="1,000 hostile node names"),
        Case("fleet", ["fleet", "--from", "nodes", "--html"], many, html=True, note="1,000 nodes, HTML"),
        Case("fleet", ["fleet", "--from", "nodes", "--markdown"], odd_names, markdown=True, note="odd file names"),
        Case("fleet", ["fleet", "--from", "nodes"], links, note="symlink loop, /dev/zero, dangling, dir.json"),
        Case("fleet", ["fleet", "--from", "nodes"], fifo, note="a FIFO named .json"),
        Case("fleet", ["fleet", "--from", "nodes"], big, note="10 MB string, 18 MB list"),
        Case("fleet", ["fleet", "--from", "nodes", "--golden", "/dev/zero"], existing, note="golden /dev/zero"),
        Case("fleet", ["fleet", "--from", "nodes", "--golden", "nodes"], existing, note="golden a directory"),
        Case("fleet", ["fleet", "--from", "nodes", "--html", "-o", "out.html"], existing, ("out.html",), note="clobber"),
        Case("fleet", ["fleet", "--from", "nodes", "-o", "file/sub/out.txt"], parent_is_file, ("file",), note="parent is a file"),
        Case("fleet", ["fleet", "--from", "/dev/zero"], note="--from /dev/zero"),
        Case("fleet", ["fleet", "--from", "nodes\x1b[31m\nFORGED"], note="hostile dir name"),
    ]


def bench_result(rng: random.Random) -> dict:
    from gpudoctor.bench.model import MEASUREMENTS, BENCH_SCHEMA

    def s():
        return hostile(rng) if rng.random() < 0.6 else rng.choice(["cuda:0", "cpu", "8.9", "NVIDIA H100"])

    def number():
        return rng.choice([0, 0.0, -1.0, 1e308, 5e-324, 123.4, 2**62, 10**30, 1])

    device = {"device": s(), "device_name": s(), "compute_capability": s(), "spec_name": s(), "note": s(),
              "measurements": [{"name": rng.choice(list(MEASUREMENTS) + [s()]), "value": rng.choice([None, number()]),
                                "detail": s(), "skipped": rng.choice([None, s()]), "error": rng.choice([None, s()])}
                               for _ in range(rng.randint(0, 6))],
              "judged": [{"name": rng.choice(list(MEASUREMENTS) + ["cnn-speedup"]), "value": number(), "unit": s(),
                          "peak": rng.choice([None, number()]), "ratio": rng.choice([None, number()]), "text": s()}],
              "findings": [{"id": s(), "severity": rng.choice(["info", "warning", "error", s()]), "title": s(),
                            "evidence": [s()], "fix": [s()]}],
              "state": rng.choice([None, {"throttle_reasons": [s()], "other_processes": [s()], "sm_clock_mhz": 2**62}]),
              "error": rng.choice([None, s()]), "framework_version": s(), "wall_s": number(), "measure_s": number()}
    return {"schema": BENCH_SCHEMA, "devices": [device] * rng.randint(0, 2), "quick": rng.random() < 0.5,
            "host": s(), "matrix_reviewed": s(), "wall_s": number()}


def bench_cases(rng: random.Random, n: int) -> list[Case]:
    cases = []
    garbage = [nested(100_000), '{"schema": "gpudoctor.bench/1", "devices": [' + "1" * 5000 + "]}", "\xff\xfe", "",
               '{"schema": "gpudoctor.bench/1", "devices": []}', '{"schema": "gpudoctor.bench/1", "wall_s": NaN}']
    for i in range(n):
        a = bench_result(rng) if rng.random() < 0.85 else rng.choice(garbage)
        b = bench_result(rng)
        name_a = rng.choice(["a.json", "a\x1b[31m\nFORGED.json", "[bold]a.json"])
        fmt = rng.choice([[], ["--json"]])
        cases.append(Case("bench", ["bench", "--compare", name_a, "b.json", *fmt],
                          lambda d, a=a, b=b, name_a=name_a: (_write(d / name_a, a), _write(d / "b.json", b)),
                          codes=frozenset({0, 2})))
    for special, note in (("/dev/zero", "--compare /dev/zero"), (".", "a directory")):
        cases.append(Case("bench", ["bench", "--compare", special, "b.json"],
                          lambda d: _write(d / "b.json", bench_result(random.Random(1))), codes=frozenset({0, 2}), note=note))
    clobber = [Case("bench", ["bench", opt, "x.out", "--device", "cpu"], lambda d: _write(d / "x.out", "precious"), ("x.out",),
                    codes=frozenset({2}), note=f"{opt} over a file") for opt in ("--save", "--html")]
    devices = [Case("bench", ["bench", "--device", dev, "--save", "x.out"], lambda d: _write(d / "x.out", "p"), ("x.out",),
                    codes=frozenset({2}), note="hostile --device") for dev in ("cuda:" + "9" * 5000, "\x1b[31m\nFORGED", "cuda:-1")]
    # No FIFO here: one named on the command line waits for its writer, as `check --from <(cmd)` must.
    return cases + clobber + devices


def paste_texts(rng: random.Random) -> str:
    base = rng.choice([REPO / "tests/data/amd/rocminfo-rx5700xt.txt", *sorted((REPO / "tests/data/platforms").glob("nv_tegra*"))])
    lines = base.read_text().splitlines()
    for _ in range(rng.randint(1, 5)):
        i = rng.randrange(len(lines))
        head, sep, _tail = lines[i].partition(":")
        lines[i] = head + (sep or " ") + hostile(rng)
    extra = [f"GPU[{rng.choice(['0', '1', '9' * 5000, hostile(rng)])}]\t\t: Card series:\t\t{hostile(rng)}",
             f"GPU: {rng.choice(['0', '99999999999999999999'])}", f"    MARKET_NAME: {hostile(rng)}", f"    TARGET_GRAPHICS_VERSION: {hostile(rng)}",
             f"ROCm version: {hostile(rng)}", f"HIP runtime version: {hostile(rng)}", f"# R{hostile(rng)} (release), REVISION: {hostile(rng)}",
             "hipErrorNoBinaryForGpu: " + hostile(rng)]
    return "\n".join(lines + rng.sample(extra, rng.randint(0, len(extra))))


def check_cases(rng: random.Random, snapshots: list, n: int) -> list[Case]:
    cases = []
    for i in range(n):
        fmt = rng.choice([[], ["--markdown"], ["--json"], ["-v"]])
        content = paste_texts(rng) if i % 2 else rng.choice(snapshots)
        cases.append(Case("paste" if i % 2 else "snapshot", ["check", "--from", "in.txt", *fmt],
                          lambda d, c=content: _write(d / "in.txt", c), markdown=fmt == ["--markdown"]))
    return cases


def triage_cases(rng: random.Random, n: int) -> list[Case]:
    """Issue bodies for `gpudoctor triage`: a real broken report (pytorch/pytorch#150733's collect_env) with hostile
    text in its lines and between them, so that the reply quotes it back. Markers that start a new line are left
    out: a body's own lines are lines (quoted inside a fence), not forged ones."""
    body = json.loads((REPO / "tests/data/github-events/issues-opened-broken.json").read_text(encoding="utf-8"))["issue"]["body"]
    inline = [m for m in MARKED + ODD if "\n" not in m and "\r" not in m]
    cases = []
    for _ in range(n):
        lines = body.splitlines()
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(lines))
            text = "".join(rng.choice(inline) for _ in range(rng.randint(1, 4)))
            lines[i] = lines[i] + text if rng.random() < 0.6 else text + lines[i]
        content = "\n".join(lines)
        cases.append(Case("triage", ["triage", "in.md", *rng.choice([[], ["--only-when-sure"]])],
                          lambda d, c=content: _write(d / "in.md", c), markdown=True, codes=frozenset({0, 2, 4, 5, 6})))
    return cases


def matrix_cases(rng: random.Random, n: int) -> list[Case]:
    fixed = ["", "-", "9" * 5000, "1." + "9" * 5000, "r" + "9" * 5000, "gfx" + "9" * 5000, "sm_86", "cu121", "RTX",
             "a" * 100_000, "\x1b[31m\nFORGED", "6.4\x00", "r36.4.3\u202e", "%s", ".*", "(", "[", "\\"]
    pairs = [(c, a) for a in fixed + ["²", "²³.1"] for c in ("rocm", "jetpack", "gpu")]
    pairs += [(rng.choice(["rocm", "jetpack", "gpu"]), hostile(rng)) for _ in range(n)]
    return [Case("matrix", ["matrix", command, *rng.choice([[], ["--json"]]), "--", a], codes=frozenset({0, 2}))
            for command, a in pairs]
