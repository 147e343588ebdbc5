"""Reading the GPU's state during a run through a fake NVML with pynvml's API, and folding samples into one state."""

from __future__ import annotations

from gpudoctor.bench.sampler import NvmlSampler, fold
from gpudoctor.probes.nvml_state import sample, sample_all
from tests.bench.fake_nvml_state import IDLE, NOT_SUPPORTED, POWER_CAP, THERMAL, BusyNvml, h100


def test_a_power_capped_gpu_names_the_reason_and_its_limits():
    nvml = BusyNvml([h100(throttle_mask=POWER_CAP | IDLE, sm_clock=1410, power_limit_mw=500_000, persistence=0)])
    nvml.nvmlInit()
    s = sample(nvml, 0)
    # Idle is not a slowdown of a busy GPU: only the power cap is named.
    assert s.throttle_reasons == ("power cap (software power limit)",)
    assert (s.sm_clock_mhz, s.sm_clock_max_mhz) == (1410, 1980)
    assert (s.power_limit_w, s.power_default_limit_w, s.persistence_mode) == (500.0, 700.0, False)
    assert (s.pcie_gen, s.pcie_gen_max, s.pcie_width, s.pcie_width_max) == (5, 5, 16, 16)
    assert s.bus_id == "00000000:01:00.0"


def test_a_call_the_gpu_does_not_support_is_unknown_not_an_error():
    gpu = h100(fail={"nvmlDeviceGetCurrentClocksEventReasons": NOT_SUPPORTED, "nvmlDeviceGetPowerManagementLimit": NOT_SUPPORTED})
    nvml = BusyNvml([gpu], missing=("nvmlDeviceGetCurrentClocksThrottleReasons",))
    nvml.nvmlInit()
    s = sample(nvml, 0)
    assert s.throttle_reasons is None and s.power_limit_w is None
    assert s.power_default_limit_w == 700.0


def test_fold_keeps_every_reason_and_the_best_link_reached_under_load():
    nvml = BusyNvml([h100(pcie=(1, 5, 16, 16))])  # an idle GPU trains its link down to gen 1
    nvml.nvmlInit()
    before = sample_all(nvml)
    gpu = nvml._gpus[0]
    gpu.pcie, gpu.throttle_mask = (5, 5, 16, 16), THERMAL
    hot = sample_all(nvml)
    gpu.throttle_mask = POWER_CAP
    capped = sample_all(nvml)
    state = fold(before, hot + capped)
    assert state.pcie_gen_current == 5
    assert state.throttle_reasons == ("power cap (software power limit)", "thermal (hardware thermal slowdown)")
    assert state.other_processes == ()


def test_the_sampler_reads_nvml_while_work_runs_and_shuts_it_down():
    nvml = BusyNvml([h100(throttle_mask=POWER_CAP, compute_processes=[(4242, 20480 * 1024 * 1024)])])
    with NvmlSampler(nvml, interval_s=0.01) as sampler:
        import time

        time.sleep(0.1)
    state = sampler.state("00000000:01:00.0")
    assert state is not None and state.throttle_reasons == ("power cap (software power limit)",)
    assert state.other_processes == ("pid 4242 (20480 MiB)",)
    assert nvml.shutdown_calls == 1 and not nvml.initialised


def test_no_nvml_is_no_state():
    from tests.probes.fake_pynvml import failing_init

    with NvmlSampler(failing_init(9)) as sampler:  # NVML_ERROR_DRIVER_NOT_LOADED
        pass
    assert sampler.state("00000000:01:00.0", 0) is None
