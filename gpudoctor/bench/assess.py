"""Judging, as pure functions: each measured figure against the GPU's sourced spec (a ratio), the GPU/CPU speedup,
and findings for figures far below what the GPU should reach, with the likely causes NVML showed during the run.
No I/O: the spec table and the NVML state are passed in."""

from __future__ import annotations

import dataclasses

from gpudoctor.bench.model import BenchFinding, DeviceResult, GpuState, Judged, Measurement
from gpudoctor.matrix.tables.gpu_specs import GpuSpec, GpuSpecTable

NVML_URL = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html"


def quantity(value: float, unit: str) -> str:
    """1234.5 GB/s -> "1235 GB/s"; 0.0085 TFLOPS -> "8.5 GFLOPS" (a CPU's figures read better a unit down)."""
    if unit == "TFLOPS" and value < 1:
        value, unit = value * 1000, "GFLOPS"
    if unit == "samples":
        return f"{value:,.0f} samples"
    text = f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}" if value >= 1 else f"{value:.3g}"
    return f"{text} {unit}"


def judge(result: DeviceResult, spec: GpuSpec | None, table: GpuSpecTable, state: GpuState | None) -> DeviceResult:
    """The device's result with its judged figures and findings filled in."""
    judged = [j for m in result.measurements if (j := _judge_one(m, spec, table, state)) is not None]
    speedup = _speedup(result)
    if speedup is not None:
        judged.append(speedup)
    realistic, realistic_findings = realistic_speedup(result, spec, table.floors.get("realistic_step"), state)
    judged += realistic
    result = dataclasses.replace(result, spec_name=spec.name if spec else None, judged=tuple(judged), state=state)
    return dataclasses.replace(result, findings=tuple(findings_for(result, judged, table, state)) + realistic_findings)


# One training step of bench's ResNet-18 shape per 224x224 image: 1.81 G multiply-adds forward, 2 operations each,
# backward twice the forward (gpudoctor.bench.measures.realistic.train_flops_per_image, kept equal by a test).
REALISTIC_GFLOP_PER_IMAGE = 10.884


def realistic_speedup(result: DeviceResult, spec: GpuSpec | None, floor: float | None,
                      state: GpuState | None) -> tuple[list[Judged], tuple[BenchFinding, ...]]:  # fmt: skip
    """The realistic step's verdict: "GPU x times the CPU on a realistic step" with the SM clock and utilisation
    during it, each precision's share of the GPU's dense peak, and a finding where the GPU reached under ``floor``
    of that peak -- the figure is then far below what the spec implies against this CPU (a GPU at its floor would
    be peak x floor / this CPU's rate times faster). On the CPU: what it measured, said to be the CPU's."""
    cpu = result.measurement("realistic-step-cpu")
    cpu_ms = cpu.value if cpu is not None and cpu.value else None
    if result.device == "cpu" or not result.device.startswith(("cuda", "mps", "xpu")):
        if cpu_ms is None:
            return [], ()
        text = (f"Realistic step (ResNet-18 shape, 224x224) ran on the CPU: {cpu_ms:.0f} ms per image "
                f"({REALISTIC_GFLOP_PER_IMAGE / cpu_ms * 1000:.1f} GFLOPS); no GPU was used, so there is no "
                f"GPU-vs-CPU figure")  # fmt: skip
        return [Judged("realistic-cpu", cpu_ms, "ms", text=text)], ()
    clock = result.measurement("realistic-sm-clock")
    busy = result.measurement("realistic-utilisation")
    during = []
    if clock is not None and clock.value:
        top = f" of {state.sm_clock_max_mhz}" if state is not None and state.sm_clock_max_mhz else ""
        during.append(f"SM clock {clock.value:.0f}{top} MHz")
    if busy is not None and busy.value is not None:
        during.append(f"utilisation {busy.value:.0f}%")
    while_ = f" ({', '.join(during)} during it)" if during else " (SM clock and utilisation unknown)"
    judged: list[Judged] = []
    low: list[str] = []
    for name, precision in (("realistic-step", "tf32"), ("realistic-step-bf16", "bf16")):
        m = result.measurement(name)
        if m is None or not m.value:
            continue
        label = "TF32/fp32" if precision == "tf32" else "bf16"
        peak = (spec.tflops.get(precision) or spec.tflops.get("fp32")) if spec else None
        achieved = REALISTIC_GFLOP_PER_IMAGE / m.value  # GFLOP per ms = TFLOPS
        ratio = achieved / peak if peak else None
        share = f", {achieved:.1f} TFLOPS = {ratio:.0%} of the {peak:g} TFLOPS dense peak" if ratio is not None else ""
        if cpu_ms is not None:
            x = cpu_ms / m.value
            text = (f"GPU {x:.1f}x the CPU on a realistic step ({label}: ResNet-18 shape, 224x224, {m.value:.3g} ms per "
                    f"image on the GPU, {cpu_ms:.3g} ms on the CPU{share}){while_}")  # fmt: skip
            judged.append(Judged(f"{name}-speedup", x, "x", peak, ratio, text))
        else:
            text = f"Realistic step ({label}): {m.value:.3g} ms per image on the GPU{share}; the CPU figure is missing{while_}"
            judged.append(Judged(name, m.value, "ms", peak, ratio, text))
        if floor is not None and ratio is not None and ratio < floor:
            implied = f"; at {floor:.0%} of its peak the GPU would be {cpu_ms * peak * floor / REALISTIC_GFLOP_PER_IMAGE:.0f}x the CPU" if cpu_ms else ""
            low.append(f"{label}: {achieved:.1f} TFLOPS = {ratio:.1%} of the {peak:g} TFLOPS dense peak{implied}")
    if not low:
        return judged, ()
    evidence, fixes = _compute_causes(state, result.pci_bus_id or (result.device.split(":")[1] if ":" in result.device else "0"))
    extra = []
    if clock is not None and clock.value and state is not None and state.sm_clock_max_mhz and clock.value < 0.8 * state.sm_clock_max_mhz:
        extra.append(f"the SM clock was {clock.value:.0f} of {state.sm_clock_max_mhz} MHz during the step: the GPU was held down")
    if busy is not None and busy.value is not None and busy.value < 60:
        extra.append(f"the GPU was busy {busy.value:.0f}% of the time during the step: it waited (another process, the "
                     "CPU launching kernels, a shared or virtualised GPU)")  # fmt: skip
    finding = BenchFinding("bench-realistic-step-below-spec", "warning",
                           f"The realistic training step is far below this GPU's spec (under {floor:.0%} of its dense peak)",
                           tuple(low) + tuple(extra) + evidence, fixes)  # fmt: skip
    return judged, (finding,)


