"""Where the ranks run (plan), the visible GPU count, and nccl-tests' bandwidth definitions."""

from __future__ import annotations

import pytest

from gpudoctor.workloads.bandwidth import algorithm_bandwidth, bus_bandwidth
from gpudoctor.verify.multigpu import plan, visible_gpu_count


def test_more_than_one_gpu_runs_nccl_by_default_and_one_gpu_does_not():
    assert plan(None, None, 4).backend == "nccl" and plan(None, None, 4).nproc == 4
    assert plan(None, None, 1) is None and plan(None, None, None) is None and plan(False, None, 8) is None


def test_nproc_forces_gloo_on_the_cpu_and_multi_gpu_without_gpus_says_why():
    assert (plan(None, 3, 8).backend, plan(None, 3, 8).nproc) == ("gloo", 3)
    forced = plan(True, None, 1)
    assert forced.backend == "gloo" and forced.nproc == 2 and "one GPU is visible" in forced.why


@pytest.mark.parametrize("nvml, env, expected", [
    (4, None, 4), (4, "0,2", 2), (4, "", 0), (4, "1,-1,2", 1), (2, "0,1,2,3", 2), (None, "0,1", 2), (None, None, None),
])  # fmt: skip
def test_visible_gpu_count_follows_cuda_visible_devices(nvml, env, expected):
    assert visible_gpu_count(nvml, env) == expected


def test_bus_bandwidth_is_nccl_tests_all_reduce_factor():
    # PERFORMANCE.md: busbw = algbw * 2(n-1)/n; 8 ranks -> 1.75, 2 ranks -> 1.0, 1 rank -> 0
    assert bus_bandwidth(100.0, 8) == pytest.approx(175.0)
    assert bus_bandwidth(100.0, 2) == pytest.approx(100.0) and bus_bandwidth(100.0, 1) == 0.0
    assert algorithm_bandwidth(2 * 10**9, 0.5) == pytest.approx(4.0)
    with pytest.raises(ValueError):
        algorithm_bandwidth(1, 0.0)
