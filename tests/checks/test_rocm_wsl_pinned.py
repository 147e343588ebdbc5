"""rocm_wsl.rocm_on_wsl_native_route pinned whole: its evidence order (one line of each logged sign, then the torch
build), title and fix are what a user reads (mutation testing: every word of them is asserted)."""

from __future__ import annotations

from gpudoctor.checks import rocm_wsl
from gpudoctor.model import Facts, Finding, Fix, Frameworks, Host, Section, Severity, Symptom, TorchBuild

FIX = Fix(
    "Use AMD's ROCm-on-WSL route: a GPU and Ubuntu release on AMD's WSL list, amdgpu-install --usecase=wsl,rocm "
    "--no-dkms, PyTorch from AMD's WSL wheels with the wheel's own libhsa-runtime64.so replaced by /opt/rocm's; "
    "containers get /dev/dxg and the WSL libraries, not /dev/kfd",
    ("ls -l /dev/dxg /dev/kfd   # WSL2: /dev/dxg only",
     "rocminfo | grep -E 'Name|Marketing'   # AMD's WSL runtime lists the GPU here",
     "python -c \"import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))\"   # the libhsa-runtime64.so* there must be /opt/rocm's"),
    "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-radeon.html")
TITLE = "ROCm under WSL2 is set up the native Linux way: WSL has no /dev/kfd and no amdgpu module, only AMD's WSL runtime reaches the GPU"


def _run(facts):
    return list(rocm_wsl.rocm_on_wsl_native_route(facts, None))


def test_every_sign_once_in_a_fixed_order_then_the_torch_build():
    signs = (Symptom("kfd-missing", "K1"), Symptom("kfd-missing", "K2"), Symptom("rocm-wsl-package-missing", "P"),
             Symptom("hip-no-device", "H"), Symptom("kfd-permission-denied", "not a sign"))
    torch = TorchBuild(version="2.3.0+rocm6.2.3", cuda_available=False)
    facts = Facts(host=Host(os="linux", wsl=2), symptoms=signs, frameworks=Frameworks(torch=torch))
    assert _run(facts) == [Finding(
        "rocm-wsl-native-route", Severity.ERROR, Section.GPU, TITLE,
        ("log: K1", "log: H", "log: P", "torch 2.3.0+rocm6.2.3 is a ROCm build and torch.cuda.is_available() is False",
         "WSL 2: the GPU is exposed through /dev/dxg"), FIX)]


def test_a_rocm_torch_known_by_its_hip_version_alone():
    torch = TorchBuild(hip="6.2.41133", cuda_available=False)
    (f,) = _run(Facts(host=Host(os="linux", wsl=2), frameworks=Frameworks(torch=torch)))
    assert f.evidence == ("torch is a ROCm build and torch.cuda.is_available() is False", "WSL 2: the GPU is exposed through /dev/dxg")


def test_a_sign_alone_is_enough_and_other_symptoms_are_not_signs():
    assert _run(Facts(host=Host(os="linux", wsl=2), symptoms=(Symptom("hip-no-device", "H"),)))[0].evidence[0] == "log: H"
    assert _run(Facts(host=Host(os="linux", wsl=2), symptoms=(Symptom("kfd-permission-denied", "X"),))) == []
    assert _run(Facts(host=None, symptoms=(Symptom("hip-no-device", "H"),))) == []
    torch_unknown = TorchBuild(version="2.3.0+rocm6.2.3")  # is_available() not printed: nothing shows it failing
    assert _run(Facts(host=Host(os="linux", wsl=2), frameworks=Frameworks(torch=torch_unknown))) == []
