"""Evidence people paste -> Facts, with where each fact was read. Readers observe, never judge.

``read_evidence`` takes any text: a gpudoctor snapshot (JSON), or a bug report mixing collect_env, nvidia-smi,
nvcc, pip / conda lists, TensorFlow build info, one-liners and error lines. Every reader scans the whole text for
its own format (detection by content, never by file name); ``merge`` joins what they saw into one snapshot, keeps
the first value of a fact, and records any later value that disagrees as a Contradiction.
"""

from __future__ import annotations

from ..model import Facts
from .document import Document
from .merge import merge
from .observation import Observation
from .readers import READERS

# A paste larger than this is cut (and says so): 1 MB bug reports parse in well under 0.5 s; a 50 MB log would not.
MAX_TEXT_CHARS = 8_000_000


def read_evidence(text: str, origin: str = "input") -> Facts:
    """Facts from a snapshot or a pasted report; SnapshotError (one line) when nothing in it is recognisable."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{") and _looks_like_json_object(stripped):
        from ..snapshot import facts_from_json

        return facts_from_json(stripped, origin)
    document = Document.from_text(text[:MAX_TEXT_CHARS], truncated=len(text) > MAX_TEXT_CHARS)
    observations = [obs for reader in READERS for obs in reader.read(document)]
    if not observations and stripped.startswith("{"):
        from ..snapshot import facts_from_json

        facts_from_json(stripped, origin)  # a broken snapshot: its JSON error says more than "nothing recognised"
    if document.truncated:
        observations.append(Observation("symptoms[]", {"kind": "input-truncated", "text": f"only the first {MAX_TEXT_CHARS:,} characters were read"}, 0, "input"))
    # Text with nothing recognisable is still evidence of something: the report says every section is not judged.
    return merge(observations)


def _looks_like_json_object(text: str) -> bool:
    """A whole-text JSON object (a snapshot), as opposed to a log that happens to start with a brace."""
    import json

    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False
