"""NVIDIA's own tools' verdicts, parsed from their text output (pure: gpudoctor/bench/nvidia_tools.py runs them).
gpudoctor does not re-judge what they measured; it reads what they concluded:

    dcgmi diag -r 1   the result table: one row per test, "Pass" / "Fail" / "Warn" / "Skip", and per-GPU rows
                      ("GPU0: Pass") under a test (DCGM 4); https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html
    all_reduce_perf   nccl-tests' summary lines "# Out of bounds values : N OK|FAILED" and "# Avg bus bandwidth : X";
                      https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md
    nvbandwidth       one "SUM <testcase> <GB/s>" line per test that ran, "Waived" for one that does not apply,
                      an ASSERT line when a test failed; https://github.com/NVIDIA/nvbandwidth
"""

from __future__ import annotations

import re

from gpudoctor.bench.model import ToolVerdict

_ROW = re.compile(r"^\|\s*(?P<name>[^|]*?)\s*\|\s*(?P<result>[^|]*?)\s*\|$")
_SECTION = re.compile(r"^[|+]-+\s+(?P<section>\w[\w ]*?)\s+-+[+|]")
_PER_GPU = re.compile(r"^GPU\s?(\d+):\s*(\w+)")
_STATUS = {"pass": "pass", "fail": "fail", "warn": "warn", "warning": "warn", "skip": "skip"}
_AVG_BUSBW = re.compile(r"#\s*Avg bus bandwidth\s*:\s*([0-9.eE+-]+)")
_OUT_OF_BOUNDS = re.compile(r"#\s*Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)")
_NVB_SUM = re.compile(r"^SUM\s+(\S+)\s+([0-9.]+)\s*$")


def parse_dcgmi_diag(text: str, command: str = "dcgmi diag -r 1") -> ToolVerdict:
    """The result table -> fail if any test failed, warn if any warned, else pass; error when no test row is found."""
    section, tests, details = "", [], []
    for raw in text.splitlines():
        line = raw.strip()
        header = _SECTION.match(line)
        if header:
            section = header.group("section")
            continue
        row = _ROW.match(line)
        if row is None:
            continue
        name, result = row.group("name"), row.group("result")
        status = _STATUS.get(result.lower())
        if name and status:
            tests.append((section, name, status))
        elif not name and tests:
            per_gpu = _PER_GPU.match(result)
            if per_gpu and _STATUS.get(per_gpu.group(2).lower()) in ("fail", "warn"):
                details.append(f"{tests[-1][1]}: GPU {per_gpu.group(1)} {per_gpu.group(2)}")
            elif not per_gpu and result:
                details.append(f"{tests[-1][1]}: {result}")  # a failure's explanation continues on its own rows
    if not tests:
        return ToolVerdict("dcgmi diag", command, "error", "no result table in its output", _first_lines(text))
    counts = {s: sum(1 for t in tests if t[2] == s) for s in ("pass", "fail", "warn", "skip")}
    verdict = "fail" if counts["fail"] else "warn" if counts["warn"] else "pass"
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n) + f" of {len(tests)} tests"
    rows = tuple(f"{sec + ': ' if sec else ''}{name} {status.capitalize()}" for sec, name, status in tests
                 if status in ("fail", "warn"))  # fmt: skip
    return ToolVerdict("dcgmi diag", command, verdict, summary, rows + tuple(details))


def parse_all_reduce_perf(text: str, command: str = "all_reduce_perf") -> ToolVerdict:
    """The summary: a failed data check is a fail; the average bus bandwidth is the figure."""
    busbw = _AVG_BUSBW.search(text)
    bounds = _OUT_OF_BOUNDS.search(text)
    if busbw is None:
        return ToolVerdict("all_reduce_perf", command, "error", "no '# Avg bus bandwidth' line in its output",
                           _first_lines(text))  # fmt: skip
    value = float(busbw.group(1))
    if bounds is not None and bounds.group(2) == "FAILED":
        return ToolVerdict("all_reduce_perf", command, "fail", f"{bounds.group(1)} values out of bounds: the "
                           f"all-reduce returned wrong data (average bus bandwidth {value:g} GB/s)", value=value)  # fmt: skip
    return ToolVerdict("all_reduce_perf", command, "pass", f"average bus bandwidth {value:g} GB/s, data check OK",
                       value=value)  # fmt: skip


def parse_nvbandwidth(text: str, command: str = "nvbandwidth") -> ToolVerdict:
    """Every "SUM testcase GB/s" line; an ASSERT (a failed pattern check or CUDA call) is a fail."""
    sums = [(m.group(1), float(m.group(2))) for line in text.splitlines() if (m := _NVB_SUM.match(line.strip()))]
    failed = [line.strip() for line in text.splitlines() if line.strip().startswith(("ASSERT", "Invalid value"))]
    details = tuple(f"{name} {gbs:g} GB/s" for name, gbs in sums)
    if failed:
        return ToolVerdict("nvbandwidth", command, "fail", f"a test failed: {failed[0][:200]}", details + tuple(failed[1:3]))
    if not sums:
        return ToolVerdict("nvbandwidth", command, "error", "no 'SUM' result line in its output", _first_lines(text))
    return ToolVerdict("nvbandwidth", command, "pass", f"{len(sums)} test{'s' if len(sums) > 1 else ''} ran",
                       details, value=sums[0][1])  # fmt: skip


def _first_lines(text: str, n: int = 3) -> tuple[str, ...]:
    return tuple(line.strip()[:200] for line in text.splitlines() if line.strip())[:n]
