"""Evidence people paste -> Facts, with where each fact was read. Readers observe, never judge.

``read_evidence`` takes any text: a gpudoctor snapshot (JSON), or a bug report mixing collect_env, nvidia-smi,
nvcc, pip / conda lists, TensorFlow build info, one-liners and error lines. Every reader scans the whole text for
its own format (detection by content, never by file name); ``merge`` joins what they saw into one snapshot, keeps
the first value of a fact, and records any later value that disagrees as a Contradiction.
"""

from __future__ import annotations

import dataclasses
from typing import Iterator

from ..model import Facts
from .document import Document
from .merge import merge
from .observation import Observation
from .readers import READERS

# A paste larger than this is cut (and says so): 1 MB bug reports parse in well under 0.5 s; a 50 MB log would not.
MAX_TEXT_CHARS = 8_000_000


def read_evidence(text: str, origin: str = "input") -> Facts:
    """Facts from a snapshot or a pasted report; SnapshotError (one line) for a snapshot that does not load."""
    return read_many([(text, origin)])


def read_many(inputs: list[tuple[str, str]]) -> Facts:
    """Facts from several inputs (snapshots and pasted reports), merged as one body of evidence: a fact two
    inputs disagree on becomes a Contradiction. A single snapshot is returned exactly as it was saved."""
    if len(inputs) == 1:
        snapshot = _snapshot(inputs[0][0])
        if snapshot is not None:
            from ..snapshot import facts_from_dict

            return facts_from_dict(snapshot, inputs[0][1])
    observations: list[Observation] = []
    for number, (text, origin) in enumerate(inputs):
        observations += [o if o.input == number else dataclasses.replace(o, input=number) for o in observations_in(text, origin)]
    return merge(observations)


def observations_in(text: str, origin: str) -> list[Observation]:
    snapshot = _snapshot(text)
    if snapshot is not None:
        from ..snapshot import facts_from_dict, facts_to_dict

        facts = facts_from_dict(snapshot, origin)  # validates, with its one-line errors
        return list(flatten(facts_to_dict(facts), f"snapshot {origin}"))
    document = Document.from_text(text[:MAX_TEXT_CHARS], truncated=len(text) > MAX_TEXT_CHARS)
    observations = [obs for reader in READERS for obs in reader.read(document)]
    if not observations and text.lstrip("\ufeff \t\r\n").startswith("{"):
        from ..snapshot import facts_from_json

        facts_from_json(text, origin)  # a broken snapshot: its JSON error says more than "nothing recognised"
    if document.truncated:
        observations.append(Observation("symptoms[]", {"kind": "input-truncated", "text": f"only the first {MAX_TEXT_CHARS:,} characters were read"}, 0, "input"))
    # Text with nothing recognisable is still evidence of something: the report says every section is not judged.
    return observations


def flatten(data: object, reader: str, key: str = "") -> Iterator[Observation]:
    """A snapshot dict -> one observation per known leaf (lists of scalars and dicts of packages stay whole)."""
    if isinstance(data, dict) and key not in ("python_packages", "host.env") and not key.endswith("provenance"):
        for name, value in data.items():
            if name in ("schema", "provenance", "contradictions"):
                continue
            yield from flatten(value, reader, f"{key}.{name}" if key else name)
    elif isinstance(data, dict):
        for name, value in data.items():
            if value is not None:
                yield Observation(f"{key}.{name}", value, 0, reader)
    elif isinstance(data, list) and data and all(isinstance(v, dict) for v in data) and key not in ("probe_errors", "symptoms"):
        for index, item in enumerate(data):
            yield from flatten(item, reader, f"{key}[{index}]")
    elif isinstance(data, list) and key in ("probe_errors", "symptoms"):
        for item in data:
            yield Observation(f"{key}[]", item, 0, reader)
    elif data is not None:
        yield Observation(key, data, 0, reader)


def _snapshot(text: str) -> dict | None:
    """The parsed JSON object when the whole text is one (a snapshot), else None (a log may start with a brace)."""
    from gpudoctor import jsontext

    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith("{"):
        return None
    try:
        data = jsontext.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None
