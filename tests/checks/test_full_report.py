"""Every registered check (foundation and version rules) over the recorded machines: exactly these findings.
This is the no-false-alarm guard: a new rule that fires on a healthy fixture fails here."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.matrix import load_matrix
from tests.conftest import load_facts

EXPECTED = {
    "healthy-h100": {"gpus-found"},
    # a real host's `check --save` (../shared/fixtures/h200-host: H200, driver 580, torch 2.11+cu130, JAX 0.11.2)
    "h200-host": {"gpus-found"},
    # torch 2.1.2+cu121 and TF 2.15 side by side on R535 (CUDA 12.2): both run through minor-version compatibility
    "healthy-a100-r535": {"gpus-found"},
    # torch 2.5.1 pins nvidia-cudnn-cu12 9.1, TensorFlow 2.16 was built against cuDNN 8.9: one of them breaks
    "torch-tf-cudnn-conflict": {"gpus-found", "cudnn-version-mismatch"},
    "no-gpu-cuda-builds": {"no-nvidia-gpu", "torch-cuda-build-no-gpu", "tf-cuda-build-no-gpu"},
    "laptop-cpu-wheel": {"gpus-found", "torch-cpu-only-build"},
    "nouveau": {"nouveau-loaded"},
    "gpu-without-driver": {"gpu-without-driver"},
    "driver-library-mismatch": {"nvml-driver-library-mismatch"},
    "wsl1": {"no-nvidia-gpu", "wsl1-no-gpu-support"},
    "wsl2-no-libcuda": {"no-nvidia-gpu", "wsl-libcuda-not-on-loader-path", "torch-cuda-build-no-gpu"},
    "container-without-runtime": {"container-without-gpu-runtime"},
    "cuda-visible-devices-wrong": {"gpus-found", "gpu-memory-in-use", "gpu-ecc-uncorrected-errors",
                                   "gpu-pcie-link-narrowed", "cuda-visible-devices-hides-all-gpus"},
    "tf-cpu-shadows-gpu": {"gpus-found", "tf-cpu-package-shadows-gpu"},
    # TensorFlow 1.x machines (tests/checks/test_tf1_checks.py has the details)
    "tf114-cpu-package-on-gpu": {"gpus-found", "tf-cpu-package-shadows-gpu"},
    "tf113-gpu-cuda101-runtime-only": {"gpus-found", "tf-missing-gpu-libs"},
    "tf114-gpu-driver-396": {"gpus-found", "driver-too-old-for-cuda-build"},
    "healthy-tf114-gpu": {"gpus-found"},
    "seed-windows-tf114-quadro": {"gpus-found"},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_exact_findings_with_every_check(name):
    report = run_checks(load_facts(name), load_matrix())
    assert not report.crashes
    assert {f.id for f in report.findings} == EXPECTED[name]


def test_every_fixture_is_covered():
    from tests.conftest import FACTS_DIR

    assert {p.stem for p in FACTS_DIR.glob("*.json")} == set(EXPECTED)
