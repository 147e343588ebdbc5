"""Drift: which facts differ across nodes (majority value and the outliers), and how each node differs from a
golden reference. Pure. Unknown is neither majority nor outlier: a node that could not tell is never a false alarm."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from .model import DRIFT_KEYS, Drift, GoldenDiff, NodeResult


def find_drift(nodes: Iterable[NodeResult]) -> tuple[Drift, ...]:
    facts = [(n.name, dict(n.facts)) for n in nodes if n.answered]
    drifts = []
    for key, label in DRIFT_KEYS.items():
        values = [(name, known.get(key)) for name, known in facts]
        counts = Counter(v for _, v in values if v is not None)
        if len(counts) < 2:
            continue
        # Most nodes win. A tie has no winner: naming one (say, the value sorted first) would call healthy nodes
        # outliers, so every node with a known value is listed instead.
        majority, majority_count = min(counts.items(), key=lambda item: (-item[1], item[0]))
        if sum(1 for count in counts.values() if count == majority_count) > 1:
            majority = None
        drifts.append(Drift(
            key=key,
            label=label,
            majority=majority,
            majority_count=majority_count,
            outliers=tuple((name, v) for name, v in values if v is not None and v != majority),
            unknown=tuple(name for name, v in values if v is None),
        ))
    return tuple(drifts)


def against_golden(nodes: Iterable[NodeResult], golden: NodeResult) -> tuple[GoldenDiff, ...]:
    """Every fact the golden node knows and a node knows otherwise. A node that could not tell is no difference:
    unknown never raises an alarm."""
    diffs = []
    reference = dict(golden.facts)
    for node in nodes:
        if not node.answered:
            continue
        for key, label in DRIFT_KEYS.items():
            want, have = reference.get(key), node.fact(key)
            if want is not None and have is not None and have != want:
                diffs.append(GoldenDiff(node.name, key, label, have, want))
    return tuple(diffs)
