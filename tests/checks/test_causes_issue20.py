"""The cause links issue 20 added (checks/causes.py's EXPLAINS is data, which mutmut does not mutate, so each new link
is pinned here): a known-broken combination explains what it breaks, a cause of "no GPU" explains JAX's failure and
CUDA_ERROR_NO_DEVICE as well, and a cuDNN of another major explains a cuDNN the loader cannot find."""

from __future__ import annotations

import pytest

from gpudoctor.checks.causes import link, primary
from gpudoctor.model import Finding, Fix, Section, Severity


def finding(id: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(id, severity, Section.ENVIRONMENT, id, (), Fix("x"))


@pytest.mark.parametrize(("cause", "explained"), [
    ("known-broken-combination", ["tf-gpu-not-visible", "cuda-toolkit-newer-than-driver", "gpu-arch-not-in-build"]),
    ("cudnn-version-mismatch", ["tf-gpu-not-visible", "cudnn-failed-to-initialize", "framework-import-failed", "cudnn-not-on-loader-path"]),
    ("cuda-visible-devices-hides-all-gpus", ["torch-cuda-unavailable", "tf-gpu-not-visible", "jax-cuda-backend-failed", "cuda-init-no-device"]),
    ("mig-several-instances-visible", ["torch-cuda-unavailable", "tf-gpu-not-visible", "jax-cuda-backend-failed", "cuda-init-no-device"]),
    ("gpu-without-driver", ["torch-cuda-unavailable", "tf-gpu-not-visible", "jax-cuda-backend-failed", "cuda-init-no-device",
                            "driver-too-old-for-cuda-build", "tf-missing-gpu-libs", "framework-import-failed"]),
])
def test_a_cause_explains_the_findings_it_causes_and_leads(cause, explained):
    findings = (*[finding(i, Severity.WARNING) for i in explained], finding(cause), finding("unrelated-finding", Severity.WARNING))
    linked = link(findings)
    by_id = {f.id: f for f in linked}
    assert by_id[cause].explains == tuple(explained)
    assert primary(linked) == cause
