"""Samples NVML in the parent while the bench child measures, and folds the samples of the GPU the child used into
one GpuState (what assess explains slow figures with). No NVML (no driver, the CPU path) is simply no state."""

from __future__ import annotations

import threading
from typing import Any

from gpudoctor.bench.model import GpuState
from gpudoctor.probes.nvml_state import Sample, sample_all

INTERVAL_S = 0.25


class NvmlSampler:
    """``with NvmlSampler() as s: ...run the child...``; then ``s.state(bus_id)``. ``nvml`` is pynvml or a fake."""

    def __init__(self, nvml: Any | None = None, interval_s: float = INTERVAL_S):
        self._nvml, self._interval = nvml, interval_s
        self.before: list[Sample] = []  # one reading before the child starts: who else is on the GPU
        self.samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ready = False

    def __enter__(self) -> "NvmlSampler":
        try:
            if self._nvml is None:
                from gpudoctor.probes.nvml import _import_pynvml

                self._nvml = _import_pynvml()
            self._nvml.nvmlInit()
        except Exception:  # noqa: BLE001 - no driver, no binding: no state, and the bench still runs
            return self
        self._ready = True
        self.before = sample_all(self._nvml)
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self.samples += sample_all(self._nvml)
            except Exception:  # noqa: BLE001 - a failed reading loses one sample, not the bench
                pass

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._ready:
            try:
                self._nvml.nvmlShutdown()
            except Exception:  # noqa: BLE001
                pass

    def state(self, bus_id: str | None, index: int | None = None) -> GpuState | None:
        return fold([s for s in self.before if _same(s, bus_id, index)], [s for s in self.samples if _same(s, bus_id, index)])


def _same(s: Sample, bus_id: str | None, index: int | None) -> bool:
    if bus_id is not None and s.bus_id is not None:
        return s.bus_id.upper().lstrip("0") == bus_id.upper().lstrip("0")
    return index is not None and s.index == index


def _known(values: list[Any]) -> list[Any]:
    return [v for v in values if v is not None]


def fold(before: list[Sample], during: list[Sample]) -> GpuState | None:
    """Samples of one GPU -> its state under load: every throttle reason seen, the highest clock and link reached
    (an idle GPU lowers both, so only the best reading says what the load got), who was on it before bench."""
    every = before + during
    if not every:
        return None
    reasons = _known([s.throttle_reasons for s in during])
    first = every[0]
    procs = _known([s.processes for s in before])
    return GpuState(
        throttle_reasons=tuple(sorted({r for rs in reasons for r in rs})) if reasons else None,
        sm_clock_mhz=max(_known([s.sm_clock_mhz for s in during]), default=None),
        sm_clock_max_mhz=first.sm_clock_max_mhz,
        pcie_gen_current=max(_known([s.pcie_gen for s in during]), default=None),
        pcie_gen_max=first.pcie_gen_max,
        pcie_width_current=max(_known([s.pcie_width for s in during]), default=None),
        pcie_width_max=first.pcie_width_max,
        power_limit_w=first.power_limit_w,
        power_default_limit_w=first.power_default_limit_w,
        persistence_mode=first.persistence_mode,
        temperature_c=max(_known([s.temperature_c for s in during]), default=None),
        other_processes=tuple(f"pid {pid}" + (f" ({mib} MiB)" if mib is not None else "") for pid, mib in procs[0])
        if procs else None,
    )  # fmt: skip
