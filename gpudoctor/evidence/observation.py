"""What a reader saw: one fact, at a snapshot key path, with its line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Observation:
    """``key`` is a snapshot path: "driver.version", "gpus[0].name", "python_packages.torch". A key ending in
    "[]" appends an item to a list ("libraries.libcudnn[]", "symptoms[]") instead of setting a value."""

    key: str
    value: Any
    line: int
    reader: str
    implied: str | None = None  # set when the value is inferred rather than printed: says what was assumed
    input: int = 0  # which of several inputs it came from: an earlier input wins a disagreement
    # True for what a person wrote in an issue form rather than what a tool printed: within one input, printed
    # values are kept first, so a stated value never overrides one a command showed (a disagreement is recorded)
    stated: bool = False

    @property
    def where(self) -> str:
        text = f"{self.reader}, line {self.line}" if self.line else self.reader
        return f"{text} ({self.implied})" if self.implied else text
