"""Run NVIDIA's own diagnostic tools when they are installed, through the runner with timeouts, and hand their
output to gpudoctor.bench.tool_verdicts' parsers. A tool that is not on PATH is simply not run (no verdict); one that
times out or exits non-zero without a readable result is an "error" verdict saying so."""

from __future__ import annotations

from typing import Callable

from gpudoctor.bench.model import ToolVerdict
from gpudoctor.bench.tool_verdicts import parse_all_reduce_perf, parse_dcgmi_diag, parse_nvbandwidth
from gpudoctor.runner import Runner

DCGMI_TIMEOUT_S = 180.0  # level 1 is the "quick" run: seconds to a minute (DCGM's user guide)
ALL_REDUCE_TIMEOUT_S = 120.0
NVBANDWIDTH_TIMEOUT_S = 180.0
NVBANDWIDTH_TESTS = ("host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "device_to_device_memcpy_read_ce")


def commands(gpus: int) -> list[tuple[list[str], float, Callable[[str, str], ToolVerdict]]]:
    return [
        (["dcgmi", "diag", "-r", "1"], DCGMI_TIMEOUT_S, parse_dcgmi_diag),
        # 8 MiB..256 MiB, x2 steps, one process driving every GPU (-g): a short run with nccl-tests' own summary
        (["all_reduce_perf", "-b", "8M", "-e", "256M", "-f", "2", "-g", str(max(gpus, 1))], ALL_REDUCE_TIMEOUT_S,
         parse_all_reduce_perf),
        (["nvbandwidth", "-t", *NVBANDWIDTH_TESTS], NVBANDWIDTH_TIMEOUT_S, parse_nvbandwidth),
    ]  # fmt: skip


def probe_nvidia_tools(runner: Runner, gpus: int) -> tuple[ToolVerdict, ...]:
    verdicts = []
    for argv, timeout, parse in commands(gpus):
        result = runner.run(argv, timeout=timeout)
        command = " ".join(argv)
        if result.returncode is None and result.error and "not found" in result.error:
            continue  # not installed here
        if result.returncode is None:
            verdicts.append(ToolVerdict(argv[0] if argv[0] != "dcgmi" else "dcgmi diag", command, "error",
                                        result.error or "could not run"))  # fmt: skip
            continue
        verdict = parse(result.stdout, command)
        if result.returncode != 0 and verdict.verdict == "pass":
            verdict = ToolVerdict(verdict.tool, command, "fail", f"exited with status {result.returncode}: "
                                  f"{verdict.summary}", verdict.details, verdict.value)  # fmt: skip
        elif result.returncode != 0 and verdict.verdict == "error":
            tail = tuple(line.strip()[:200] for line in result.stderr.splitlines() if line.strip())[-3:]
            verdict = ToolVerdict(verdict.tool, command, "error", f"exited with status {result.returncode}",
                                  verdict.details + tail)  # fmt: skip
        verdicts.append(verdict)
    return tuple(verdicts)
