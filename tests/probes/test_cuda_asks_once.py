"""An nvcc that hangs costs its timeout once per run, however many toolkit questions reach it."""

from __future__ import annotations

import os

from gpudoctor.probes.cuda import probe_cuda_toolkits
from gpudoctor.runner import CommandResult


class CountingRunner:
    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv, timeout: float = 10.0) -> CommandResult:
        self.calls.append(tuple(argv))
        return CommandResult(tuple(argv), None, "", "", error="timed out after 10 s")


def test_a_hanging_wrapper_nvcc_is_asked_once(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    nvcc = bin_dir / "nvcc"
    nvcc.write_text("#!/bin/sh\nsleep 300\n")
    nvcc.chmod(0o755)
    runner = CountingRunner()
    toolkits = probe_cuda_toolkits(runner, {"PATH": str(bin_dir)}, prefixes=())
    assert runner.calls == [(os.path.realpath(nvcc), "--version")]
    assert [(t.path, t.version, t.on_path) for t in toolkits] == [(str(bin_dir), None, True)]