def link_gbs(spec: GpuSpec | None, table: GpuSpecTable, state: GpuState | None) -> tuple[float | None, str]:
    """One direction of the PCIe link this GPU can reach here: NVML's maximum for this GPU in this slot, else the
    board's spec."""
    if state is not None and state.pcie_gen_max and state.pcie_width_max:
        gen, width, where = state.pcie_gen_max, state.pcie_width_max, "this slot's"
    elif spec is not None:
        gen, width, where = spec.pcie_gen, spec.pcie_width, "the board's"
    else:
        return None, ""
    gbs = table.link_gbs(gen, width)
    return gbs, f"{where} PCIe gen {gen} x{width} link"


def _judge_one(m: Measurement, spec: GpuSpec | None, table: GpuSpecTable, state: GpuState | None) -> Judged | None:
    if m.value is None or m.name in ("cnn-step", "cnn-step-cpu", "largest-batch") or m.name.startswith("realistic-"):
        return None
    what = quantity(m.value, m.unit)
    if m.name.startswith("matmul-"):
        precision = m.name.split("-", 1)[1]
        peak = spec.tflops.get(precision) if spec else None
        label = f"{'TF32' if precision == 'tf32' else precision} matmul {what}"
        return _ratio(m, label, peak, f"{quantity(peak, 'TFLOPS')} peak (dense)" if peak else "")
    if m.name == "memory-copy":
        peak = spec.memory_bandwidth_gbs if spec else None
        return _ratio(m, f"device memory {what}", peak, f"{quantity(peak, 'GB/s')} memory bandwidth" if peak else "")
    peak, link = link_gbs(spec, table, state) if m.name.endswith("pinned") else (None, "")
    return _ratio(m, f"{m.label} {what}", peak, f"{quantity(peak, 'GB/s')} of {link}" if peak else "")


def _ratio(m: Measurement, label: str, peak: float | None, of: str) -> Judged:
    assert m.value is not None
    if not peak:
        return Judged(m.name, m.value, m.unit, text=label)
    ratio = m.value / peak
    return Judged(m.name, m.value, m.unit, peak, ratio, f"{label} = {ratio:.0%} of the {of}")


def _speedup(result: DeviceResult) -> Judged | None:
    gpu, cpu = result.measurement("cnn-step"), result.measurement("cnn-step-cpu")
    if gpu is None or cpu is None or not gpu.value or not cpu.value:
        return None
    x = cpu.value / gpu.value
    return Judged("cnn-speedup", x, "x", text=f"CNN training step {gpu.value:.3g} ms on the GPU, {cpu.value:.3g} ms on "
                                              f"the CPU: the GPU is {x:.1f}x faster")  # fmt: skip


