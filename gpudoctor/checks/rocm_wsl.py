"""ROCm under WSL2: the GPU is reached through /dev/dxg with AMD's WSL runtime, never through /dev/kfd and the amdgpu
module of a native Linux install. One check, for the setups that follow the native route there (the native
installer, a container given /dev/kfd, a PyTorch ROCm wheel's own HSA runtime, a ROCm or Ubuntu release without
AMD's WSL package). ROCm's own "ROCk module is NOT loaded" there is amd.amdgpu_driver_not_loaded's finding."""

from __future__ import annotations

from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import symptoms

# AMD's ROCm-on-WSL install; its compatibility pages list the GPUs and Ubuntu releases served under WSL
ROCM_WSL_INSTALL = "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-radeon.html"
# Logged lines that show the native route failing under WSL2 (matrices/signatures.toml)
_SIGNS = ("kfd-missing", "hip-no-device", "rocm-wsl-package-missing")


def rocm_on_wsl_native_route(facts: Facts, matrix: object) -> Iterator[Finding]:
    host = facts.host
    if host is None or host.wsl != 2:
        return
    evidence = [f"log: {s.text}" for kind in _SIGNS for s in symptoms(facts, kind)[:1]]
    torch = facts.frameworks.torch if facts.frameworks else None
    rocm_torch = torch is not None and (bool(torch.hip) or "+rocm" in (torch.version or ""))
    if rocm_torch and torch.cuda_available is False:
        evidence.append(f"torch{' ' + torch.version if torch.version else ''} is a ROCm build and torch.cuda.is_available() is False")
    if not evidence:
        return
    yield Finding(
        "rocm-wsl-native-route", Severity.ERROR, Section.GPU,
        "ROCm under WSL2 is set up the native Linux way: WSL has no /dev/kfd and no amdgpu module, only AMD's WSL runtime reaches the GPU",
        (*evidence, "WSL 2: the GPU is exposed through /dev/dxg"),
        Fix("Use AMD's ROCm-on-WSL route: a GPU and Ubuntu release on AMD's WSL list, amdgpu-install --usecase=wsl,rocm "
            "--no-dkms, PyTorch from AMD's WSL wheels with the wheel's own libhsa-runtime64.so replaced by /opt/rocm's; "
            "containers get /dev/dxg and the WSL libraries, not /dev/kfd",
            ("ls -l /dev/dxg /dev/kfd   # WSL2: /dev/dxg only",
             "rocminfo | grep -E 'Name|Marketing'   # AMD's WSL runtime lists the GPU here",
             "python -c \"import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))\"   # the libhsa-runtime64.so* there must be /opt/rocm's"),
            ROCM_WSL_INSTALL),
    )


CHECKS = (rocm_on_wsl_native_route,)
