"""Known-broken combinations (matrices/known_broken.toml): releases that install and import, and still fail on a
particular GPU, Python or bundled library. Each rule is data with its sources; one generic check
(gpudoctor.checks.known_broken) judges them all.

A rule's conditions are all optional and all must hold:

  framework   "torch" | "tensorflow": the installed (or, with ``symptom``, the attempted) framework
  versions    version ranges of that framework, comma-separated: ">=2.19,<2.22", "==2.14.*"
  variant     torch wheel variant (local tag) the rule is about: "cu118"
  cudnn       range over the cuDNN the build bundles or pins (the snapshot's, else the matrix's, else the wheel's pin)
  gpu_cc      range over a GPU's compute capability: ">=12.0,<13.0"
  python      range over the Python version: ">=3.11"
  symptom     a message kind read from a pasted log ("no-matching-distribution") and ``subject``, a regular
              expression its subject must match: the rule then needs that message as evidence

A condition whose fact is unknown does not hold (never a false alarm from a missing fact).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .versions import vtuple

BROKEN_FILE = "known_broken.toml"
_CLAUSE = re.compile(r"^(==|!=|>=|<=|>|<)\s*(\d+(?:\.\d+)*)(\.\*)?$")


@functools.lru_cache(maxsize=1024)  # the matrix's few ranges, asked for every build of every node a fleet judges
def parse_range(text: str) -> tuple[tuple[str, tuple[int, ...], bool], ...]:
    """">=2.19,<2.22" -> ((">=", (2, 19), False), ("<", (2, 22), False)); ValueError when not readable."""
    clauses = []
    for part in text.split(","):
        m = _CLAUSE.match(part.strip())
        if not m:
            raise ValueError(f"not a version range clause: {part.strip()!r}")
        if m.group(3) and m.group(1) not in ("==", "!="):
            raise ValueError(f"a wildcard needs == or !=: {part.strip()!r}")
        clauses.append((m.group(1), vtuple(m.group(2)), bool(m.group(3))))
    return tuple(clauses)


def in_range(version: str | None, text: str) -> bool | None:
    """Does ``version`` ("2.19.1", "2.7.1+cu118", "12.0") fall in the range? None when the version is unknown."""
    if version is None:
        return None
    try:
        have = vtuple(version)
    except ValueError:
        return None
    for op, want, wildcard in parse_range(text):
        if wildcard:
            match = have[: len(want)] == want
            ok = match if op == "==" else not match
        else:
            n = max(len(have), len(want))
            a, b = have + (0,) * (n - len(have)), want + (0,) * (n - len(want))
            ok = {"==": a == b, "!=": a != b, ">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[op]
        if not ok:
            return False
    return True


@dataclass(frozen=True)
class BrokenRule:
    """A known-broken combination from known_broken.toml: when it applies, why it fails and the fix."""
    key: str  # the rule's own stable key (kebab-case), shown in the evidence; the finding id is known-broken-combination
    title: str  # one line; {framework} {version} {gpu} {cc} {python} {cudnn} are filled in
    why: str  # the mechanism, one sentence (evidence)
    fix: str  # what to do instead
    url: str  # the authoritative page for the fix
    sources: tuple[str, ...]
    framework: str | None = None
    versions: str | None = None
    variant: str | None = None
    cudnn: str | None = None
    gpu_cc: str | None = None
    python: str | None = None
    symptom: str | None = None
    subject: str | None = None
    commands: tuple[str, ...] = ()
    reviewed: str | None = None


def parse_rules(doc: dict, reader_factory) -> tuple[BrokenRule, ...]:
    top = reader_factory(doc, "")
    top.date("reviewed")
    top.urls("sources", required=True)
    rules = []
    keys = set()
    entries = doc.get("broken", [])
    if not isinstance(entries, list):
        raise top.fail("broken", "must be an array of tables ([[broken]])")
    for i in range(len(entries)):
        t = top.sub("broken", i)
        key = t.str("key")
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", key):
            raise t.fail("key", f"must be kebab-case: {key!r}")
        if key in keys:
            raise t.fail("key", f"{key!r} is used twice")
        keys.add(key)
        framework = t.str("framework", False)
        if framework not in (None, "torch", "tensorflow"):
            raise t.fail("framework", f"torch or tensorflow, not {framework!r}")
        for name in ("versions", "cudnn", "gpu_cc", "python"):
            value = t.str(name, False)
            if value is not None:
                try:
                    parse_range(value)
                except ValueError as exc:
                    raise t.fail(name, str(exc)) from None
        subject = t.str("subject", False)
        if subject is not None:
            try:
                re.compile(subject)
            except re.error as exc:
                raise t.fail("subject", f"not a regular expression: {exc}") from None
        sources = t.urls("sources", required=True)
        url = t.str("url")
        if not url.startswith("https://"):
            raise t.fail("url", "must be an https URL")
        rule = BrokenRule(
            key=key, title=t.str("title"), why=t.str("why"), fix=t.str("fix"), url=url, sources=sources,
            framework=framework, versions=t.str("versions", False), variant=t.str("variant", False), cudnn=t.str("cudnn", False),
            gpu_cc=t.str("gpu_cc", False), python=t.str("python", False), symptom=t.str("symptom", False), subject=subject,
            commands=t.strs("commands", False), reviewed=t.date("reviewed") if t.has("reviewed") else None,
        )
        if rule.framework is None and rule.symptom is None:
            raise t.fail("framework", "a rule needs a framework or a symptom to apply to")
        rules.append(rule)
    return tuple(rules)