def findings_for(result: DeviceResult, judged: list[Judged], table: GpuSpecTable, state: GpuState | None) -> list[BenchFinding]:
    out: list[BenchFinding] = []
    target = result.pci_bus_id or (result.device.split(":")[1] if ":" in result.device else "0")
    if result.device == "cpu":
        out.append(BenchFinding("bench-ran-on-cpu", "info", "No GPU was used: bench measured the CPU",
                                tuple(filter(None, [result.note])), ("gpudoctor check   # why no GPU is visible",)))
    if result.error:
        out.append(BenchFinding("bench-measurement-failed", "error", f"The bench child on {result.device} failed: {result.error}",
                                fix=("gpudoctor verify   # does training run on this GPU at all?",)))  # fmt: skip
    else:
        failed = [m for m in result.measurements if m.error]
        if failed:
            out.append(BenchFinding("bench-measurement-failed", "error", f"{len(failed)} measurement(s) failed on {result.device}",
                                    tuple(f"{m.label}: {m.error}" for m in failed)))  # fmt: skip
    if result.device != "cpu" and result.spec_name is None and not result.error:
        out.append(BenchFinding("bench-gpu-not-in-matrix", "info",
                                f"No sourced spec for {result.device_name or 'this GPU'}: figures are shown without ratios",
                                fix=("add its data-sheet figures to matrices/gpus.toml [[spec]]",)))  # fmt: skip
    floors = table.floors
    groups = (
        ("bench-matmul-below-spec", "matmul throughput", [j for j in judged if j.name.startswith("matmul-")], floors.get("matmul"), _compute_causes),
        ("bench-memory-bandwidth-below-spec", "device memory bandwidth", [j for j in judged if j.name == "memory-copy"], floors.get("memory"), _compute_causes),
        ("bench-pcie-transfer-below-link", "pinned host<->device copies", [j for j in judged if j.name.endswith("pinned")], floors.get("pinned_transfer"), _link_causes),
    )  # fmt: skip
    for fid, what, items, floor, causes in groups:
        low = [j for j in items if floor is not None and j.ratio is not None and j.ratio < floor]
        if low:
            evidence, fixes = causes(state, target)
            out.append(BenchFinding(fid, "warning", f"{what.capitalize()} is far below this GPU's spec (under {floor:.0%})",
                                    tuple(j.text for j in low) + evidence, fixes))  # fmt: skip
    return out


def _compute_causes(state: GpuState | None, target: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if state is None:
        return ("NVML could not be read during the run: the cause is unknown",), ("nvidia-smi -q -d PERFORMANCE",)
    evidence, fixes = [], []
    reasons = state.throttle_reasons or ()
    if reasons:
        clock = f" (SM clock reached {state.sm_clock_mhz} of {state.sm_clock_max_mhz} MHz)" if state.sm_clock_mhz and state.sm_clock_max_mhz else ""
        evidence.append(f"NVML throttle reasons during the run: {', '.join(reasons)}{clock}")
        fixes.append(f"nvidia-smi -i {target} -q -d PERFORMANCE,POWER,TEMPERATURE   # {NVML_URL}")
    if any(r.startswith(("thermal", "hardware slowdown")) for r in reasons):
        hot = f" at {state.temperature_c} C" if state.temperature_c is not None else ""
        evidence.append(f"the GPU slowed itself for heat{hot}: check fans, airflow and the server's cooling")
    if state.power_limit_w and state.power_default_limit_w and state.power_limit_w < state.power_default_limit_w * 0.99:
        evidence.append(f"power limit {state.power_limit_w:g} W is below the default {state.power_default_limit_w:g} W")
        fixes.append(f"sudo nvidia-smi -i {target} -pl {state.power_default_limit_w:g}")
    if state.other_processes:
        evidence.append(f"other processes were using the GPU: {', '.join(state.other_processes)}")
        fixes.append(f"nvidia-smi -i {target}   # see them; rerun bench on an idle GPU")
    if state.persistence_mode is False:
        evidence.append("persistence mode is off (the driver re-initialises the GPU for each process)")
        fixes.append(f"sudo nvidia-smi -i {target} -pm 1")
    if not evidence:
        evidence.append("NVML showed no throttling, no power cap below default and no other process: the cause is "
                        "outside what NVML reports (a MIG slice, a virtualised GPU, the library build)")  # fmt: skip
    return tuple(evidence), tuple(fixes)


def _link_causes(state: GpuState | None, target: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if state is None:
        return ("NVML could not be read during the run: the link state is unknown",), ("nvidia-smi -q -d PCIE",)
    evidence, fixes = [], []
    gen, gen_max, width, width_max = state.pcie_gen_current, state.pcie_gen_max, state.pcie_width_current, state.pcie_width_max
    if gen and gen_max and gen < gen_max or width and width_max and width < width_max:
        evidence.append(f"under load the PCIe link ran at gen {gen} x{width}; this GPU and slot support gen {gen_max} x{width_max}")
        fixes += [f"nvidia-smi -i {target} -q -d PCIE", "reseat the card or move it to a full x16 slot; check the BIOS "
                  "slot settings and any riser cable"]  # fmt: skip
    if state.other_processes:
        evidence.append(f"other processes were using the GPU: {', '.join(state.other_processes)}")
    if not evidence:
        evidence.append("the link trained at its maximum: the host side is the likely limit (NUMA placement, IOMMU, "
                        "a PCIe switch shared with other devices)")  # fmt: skip
        fixes.append("nvidia-smi topo -m   # which CPU and switch the GPU hangs off")
    return tuple(evidence), tuple(fixes)
