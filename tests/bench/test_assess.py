"""Judging bench figures against the sourced specs (the real matrices/gpus.toml) with NVML states from the fake."""

from __future__ import annotations

import pytest

from gpudoctor.bench.assess import judge, quantity
from gpudoctor.bench.model import DeviceResult, GpuState, Measurement
from gpudoctor.matrix import load_matrix


@pytest.fixture(scope="module")
def table():
    return load_matrix().gpu_specs


def h100_result(**figures: float) -> DeviceResult:
    names = {"fp32": "matmul-fp32", "tf32": "matmul-tf32", "fp16": "matmul-fp16", "bf16": "matmul-bf16"}
    ms = tuple(Measurement(names.get(k, k), v) for k, v in figures.items())
    return DeviceResult("cuda:0", "NVIDIA H100 80GB HBM3", "9.0", measurements=ms, pci_bus_id="00000000:01:00.0")


HEALTHY = GpuState(throttle_reasons=(), sm_clock_mhz=1980, sm_clock_max_mhz=1980, pcie_gen_current=5, pcie_gen_max=5,
                   pcie_width_current=16, pcie_width_max=16, power_limit_w=700, power_default_limit_w=700,
                   persistence_mode=True, other_processes=())  # fmt: skip


def test_the_issue_example_reads_as_a_ratio_of_the_dense_peak(table):
    # The issue's own example: 610 TFLOPS bf16 on an H100 SXM is 62% of its 989 TFLOPS dense peak, and healthy.
    d = judge(h100_result(bf16=610.0), table.for_name("NVIDIA H100 80GB HBM3"), table, HEALTHY)
    (j,) = d.judged
    assert j.text == "bf16 matmul 610 TFLOPS = 62% of the 989 TFLOPS peak (dense)"
    assert d.spec_name == "H100 SXM5 80GB" and d.findings == ()


def test_a_power_capped_gpu_far_below_its_peak_is_a_warning_with_the_cause_and_the_fix(table):
    state = GpuState(throttle_reasons=("power cap (software power limit)",), sm_clock_mhz=1095, sm_clock_max_mhz=1980,
                     power_limit_w=350, power_default_limit_w=700, persistence_mode=True, other_processes=())  # fmt: skip
    d = judge(h100_result(bf16=210.0, **{"memory-copy": 2900.0}), table.for_name("NVIDIA H100 80GB HBM3"), table, state)
    (f,) = d.findings
    assert f.id == "bench-matmul-below-spec" and f.severity == "warning"
    assert "bf16 matmul 210 TFLOPS = 21% of the 989 TFLOPS peak (dense)" in f.evidence
    assert any("power cap" in e and "1095 of 1980 MHz" in e for e in f.evidence)
    assert any("350 W is below the default 700 W" in e for e in f.evidence)
    assert "sudo nvidia-smi -i 00000000:01:00.0 -pl 700" in f.fix


def test_a_t4_held_by_its_70_w_cap_is_not_a_false_alarm(table):
    # A healthy T4 reaches a third or so of its 65 TFLOPS fp16 figure: power-capped by design, not broken.
    result = DeviceResult("cuda:0", "Tesla T4", "7.5", measurements=(Measurement("matmul-fp16", 24.0),))
    state = GpuState(throttle_reasons=("power cap (software power limit)",), power_limit_w=70, power_default_limit_w=70)
    d = judge(result, table.for_name("Tesla T4"), table, state)
    assert d.judged[0].ratio == pytest.approx(24 / 65)
    assert d.findings == ()


def test_a_link_trained_at_x8_explains_slow_pinned_copies(table):
    state = GpuState(pcie_gen_current=4, pcie_gen_max=4, pcie_width_current=8, pcie_width_max=16, other_processes=())
    result = DeviceResult("cuda:0", "NVIDIA A100-SXM4-80GB", "8.0",
                          measurements=(Measurement("h2d-pinned", 11.5), Measurement("d2h-pinned", 12.0)))  # fmt: skip
    d = judge(result, table.for_name("NVIDIA A100-SXM4-80GB"), table, state)
    (f,) = d.findings
    assert f.id == "bench-pcie-transfer-below-link"
    # gen 4 x16 is 31.5 GB/s per direction: 11.5 GB/s is 37% of it.
    assert d.judged[0].text == "host->device, pinned 11.5 GB/s = 37% of the 31.5 GB/s of this slot's PCIe gen 4 x16 link"
    assert any("gen 4 x8" in e and "gen 4 x16" in e for e in f.evidence)


def test_a_healthy_link_with_slow_copies_points_at_the_host(table):
    state = GpuState(pcie_gen_current=4, pcie_gen_max=4, pcie_width_current=16, pcie_width_max=16, other_processes=())
    result = DeviceResult("cuda:0", "NVIDIA A100-SXM4-80GB", "8.0", measurements=(Measurement("h2d-pinned", 6.0),))
    (f,) = judge(result, table.for_name("NVIDIA A100-SXM4-80GB"), table, state).findings
    assert any("host side" in e for e in f.evidence) and any("topo -m" in x for x in f.fix)


def test_a_gpu_without_a_sourced_spec_shows_figures_without_ratios(table):
    result = DeviceResult("cuda:0", "NVIDIA H200 NVL", "9.0", measurements=(Measurement("matmul-bf16", 700.0),))
    d = judge(result, table.for_name("NVIDIA H200 NVL"), table, HEALTHY)
    assert d.judged[0].ratio is None and d.judged[0].text == "bf16 matmul 700 TFLOPS"
    assert [f.id for f in d.findings] == ["bench-gpu-not-in-matrix"]


def test_unknown_nvml_state_never_invents_a_cause(table):
    d = judge(h100_result(fp32=10.0), table.for_name("NVIDIA H100 80GB HBM3"), table, None)
    (f,) = d.findings
    assert f.evidence[-1] == "NVML could not be read during the run: the cause is unknown"


def test_the_cpu_run_says_so_and_judges_nothing_against_a_gpu(table):
    result = DeviceResult("cpu", "CPU", note="no CUDA device is visible to PyTorch",
                          measurements=(Measurement("matmul-fp32", 0.02), Measurement("cnn-step", 230.0)))  # fmt: skip
    d = judge(result, None, table, None)
    assert [f.id for f in d.findings] == ["bench-ran-on-cpu"]
    assert d.judged[0].text == "fp32 matmul 20.0 GFLOPS"


def test_the_speedup_divides_cpu_by_gpu_step_time(table):
    result = DeviceResult("cuda:0", "NVIDIA GeForce RTX 4090", "8.9",
                          measurements=(Measurement("cnn-step", 2.0), Measurement("cnn-step-cpu", 50.0)))  # fmt: skip
    d = judge(result, table.for_name("NVIDIA GeForce RTX 4090"), table, HEALTHY)
    speed = next(j for j in d.judged if j.name == "cnn-speedup")
    assert speed.value == 25.0 and "25.0x faster" in speed.text


def test_a_failed_child_is_an_error_finding(table):
    result = DeviceResult("cuda:0", error="timed out after 45s and was killed")
    assert [f.severity for f in judge(result, None, table, None).findings] == ["error"]


@pytest.mark.parametrize("value, unit, text", [(989.4, "TFLOPS", "989 TFLOPS"), (0.0171, "TFLOPS", "17.1 GFLOPS"),
                                               (3.456, "GB/s", "3.46 GB/s"), (262144.0, "samples", "262,144 samples")])
def test_quantity(value, unit, text):
    assert quantity(value, unit) == text
