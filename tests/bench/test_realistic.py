"""The realistic-step figure (issue 23): a ResNet-18-shaped training step on 224x224 images, timed on the GPU and
on the CPU, said as "GPU x times the CPU on a realistic step" with the SM clock and utilisation during it, and judged
by a pure function against the GPU's dense peak (matrices/gpus.toml [bench] realistic_step_floor).

Recorded figures: the H200 host's state, spec row and smoke-step figures (../shared/fixtures/h200-host/bench.json);
the CPU step as this 2-core machine measured it (`gpudoctor bench --quick`: 1109 ms per image). No realistic-step
figure was recorded on a GPU yet (benchmarks/gpu_host.sh measures it): the GPU step figures below are the ones the
floor separates, chosen from what healthy GPUs reach (about 10-20% of the dense peak on a real training step)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.bench.assess import REALISTIC_GFLOP_PER_IMAGE, judge, realistic_speedup
from gpudoctor.bench.measures.realistic import train_flops_per_image
from gpudoctor.bench.measures.timing import settled
from gpudoctor.bench.model import DeviceResult, GpuState, Measurement
from gpudoctor.matrix import load_matrix
from gpudoctor.render.bench_text import to_text
from gpudoctor.bench.model import BenchReport

H200 = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "h200-host" / "bench.json"
CPU_MS_HERE = 1109.0  # this 2-core machine, bench --quick, ResNet-18 shape, batch 2, per image


@pytest.fixture(scope="module")
def table():
    return load_matrix().gpu_specs


def _h200() -> dict:
    text = H200.read_text() if H200.exists() else None
    if text is None:
        pytest.skip("the H200 fixtures are not beside this checkout")
    return json.loads(text[: text.index("\n--- rc=")] if "\n--- rc=" in text else text)["devices"][0]


def _h200_result(**figures: float) -> tuple[DeviceResult, GpuState]:
    recorded = _h200()
    state = GpuState(**{k: tuple(v) if isinstance(v, list) else v for k, v in recorded["state"].items()})
    kept = tuple(Measurement(m["name"], m["value"], m["detail"]) for m in recorded["measurements"])
    extra = tuple(Measurement(name, value) for name, value in figures.items())
    result = DeviceResult(recorded["device"], recorded["device_name"], recorded["compute_capability"],
                          measurements=kept + extra, pci_bus_id=recorded["pci_bus_id"])  # fmt: skip
    return result, state


def test_the_flop_count_the_judge_uses_is_the_model_s():
    assert train_flops_per_image() / 1e9 == pytest.approx(REALISTIC_GFLOP_PER_IMAGE, abs=0.01)
    assert train_flops_per_image() / 6 == pytest.approx(1.814e9, rel=0.01)  # ResNet-18: 1.8 G multiply-adds forward


def test_on_the_cpu_it_says_it_ran_on_the_cpu_and_gives_no_speedup(table):
    result = DeviceResult("cpu", "CPU", measurements=(Measurement("realistic-step", skipped="the device is the CPU"),
                                                       Measurement("realistic-step-cpu", CPU_MS_HERE)))  # fmt: skip
    judged, findings = realistic_speedup(result, None, table.floors["realistic_step"], None)
    (j,) = judged
    assert j.text == ("Realistic step (ResNet-18 shape, 224x224) ran on the CPU: 1109 ms per image (9.8 GFLOPS); no GPU "
                      "was used, so there is no GPU-vs-CPU figure")  # fmt: skip
    assert findings == ()
    text = to_text(BenchReport((judge(result, None, table, None),), quick=True))
    assert "ran on the CPU: 1109 ms per image" in text and "x the CPU" not in text


def test_a_healthy_h200_reads_as_gpu_x_times_the_cpu_with_its_clock_and_no_finding(table):
    # 0.25 ms per image TF32 = 43.5 TFLOPS = 8.8% of the 494.7 dense peak; bf16 0.15 ms = 72.6 TFLOPS = 7.3% of 989
    result, state = _h200_result(**{"realistic-step": 0.25, "realistic-step-bf16": 0.15, "realistic-step-cpu": CPU_MS_HERE,
                                    "realistic-sm-clock": 1980.0, "realistic-utilisation": 100.0})  # fmt: skip
    d = judge(result, table.for_name(result.device_name), table, state)
    tf32 = next(j for j in d.judged if j.name == "realistic-step-speedup")
    bf16 = next(j for j in d.judged if j.name == "realistic-step-bf16-speedup")
    assert tf32.value == pytest.approx(CPU_MS_HERE / 0.25) and bf16.value == pytest.approx(CPU_MS_HERE / 0.15)
    assert tf32.text.startswith("GPU 4436.0x the CPU on a realistic step (TF32/fp32: ResNet-18 shape, 224x224, 0.25 ms")
    assert "= 9% of the 494.7 TFLOPS dense peak) (SM clock 1980 of 1980 MHz, utilisation 100% during it)" in tf32.text
    assert not [f for f in d.findings if f.id == "bench-realistic-step-below-spec"]
    # the smoke-size step keeps its own line: "this GPU trains", not how fast
    assert next(j for j in d.judged if j.name == "cnn-speedup").text.endswith("the GPU is 5.4x faster")


def test_a_held_down_gpu_far_below_its_peak_is_a_finding_with_the_cause(table):
    result, _ = _h200_result(**{"realistic-step": 3.0, "realistic-step-cpu": CPU_MS_HERE, "realistic-sm-clock": 990.0,
                                "realistic-utilisation": 45.0})  # fmt: skip
    state = GpuState(throttle_reasons=("thermal (hardware)",), sm_clock_mhz=990, sm_clock_max_mhz=1980, temperature_c=91,
                     power_limit_w=700, power_default_limit_w=700, persistence_mode=True, other_processes=("pid 4242 (python, 20480 MiB)",))  # fmt: skip
    judged, findings = realistic_speedup(result, table.for_name(result.device_name), table.floors["realistic_step"], state)
    (f,) = findings
    assert f.id == "bench-realistic-step-below-spec" and f.severity == "warning"
    assert f.evidence[0] == ("TF32/fp32: 3.6 TFLOPS = 0.7% of the 494.7 TFLOPS dense peak; at 3% of its peak the GPU "
                             "would be 1512x the CPU")  # fmt: skip
    assert any("SM clock was 990 of 1980 MHz" in e for e in f.evidence)
    assert any("busy 45% of the time" in e for e in f.evidence)
    assert any("pid 4242" in e for e in f.evidence) and any("heat at 91 C" in e for e in f.evidence)
    assert judged[0].value == pytest.approx(CPU_MS_HERE / 3.0)


def test_without_nvml_readings_the_figure_says_so(table):
    result, state = _h200_result(**{"realistic-step": 0.25, "realistic-step-cpu": CPU_MS_HERE})
    judged, _ = realistic_speedup(result, table.for_name(result.device_name), 0.03, state)
    assert judged[0].text.endswith("(SM clock and utilisation unknown)")


def test_a_gpu_without_a_spec_row_still_gets_its_speedup_and_no_finding():
    result = DeviceResult("cuda:0", "NVIDIA Made Up", measurements=(Measurement("realistic-step", 2.0),
                                                                      Measurement("realistic-step-cpu", 100.0)))  # fmt: skip
    judged, findings = realistic_speedup(result, None, 0.03, None)
    assert judged[0].value == pytest.approx(50.0) and judged[0].ratio is None and findings == ()


@pytest.mark.parametrize("times, expected", [([1.0] * 4, False), ([1.0, 1.01, 0.995, 1.0, 1.015], True),
                                            ([1.0, 1.2, 0.9, 1.0, 1.1], False), ([5.0, 1.0, 1.0, 1.01, 1.0, 0.995], True)])  # fmt: skip
def test_a_measurement_stops_once_its_spread_is_small(times, expected):
    assert settled(times) is expected
