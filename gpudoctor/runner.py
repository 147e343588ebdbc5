"""The one subprocess seam. Every external command goes through a Runner: an argv list, never a shell, always a
timeout. Tests pass a fake with the same ``run`` signature (tests/fakes.py)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from typing import Protocol, Sequence


@dataclass(frozen=True)
class CommandResult:
    argv: tuple[str, ...]
    returncode: int | None  # None: it could not start or timed out (see ``error``)
    stdout: str = ""
    stderr: str = ""
    error: str | None = None  # "not found", "timed out after 5s", ...

    @property
    def ok(self) -> bool:
        return self.returncode == 0


class Runner(Protocol):
    def run(self, argv: Sequence[str], timeout: float = 10.0) -> CommandResult: ...


class SubprocessRunner:
    def run(self, argv: Sequence[str], timeout: float = 10.0) -> CommandResult:
        argv = tuple(argv)
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, errors="replace", check=False)
        except FileNotFoundError:
            return CommandResult(argv, None, error=f"{argv[0]}: command not found")
        except PermissionError as exc:
            return CommandResult(argv, None, error=f"{argv[0]}: {exc.strerror}")
        except subprocess.TimeoutExpired:
            return CommandResult(argv, None, error=f"{argv[0]}: timed out after {timeout:g}s")
        except OSError as exc:
            return CommandResult(argv, None, error=f"{argv[0]}: {exc}")
        return CommandResult(argv, done.returncode, done.stdout, done.stderr)
