"""Fakes shared by the tests (fakes with the real API, not mocks)."""

from __future__ import annotations

from typing import Mapping, Sequence

from gpudoctor.runner import CommandResult


class FakeRunner:
    """Serves recorded command outputs. ``outputs`` maps an argv tuple (or its first element) to a CommandResult
    or to stdout text; anything else is "command not found", as on a machine without it."""

    def __init__(self, outputs: Mapping[object, object] | None = None):
        self.outputs = dict(outputs or {})
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], timeout: float = 10.0) -> CommandResult:
        argv = tuple(argv)
        self.calls.append(argv)
        answer = self.outputs.get(argv, self.outputs.get(argv[0]))
        if answer is None:
            return CommandResult(argv, None, error=f"{argv[0]}: command not found")
        if isinstance(answer, CommandResult):
            return CommandResult(argv, answer.returncode, answer.stdout, answer.stderr, answer.error)
        return CommandResult(argv, 0, str(answer), "")
