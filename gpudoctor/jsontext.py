"""JSON from untrusted text with one nesting bound on every Python.

``json.loads`` stops a deep document with RecursionError only where the interpreter's limit says so: 3.11 stops a
5,000-deep object, 3.12 and later parse it (their C stack bound is larger), and the deep value then reaches code
that was never meant to see it. No gpudoctor document is deeper than a dozen levels, so anything past MAX_DEPTH is
refused the same way everywhere, as "nested too deeply"."""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64


class TooDeep(ValueError):
    """JSON nested deeper than MAX_DEPTH (or deeper than this interpreter's parser goes)."""


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """json.loads, and TooDeep for a document nested deeper than ``max_depth`` on any Python. JSONDecodeError and
    ValueError (an integer past int()'s digit limit) pass through as json.loads raises them."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise TooDeep(f"JSON nested more than {max_depth} levels deep") from None
    opening = text.count(b"[" if isinstance(text, bytes) else "[") + text.count(b"{" if isinstance(text, bytes) else "{")
    if opening > max_depth and deeper_than(data, max_depth):  # a walk only where the text could be that deep
        raise TooDeep(f"JSON nested more than {max_depth} levels deep")
    return data


def deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects nest more than ``limit`` levels (iterative: no recursion limit of its own)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False
