"""The architecture rule against the CUDA documentation's binary-compatibility statement (CUDA C++ Programming Guide,
"Binary Compatibility": a cubin for X.y runs on X.z with z >= y, not across majors, and not on Tegra; PTX for X.y
JIT-compiles on any GPU of X.y or newer; `a` targets run only on their exact compute capability)."""

from __future__ import annotations

import pytest

from gpudoctor.matrix.tables.model import arch_support
from tests.checks.test_version_rules import ids, machine, torch


@pytest.mark.parametrize(
    ("arch", "cc", "how"),
    [
        # same major, equal or lower minor: SASS runs
        (["sm_120"], "12.1", "sass"),  # GB10 (DGX Spark) on the RTX 50xx code
        (["sm_100"], "10.3", "sass"), (["sm_86"], "8.9", "sass"), (["sm_80"], "8.6", "sass"), (["sm_80"], "8.9", "sass"),
        (["sm_70"], "7.5", "sass"), (["sm_60"], "6.1", "sass"), (["sm_50"], "5.2", "sass"), (["sm_35"], "3.7", "sass"),
        (["sm_30"], "3.5", "sass"), (["sm_90"], "9.0", "sass"),
        # higher minor or another major: no SASS
        (["sm_121"], "12.0", None), (["sm_86"], "8.0", None), (["sm_90"], "10.0", None), (["sm_75"], "8.0", None),
        (["sm_120"], "11.0", None),
        # PTX: JIT on any equal or newer compute capability, never on an older one
        (["sm_90", "compute_90"], "12.1", "ptx"), (["compute_120"], "12.1", "ptx"), (["compute_120"], "10.0", None),
        # arch-specific `a`: exactly that compute capability
        (["sm_90a"], "9.0", "sass"), (["sm_100a"], "10.3", None), (["compute_90a"], "10.0", None),
        # family `f` (CUDA 12.9+): same major, equal or higher minor
        (["sm_100f"], "10.3", "sass"), (["sm_120f"], "12.1", "sass"), (["sm_103f"], "10.0", None),
        # Tegra: no binary compatibility, only the exact compute capability
        (["sm_80", "sm_86"], "8.7", None), (["sm_87"], "8.7", "sass"), (["sm_70"], "7.2", None), (["sm_72"], "7.2", "sass"),
        (["sm_50"], "5.3", None), (["sm_70", "compute_70"], "7.2", "ptx"), (["sm_72"], "7.5", None),
    ],
)
def test_binary_compatibility(arch, cc, how):
    assert arch_support(arch, cc) == how


def test_gb10_runs_the_sm120_build_without_a_finding():
    facts = machine(driver="580.95.05", driver_cuda="13.0", gpus=(("NVIDIA GB10", "12.1"),),
                    torch=torch("2.11.0+cu130", "13.0", ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]))
    assert not any(i.startswith("gpu-arch") for i in ids(facts))


def test_gb10_from_its_name_with_the_matrix_arch_list():
    facts = machine(driver="580.95.05", driver_cuda="13.0", gpus=(("NVIDIA GB10", None),), torch=torch("2.9.1+cu130", "13.0"))
    assert not any(i.startswith("gpu-arch") for i in ids(facts))


def test_turing_on_a_cu102_build_without_sm75_is_healthy():
    facts = machine(driver="440.33", driver_cuda="10.2", gpus=(("Tesla T4", "7.5"),), torch=torch("1.10.2+cu102", "10.2"), python="3.8.10")
    assert ids(facts) == {}


def test_a100_on_torch_19_cu102_has_no_kernel():
    facts = machine(driver="470.82.01", driver_cuda="11.4", gpus=(("NVIDIA A100-SXM4-40GB", "8.0"),), torch=torch("1.9.1+cu102", "10.2"), python="3.8.10")
    assert ids(facts).get("gpu-arch-not-in-build") == "error"


def test_old_cuda_build_on_a_driver_below_its_own_toolkit_driver():
    facts = machine(driver="418.39", driver_cuda="10.1", gpus=(("Tesla V100-SXM2-16GB", "7.0"),), torch=torch("1.8.1+cu102", "10.2"), python="3.8.10")
    assert ids(facts).get("driver-too-old-for-cuda-build") == "error"
