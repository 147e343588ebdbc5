"""The nvidia-smi fallback: ``nvidia-smi -q -x`` run through the runner and parsed (gpudoctor/smi_xml.py) into the
same Driver and Gpu facts NVML gives.

Used when NVML cannot be loaded in-process (nvidia-ml-py missing, or a binding that misbehaves) but the driver's own
tool still works, and to capture the exact first line nvidia-smi prints when it fails ("Failed to initialize NVML:
Driver/library version mismatch"), which is the text users search for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.errors import ProbeFailed
from gpudoctor.model import Driver
from gpudoctor.runner import Runner

if TYPE_CHECKING:
    from gpudoctor.model import Gpu

__all__ = ["SMI_ARGV", "SMI_TIMEOUT_S", "probe_smi"]

SMI_ARGV = ("nvidia-smi", "-q", "-x")
SMI_TIMEOUT_S = 10.0


def probe_smi(runner: Runner) -> tuple[Driver, tuple[Gpu, ...]]:
    """Runs ``nvidia-smi -q -x``; a failure to run it, or its own failure line, becomes ProbeFailed."""
    result = runner.run(list(SMI_ARGV), timeout=SMI_TIMEOUT_S)
    if result.returncode is None:
        error = result.error or ""
        if "not found" in error:
            raise ProbeFailed("nvidia-smi not found")
        raise ProbeFailed(error or "nvidia-smi could not be run")
    if result.returncode != 0:
        # nvidia-smi reports its failures on stdout; its first line carries the reason.
        reason = _first_line(result.stdout) or _first_line(result.stderr)
        raise ProbeFailed(reason or f"nvidia-smi exited with status {result.returncode}")
    from gpudoctor.smi_xml import parse_nvidia_smi_xml  # with the GPU classes, loaded where nvidia-smi answered

    return parse_nvidia_smi_xml(result.stdout)


def _first_line(text: str) -> str | None:
    return next((line.strip() for line in text.splitlines() if line.strip()), None)
