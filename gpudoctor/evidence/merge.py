"""Observations from every reader -> one Facts snapshot. The first value of a fact (in the order of the text) is
kept; a later value that disagrees is kept as a Contradiction, never silently dropped or overwritten."""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any, Iterable

from ..errors import SnapshotError
from ..model import Contradiction, Facts
from ..snapshot import facts_from_dict
from .observation import Observation

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d*)\]")


def merge(observations: Iterable[Observation]) -> Facts:
    tree: dict[str, Any] = {}
    provenance: dict[str, str] = {}
    contradictions: list[Contradiction] = []
    kept: dict[str, Observation] = {}
    appended: dict[str, int] = {}
    printed_lists: set[str] = set()
    observations = sorted(observations, key=lambda o: (o.input, o.stated, o.line))
    items = _appended_only(observations)
    for obs in observations:
        if obs.key.endswith("[]"):
            base = obs.key[:-2]
            index = appended.get(base, 0)
            if base in items:  # a list only appended to: its items by kind, not the whole list compared item by item
                bucket = items[base].setdefault(_kind(obs.value), [])
                if obs.value in bucket:
                    continue
            elif _same_item_seen(tree, base, obs.value):
                continue
            if obs.stated and base in printed_lists:
                continue  # a list a command printed (the cuDNN files found) is not extended by what a form says
            if not obs.stated:
                printed_lists.add(base)
            appended[base] = index + 1
            if base in items:
                bucket.append(obs.value)
            key = f"{base}[{index}]"
            _set(tree, key, obs.value)
            provenance[key] = obs.where
            continue
        if obs.value == [] and tree.get(obs.key):
            continue  # "no GPU", said in words, after a GPU list a command printed: the list stands
        earlier = kept.get(obs.key)
        if earlier is None:
            kept[obs.key] = obs
            _set(tree, obs.key, obs.value)
            provenance[obs.key] = obs.where
        elif not _agree(earlier.value, obs.value, loose=obs.key.endswith((".name", "os_release"))):
            contradictions.append(Contradiction(obs.key, _show(earlier.value), earlier.where, _show(obs.value), obs.where))
        elif not obs.stated and _more_precise(obs.value, earlier.value):
            kept[obs.key] = obs  # "535.54.03" after "535.54": the same fact, said more exactly
            _set(tree, obs.key, obs.value)
            provenance[obs.key] = obs.where
    try:
        facts = facts_from_dict(tree, "pasted evidence")
    except SnapshotError as exc:  # a reader produced a wrong type: a bug, but never a traceback for the user
        raise SnapshotError(f"pasted evidence could not be assembled ({exc})") from None
    # provenance is never None for pasted evidence, even when nothing was recognised: it marks the facts as a paste
    return dataclasses.replace(facts, provenance=provenance, contradictions=tuple(contradictions) or None)


def _set(tree: dict[str, Any], key: str, value: Any) -> None:
    tokens = [(name, index) for name, index in _TOKEN.findall(key)]
    node: Any = tree
    for position, (name, index) in enumerate(tokens):
        last = position == len(tokens) - 1
        if name:
            if last:
                node[name] = value
                return
            nxt = tokens[position + 1]
            node = node.setdefault(name, [] if nxt[0] == "" else {})
        else:
            i = int(index)
            while len(node) <= i:
                node.append({})
            if last:
                node[i] = value
                return
            node = node[i]


def _appended_only(observations: list[Observation]) -> dict[str, dict[Any, list[Any]]]:
    """The lists ("symptoms", "kernel_log.xid_events", ...) that no key but their own "[]" writes: no item set by its
    index, nothing set above or below them. Their items are appended and never changed, so an item seen before can be
    looked for among those of its kind (a 1 MB paste has about 1,000 symptoms: comparing each with all was quadratic)."""
    keys = {obs.key for obs in observations}
    bases = {key[:-2] for key in keys if key.endswith("[]")}
    return {base: {} for base in bases
            if not any(key != f"{base}[]" and (key == base or key.startswith((f"{base}[", f"{base}.")) or base.startswith((f"{key}.", f"{key}[")))
                       for key in keys)}


def _kind(value: Any) -> Any:
    """Equal values have equal kinds: a string itself, a dict's keys and text, one kind for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        text = value.get("text")
        return frozenset(value), text if isinstance(text, str) else None
    return None


def _same_item_seen(tree: dict[str, Any], base: str, value: Any) -> bool:
    node: Any = tree
    for name, index in _TOKEN.findall(base):
        if not isinstance(node, (dict, list)):
            return False
        node = node.get(name) if name and isinstance(node, dict) else None
        if node is None:
            return False
    return isinstance(node, list) and value in node


def _norm(value: Any) -> Any:
    return _norm_text(value) if isinstance(value, str) else value


_SPACES = re.compile(r"\s+")
_DIGITS_AND_DOTS = re.compile(r"[\d.]+")


@functools.lru_cache(maxsize=4096)
def _norm_text(value: str) -> str:
    """A value compared as people read it: case, runs of spaces, a leading "nvidia " and trailing dots do not count
    (cached: the first value of a fact is compared with every later one, and a 1 MB paste has thousands)."""
    text = _SPACES.sub(" ", value.strip().lower())
    return text.removeprefix("nvidia ").rstrip(".")


def _agree(a: Any, b: Any, loose: bool = False) -> bool:
    if _norm(a) == _norm(b):
        return True
    if loose and isinstance(a, str) and isinstance(b, str):
        # names people type and names tools print: "RTX 2060" / "NVIDIA GeForce RTX 2060", "Ubuntu 18.04" /
        # "Ubuntu 18.04.1 LTS" are one GPU and one release
        x, y = _squeezed(a), _squeezed(b)
        if min(len(x), len(y)) >= 3 and (x in y or y in x):
            return True
    if isinstance(a, str) and isinstance(b, str):
        x, y = _norm(a), _norm(b)
        # a version said with fewer components ("12.2" and "12.2.140"), or a name nvidia-smi cut ("geforce rtx 3080 ...")
        if _DIGITS_AND_DOTS.fullmatch(x) and _DIGITS_AND_DOTS.fullmatch(y):
            xs, ys = x.split("."), y.split(".")
            n = min(len(xs), len(ys))
            return [int(p) for p in xs[:n] if p] == [int(p) for p in ys[:n] if p]
        x, y = x.removesuffix("...").strip(), y.removesuffix("...").strip()
        return x.startswith(y) or y.startswith(x)
    return False


_FILLER = re.compile(r"nvidia|geforce|linux|microsoft|[^a-z0-9]")


def _squeezed(text: str) -> str:
    return _FILLER.sub("", text.lower())


def _more_precise(new: Any, old: Any) -> bool:
    return isinstance(new, str) and isinstance(old, str) and len(new.strip()) > len(old.strip()) and "..." not in new


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)
