"""Small value parsers the readers share. Every placeholder a tool prints for "I could not tell" becomes None."""

from __future__ import annotations

import re

UNKNOWN_WORDS = frozenset({"", "could not collect", "n/a", "[n/a]", "na", "unknown", "not supported", "[not supported]",
                           "insufficient permissions", "[insufficient permissions]", "unknown error", "[unknown error]",
                           "err!", "no cuda", "none found"})
VERSION = re.compile(r"\d+(?:\.\d+)+")


def known(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return None if value.lower() in UNKNOWN_WORDS else value


def version_in(text: str | None) -> str | None:
    m = VERSION.search(text or "")
    return m.group(0) if m else None


def major_minor(version: str | None) -> str | None:
    m = re.match(r"(\d+)\.(\d+)", version or "")
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


def cuda_from_code(code: int) -> str:
    """CUDA's integer version (11040, 12020) -> "11.4", "12.2"."""
    return f"{code // 1000}.{(code % 1000) // 10}"


def cudnn_from_code(code: int) -> str:
    """torch.backends.cudnn.version(): 7605 -> 7.6.5, 8200 -> 8.2.0, 90100 -> 9.1.0."""
    if code >= 10000:
        return f"{code // 10000}.{(code % 10000) // 100}.{code % 100}"
    return f"{code // 1000}.{(code % 1000) // 100}.{code % 100}"


def cc_from_sm(sm: str) -> str | None:
    """"sm_86" / "compute_90" / "sm_120a" -> "8.6" / "9.0" / "12.0"."""
    m = re.fullmatch(r"(?:sm|compute)_(\d+)(\d)[a-z]?", sm.strip().lower())
    return f"{int(m.group(1))}.{m.group(2)}" if m else None


def os_from_text(text: str) -> str | None:
    t = text.lower()
    if "windows" in t:
        return "windows"
    if "macos" in t or "mac os" in t or "darwin" in t:
        return "darwin"
    if any(word in t for word in ("linux", "ubuntu", "debian", "centos", "red hat", "fedora", "rocky", "alma", "suse", "arch", "amazon", "mint")):
        return "linux"
    return None
