"""Fake children for verify's subprocess seam (gpudoctor.runner's ``spawn`` signature).

ScriptSpawner is the real spawn running a tiny Python script in place of the worker (a real subprocess that really
segfaults, hangs or raises), with the worker's arguments, so the script can find --result-file. FakeSpawner starts
nothing: it plays back how a child ended, for the cases no tiny script can produce (a child that cannot start)."""

from __future__ import annotations

import json
import sys
from typing import Callable, Mapping, Sequence

from gpudoctor.runner import SpawnResult, spawn
from gpudoctor.verify.model import WORKER_SCHEMA, SmokeResult

from gpudoctor import child_start

WORKER = tuple(child_start.argv("gpudoctor.verify.worker")[1:])  # (.../gpudoctor/child_start.py, the module)


def result_file(argv: Sequence[str]) -> str:
    return argv[list(argv).index("--result-file") + 1]


class ScriptSpawner:
    def __init__(self, script: str):
        self.script = script
        self.calls: list[tuple[str, ...]] = []

    def spawn(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
              on_line: Callable[[str], None] | None = None) -> SpawnResult:  # fmt: skip
        argv = tuple(argv)
        assert argv[1:3] == WORKER, argv  # verify asked for its worker ...
        self.calls.append(argv)
        return spawn([sys.executable, "-c", self.script, *argv[3:]], timeout, env, on_line)  # ... gets the script


class FakeSpawner:
    def __init__(self, returncode: int | None, error: str | None = None, lines: Sequence[str] = ()):
        self.returncode, self.error, self.lines = returncode, error, lines

    def spawn(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
              on_line: Callable[[str], None] | None = None) -> SpawnResult:  # fmt: skip
        for line in self.lines:
            if on_line is not None:
                on_line(line)
        return SpawnResult(tuple(argv), self.returncode, error=self.error, wall_s=0.01)


def worker_document(result: SmokeResult) -> str:
    return json.dumps({"schema": WORKER_SCHEMA, "result": result.to_dict()})
