"""ROCm under WSL2 set up the native Linux way (checks/rocm_wsl.py): a container given /dev/kfd, a PyTorch ROCm
wheel's own HSA runtime finding no device, AMD's WSL runtime package missing. Natively the same lines mean something
else (the amdgpu module, permissions), so the rule needs WSL 2. Lines from robertrosenbusch/gfx803_rocm#28,
ROCm/hip#3710, ROCm/legacy-rocm-build#4064 and ROCm/AMDMIGraphX#3834."""

from __future__ import annotations

import pytest

from gpudoctor.checks import rocm_wsl, run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Frameworks, Host, Severity, TorchBuild

KFD = 'docker: Error response from daemon: error gathering device information while adding custom device "/dev/kfd": no such file or directory.'
NO_DEVICE = ":3:hip_device_runtime.cpp   :653 : 0518007026 us: [pid:858   tid:0x7f19cb128080] hipGetDeviceCount: Returned hipErrorNoDevice :"
NO_PACKAGE = "E: Unable to locate package hsa-runtime-rocr4wsl-amdgpu"
WSL = "Windows 11 with WSL 2 5.15.167.4-microsoft-standard-WSL2 x86_64\n"


def _ids(text: str) -> dict[str, Severity]:
    return {f.id: f.severity for f in run_checks(read_evidence(text, "paste"), load_matrix()).findings}


@pytest.mark.parametrize("line", [KFD, NO_DEVICE, NO_PACKAGE])
def test_each_native_route_failure_under_wsl2_is_named(line):
    assert _ids(WSL + line + "\n").get("rocm-wsl-native-route") is Severity.ERROR


@pytest.mark.parametrize("line", [KFD, NO_DEVICE, NO_PACKAGE])
def test_without_wsl_the_same_lines_do_not_blame_wsl(line):
    assert "rocm-wsl-native-route" not in _ids("Ubuntu 22.04, kernel 6.8.0-45-generic\n" + line + "\n")


def _run(facts):
    return list(rocm_wsl.rocm_on_wsl_native_route(facts, None))


def test_a_rocm_torch_that_sees_no_gpu_under_wsl2_is_named_with_the_hsa_runtime_fix():
    torch = TorchBuild(version="2.3.0+rocm6.2.3", cuda_available=False)
    (f,) = _run(Facts(host=Host(os="linux", wsl=2), frameworks=Frameworks(torch=torch)))
    assert f.evidence == ("torch 2.3.0+rocm6.2.3 is a ROCm build and torch.cuda.is_available() is False",
                          "WSL 2: the GPU is exposed through /dev/dxg")
    assert any("libhsa-runtime64.so" in c for c in f.fix.commands) and "install/wsl/" in f.fix.url


@pytest.mark.parametrize("facts", [
    Facts(host=Host(os="linux", wsl=2), frameworks=Frameworks(torch=TorchBuild(version="2.3.0+rocm6.2.3", cuda_available=True))),
    Facts(host=Host(os="linux", wsl=2), frameworks=Frameworks(torch=TorchBuild(version="2.3.0+cu121", cuda_available=False))),
    Facts(host=Host(os="linux", wsl=1), frameworks=Frameworks(torch=TorchBuild(version="2.3.0+rocm6.2.3", cuda_available=False))),
    Facts(host=Host(os="linux"), frameworks=Frameworks(torch=TorchBuild(version="2.3.0+rocm6.2.3", cuda_available=False))),
    Facts(host=Host(os="linux", wsl=2)),
])
def test_nothing_without_both_wsl2_and_a_failing_rocm_sign(facts):
    assert _run(facts) == []
