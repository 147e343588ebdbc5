"""The version rules (issue 3) on real situations: one positive and one negative case per rule, asserting the exact
set of finding ids these rules produce, and that every error names an exact fix for that machine."""

from __future__ import annotations

from typing import Any

import pytest

from gpudoctor.checks import arch, tensorflow_libs, tensorflow_windows, versions
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Severity
from gpudoctor.snapshot import facts_from_dict
from tests.conftest import load_facts

RULES = (*versions.CHECKS, *arch.CHECKS, *tensorflow_libs.CHECKS, *tensorflow_windows.CHECKS)
MATRIX = load_matrix()


def run(facts: Facts):
    return [f for rule in RULES for f in rule(facts, MATRIX)]


def ids(facts: Facts) -> dict[str, str]:
    return {f.id: f.severity.label for f in run(facts)}


def machine(
    *,
    os: str = "linux",
    python: str = "3.11.9",
    wsl: int | None = None,
    driver: str | None = None,
    driver_cuda: str | None = None,
    gpus: tuple[tuple[str, str | None], ...] = (),
    torch: dict[str, Any] | None = None,
    tf: dict[str, Any] | None = None,
    packages: dict[str, str | None] | None = None,
    libcudnn: list[tuple[str, str | None]] | None = None,
    libcudart: list[tuple[str, str | None]] | None = None,
    env: dict[str, str] | None = None,
    toolkits: list[tuple[str, str, bool]] | None = None,
) -> Facts:
    data: dict[str, Any] = {
        "schema": "gpudoctor.facts/1",
        "host": {"os": os, "python": python, "arch": "x86_64", "wsl": wsl, "env": env or {}},
        "gpus": [{"index": i, "name": name, "compute_capability": cc} for i, (name, cc) in enumerate(gpus)],
        "frameworks": {"torch": torch, "tensorflow": tf},
    }
    if driver or driver_cuda:
        data["driver"] = {"version": driver, "cuda_version": driver_cuda, "kernel_module": "nvidia"}
    else:
        data["driver"] = None
    if packages is not None:
        data["python_packages"] = packages
    if libcudnn is not None or libcudart is not None:
        data["libraries"] = {
            "libcudnn": [{"path": p, "version": v} for p, v in libcudnn] if libcudnn is not None else None,
            "libcudart": [{"path": p, "version": v} for p, v in libcudart] if libcudart is not None else None,
        }
    if toolkits is not None:
        data["cuda_toolkits"] = [{"version": v, "path": p, "on_path": on} for v, p, on in toolkits]
    return facts_from_dict(data)


def torch(version: str, cuda: str | None, arch_list: list[str] | None = None) -> dict[str, Any]:
    return {"version": version, "cuda": cuda, "hip": None, "arch_list": arch_list}


def tf(version: str, cuda: str | None = None, cudnn: str | None = None, is_cuda_build: bool = True) -> dict[str, Any]:
    return {"version": version, "is_cuda_build": is_cuda_build, "cuda": cuda, "cudnn": cudnn}


TF16_AND_CUDA = {"tensorflow": "2.16.1", "nvidia-cudnn-cu12": "8.9.7.29", "nvidia-cuda-runtime-cu12": "12.3.101"}
TF21_AND_CUDA = {"tensorflow": "2.21.0", "nvidia-cudnn-cu12": "9.28.0.42", "nvidia-cuda-runtime-cu12": "12.9.79"}

CASES = {
    # -- driver-too-old-for-cuda-build --------------------------------------------------------------------------
    "gke-t4-r470-cu121": (
        machine(driver="470.82.01", driver_cuda="11.4", gpus=(("Tesla T4", "7.5"),), torch=torch("2.1.2+cu121", "12.1"), python="3.10.12"),
        {"driver-too-old-for-cuda-build": "error"},
    ),
    "colab-cu113-on-r460-healthy": (
        machine(driver="460.32.03", driver_cuda="11.2", gpus=(("Tesla T4", "7.5"),), torch=torch("1.12.1+cu113", "11.3"), python="3.8.10"),
        {},
    ),
    "cu130-on-r575": (
        machine(driver="575.57.08", driver_cuda="12.9", gpus=(("NVIDIA H100 80GB HBM3", "9.0"),), torch=torch("2.11.0+cu130", "13.0")),
        {"driver-too-old-for-cuda-build": "error"},
    ),
    "cu130-on-r580-healthy": (
        machine(driver="580.65.06", driver_cuda="13.0", gpus=(("NVIDIA H100 80GB HBM3", "9.0"),), torch=torch("2.11.0+cu130", "13.0")),
        {},
    ),
    "ptx-newer-than-driver-jit": (
        machine(driver="550.54.15", driver_cuda="12.4", gpus=(("NVIDIA L4", "8.9"),),
                torch=torch("2.7.1+cu128", "12.8", ["sm_70", "sm_75", "compute_75"])),
        {"driver-too-old-for-cuda-build": "error"},
    ),
    # -- gpu-arch-not-in-build ----------------------------------------------------------------------------------
    "rtx5090-cu126": (
        machine(driver="570.124.04", driver_cuda="12.8", gpus=(("NVIDIA GeForce RTX 5090", "12.0"),), torch=torch("2.7.1+cu126", "12.6")),
        {"gpu-arch-not-in-build": "error"},
    ),
    "rtx5090-cu124": (
        machine(driver="570.124.04", driver_cuda="12.8", gpus=(("NVIDIA GeForce RTX 5090", "12.0"),), torch=torch("2.5.1+cu124", "12.4")),
        {"gpu-arch-not-in-build": "error"},
    ),
    "gtx1080-default-cu130": (
        machine(driver="580.95.05", driver_cuda="13.0", gpus=(("NVIDIA GeForce GTX 1080", None),), torch=torch("2.11.0+cu130", "13.0")),
        {"gpu-arch-not-in-build": "error"},
    ),
    "v100-default-cu130": (
        machine(driver="580.95.05", driver_cuda="13.0", gpus=(("Tesla V100-SXM2-16GB", "7.0"),), torch=torch("2.12.1+cu130", "13.0")),
        {"gpu-arch-not-in-build": "error"},
    ),
    "rtx5090-torch26-cu126-arch-unknown": (
        machine(driver="570.124.04", driver_cuda="12.8", gpus=(("NVIDIA GeForce RTX 5090", "12.0"),), torch=torch("2.6.0+cu126", "12.6")),
        {"gpu-arch-not-in-build": "warning"},
    ),
    "gtx1080-cu132-arch-unknown-below-toolkit": (
        machine(driver="580.95.05", driver_cuda="13.0", gpus=(("NVIDIA GeForce GTX 1080", "6.1"),), torch=torch("2.16.0+cu132", "13.2")),
        {"matrix-unknown-version": "info", "gpu-arch-not-in-build": "error"},
    ),
    "rtx4090-cu124-healthy": (
        machine(driver="550.54.15", driver_cuda="12.4", gpus=(("NVIDIA GeForce RTX 4090", "8.9"),), torch=torch("2.5.1+cu124", "12.4")),
        {},
    ),
    "deep-arch-list-wins": (
        machine(driver="570.124.04", driver_cuda="12.8", gpus=(("NVIDIA GeForce RTX 5090", "12.0"),),
                torch=torch("2.7.1+cu128", "12.8", ["sm_80", "sm_86", "sm_90"])),
        {"gpu-arch-not-in-build": "error"},
    ),
    "rtx5090-tf221-ptx-only": (
        machine(driver="570.124.04", driver_cuda="12.8", gpus=(("NVIDIA GeForce RTX 5090", "12.0"),), tf=tf("2.21.0", "12.5.1", "9"),
                packages=TF21_AND_CUDA, libcudnn=[], libcudart=[]),
        {"gpu-arch-ptx-only": "warning"},
    ),
    # -- tf-missing-gpu-libs ------------------------------------------------------------------------------------
    "tf216-without-and-cuda": (
        machine(driver="550.54.15", driver_cuda="12.4", gpus=(("NVIDIA A100-SXM4-40GB", "8.0"),), tf=tf("2.16.1", "12.3", "8"),
                packages={"tensorflow": "2.16.1"}, libcudnn=[], libcudart=[]),
        {"tf-missing-gpu-libs": "error"},
    ),
    "tf216-with-and-cuda": (
        machine(driver="550.54.15", driver_cuda="12.4", gpus=(("NVIDIA A100-SXM4-40GB", "8.0"),), tf=tf("2.16.1", "12.3", "8"),
                packages=TF16_AND_CUDA, libcudnn=[], libcudart=[]),
        {},
    ),
    "tf216-libraries-unknown": (
        machine(driver="550.54.15", driver_cuda="12.4", gpus=(("NVIDIA A100-SXM4-40GB", "8.0"),), tf=tf("2.16.1", "12.3", "8"),
                packages={"tensorflow": "2.16.1"}),
        {},
    ),
    # -- tf-windows-native-gpu-unsupported ----------------------------------------------------------------------
    "tf212-native-windows": (
        machine(os="windows", driver="551.61", driver_cuda="12.4", gpus=(("NVIDIA GeForce RTX 3080", "8.6"),),
                tf=tf("2.12.0", is_cuda_build=False), packages={"tensorflow": "2.12.0"}),
        {"tf-windows-native-gpu-unsupported": "error"},
    ),
    "tf210-native-windows": (
        machine(os="windows", python="3.10.11", driver="551.61", driver_cuda="12.4", gpus=(("NVIDIA GeForce RTX 3080", "8.6"),),
                tf=tf("2.10.1", "11.2", "8"), packages={"tensorflow": "2.10.1"}),
        {},
    ),
    "tf216-wsl2": (
        machine(wsl=2, driver="551.61", driver_cuda="12.4", gpus=(("NVIDIA GeForce RTX 3080", "8.6"),), tf=tf("2.16.1", "12.3", "8"),
                packages=TF16_AND_CUDA, libcudnn=[], libcudart=[]),
        {},
    ),
    # -- cudnn-version-mismatch ---------------------------------------------------------------------------------
    "tf216-with-torch-cudnn9": (
        machine(driver="550.54.15", driver_cuda="12.4", gpus=(("NVIDIA A100-SXM4-40GB", "8.0"),), tf=tf("2.16.1", "12.3", "8"),
                packages={**TF16_AND_CUDA, "torch": "2.4.1", "nvidia-cudnn-cu12": "9.1.0.70"}, libcudnn=[], libcudart=[]),
        {"cudnn-version-mismatch": "error"},
    ),
    "tf211-system-cudnn7": (
        machine(driver="525.85.12", driver_cuda="12.0", gpus=(("Tesla T4", "7.5"),), tf=tf("2.11.1", "11.2", "8"),
                packages={"tensorflow": "2.11.1"}, python="3.10.12",
                libcudnn=[("/usr/lib/x86_64-linux-gnu/libcudnn.so.7", "7.6.5")],
                libcudart=[("/usr/local/cuda-11.2/lib64/libcudart.so.11.0", "11.2.152")]),
        {"cudnn-version-mismatch": "error"},
    ),
    "tf221-newer-cudnn-minor": (
        machine(driver="570.124.04", driver_cuda="12.8", gpus=(("NVIDIA H100 80GB HBM3", "9.0"),), tf=tf("2.21.0", "12.5.1", "9"),
                packages=TF21_AND_CUDA, libcudnn=[], libcudart=[]),
        {},
    ),
    # -- ld-library-path-wrong-cuda-libs ------------------------------------------------------------------------
    "cluster-ld-cudnn80-before-83": (
        machine(driver="470.82.01", driver_cuda="11.4", gpus=(("Tesla V100-SXM2-32GB", "7.0"),), torch=torch("1.12.1+cu113", "11.3"),
                python="3.9.16", env={"LD_LIBRARY_PATH": "/opt/cudnn-8.0/lib64:/usr/local/cuda-11.3/lib64"},
                libcudnn=[("/opt/cudnn-8.0/lib64/libcudnn.so.8", "8.0.5")],
                libcudart=[("/usr/local/cuda-11.3/lib64/libcudart.so.11.0", "11.3.109")]),
        {"ld-library-path-wrong-cuda-libs": "error"},
    ),
    "cluster-ld-cudnn89-ok": (
        machine(driver="470.82.01", driver_cuda="11.4", gpus=(("Tesla V100-SXM2-32GB", "7.0"),), torch=torch("1.12.1+cu113", "11.3"),
                python="3.9.16", env={"LD_LIBRARY_PATH": "/opt/cudnn-8.9/lib64:/usr/local/cuda-11.8/lib64"},
                libcudnn=[("/opt/cudnn-8.9/lib64/libcudnn.so.8", "8.9.7")],
                libcudart=[("/usr/local/cuda-11.8/lib64/libcudart.so.11.0", "11.8.89")]),
        {},
    ),
    "ld-old-cudart-before-torch-cu121": (
        machine(driver="535.104.05", driver_cuda="12.2", gpus=(("NVIDIA A10", "8.6"),), torch=torch("2.1.2+cu121", "12.1"),
                env={"LD_LIBRARY_PATH": "/usr/local/cuda-12.0/lib64"}, packages={"torch": "2.1.2", "nvidia-cudnn-cu12": "8.9.2.26"},
                libcudnn=[], libcudart=[("/usr/local/cuda-12.0/lib64/libcudart.so.12", "12.0.107")]),
        {"ld-library-path-wrong-cuda-libs": "error"},
    ),
    # -- python-version-no-wheel --------------------------------------------------------------------------------
    "python313-tf216": (
        machine(python="3.13.1", packages={"tensorflow": "2.16.1"}),
        {"python-version-no-wheel": "error"},
    ),
    "python310-torch215": (
        machine(python="3.10.14", packages={"torch": "2.15.0"}),
        {"python-version-no-wheel": "error"},
    ),
    "python312-tf216": (
        machine(python="3.12.3", packages={"tensorflow": "2.16.1"}),
        {},
    ),
    # -- cuda-toolkit-major-mismatch-for-extensions -------------------------------------------------------------
    "nvcc118-torch-cu126": (
        machine(driver="560.35.03", driver_cuda="12.6", gpus=(("NVIDIA GeForce RTX 3090", "8.6"),), torch=torch("2.7.1+cu126", "12.6"),
                toolkits=[("11.8", "/usr/local/cuda-11.8", True), ("12.6", "/usr/local/cuda-12.6", False)]),
        {"cuda-toolkit-major-mismatch-for-extensions": "warning"},
    ),
    "nvcc124-torch-cu128-other-minor-ok": (
        machine(driver="570.124.04", driver_cuda="12.8", gpus=(("NVIDIA H100 80GB HBM3", "9.0"),), torch=torch("2.7.1+cu128", "12.8"),
                toolkits=[("12.4", "/usr/local/cuda-12.4", True)]),
        {},
    ),
    # -- matrix-unknown-version ---------------------------------------------------------------------------------
    "torch-newer-than-matrix": (
        machine(driver="580.95.05", driver_cuda="13.0", gpus=(("NVIDIA H100 80GB HBM3", "9.0"),), torch=torch("2.16.0+cu132", "13.2")),
        {"matrix-unknown-version": "info"},
    ),
    "torch-newer-than-matrix-general-rules": (
        machine(driver="570.124.04", driver_cuda="12.8", gpus=(("NVIDIA H100 80GB HBM3", "9.0"),), torch=torch("2.16.0+cu132", "13.2")),
        {"matrix-unknown-version": "info", "driver-too-old-for-cuda-build": "error"},
    ),
    # -- healthy machines: nothing at all from these rules ------------------------------------------------------
    "h100-r570-cu128-healthy": (
        machine(driver="570.124.04", driver_cuda="12.8", gpus=(("NVIDIA H100 80GB HBM3", "9.0"),), torch=torch("2.7.1+cu128", "12.8"),
                packages={"torch": "2.7.1", "nvidia-cudnn-cu12": "9.7.1.26"}, libcudnn=[], libcudart=[],
                toolkits=[("12.4", "/usr/local/cuda-12.4", True)]),
        {},
    ),
    "dev-box-no-gpu-cuda-builds": (
        machine(python="3.11.7", torch=torch("2.14.1+cu130", "13.0"), tf=tf("2.21.0", "12.5.1", "9"),
                packages={"torch": "2.14.1", "tensorflow": "2.21.0", "nvidia-cudnn-cu13": "9.24.0.43"}, libcudnn=[], libcudart=[],
                toolkits=[("13.0", "/usr/local/cuda-13.0", True)]),
        {},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rules_give_exactly_these_findings(case):
    facts, expected = CASES[case]
    assert ids(facts) == expected


@pytest.mark.parametrize("case", [c for c, (_f, exp) in CASES.items() if any(s in ("error", "warning") for s in exp.values())])
def test_every_problem_has_evidence_and_a_fix(case):
    facts, _expected = CASES[case]
    for finding in run(facts):
        if finding.severity >= Severity.WARNING:
            assert finding.evidence, finding
            assert finding.fix is not None and finding.fix.summary, finding
            assert finding.fix.url, finding
        if finding.severity is Severity.ERROR:  # an error promises the exact fix: commands, not only advice
            assert finding.fix.commands, finding


def _one(case: str, rule_id: str):
    (finding,) = [f for f in run(CASES[case][0]) if f.id == rule_id]
    return finding


def _text(finding) -> str:
    return " ".join((finding.title, *finding.evidence, finding.fix.summary, *finding.fix.commands))


def test_gke_t4_r470_fix_names_the_build_and_the_driver():
    f = _one("gke-t4-r470-cu121", "driver-too-old-for-cuda-build")
    assert "driver 470.82.01 supports CUDA 11.4" in f.evidence[0]
    assert "525.60.13" in f.evidence[1]
    assert f.fix.commands == ("pip install torch==2.7.1 torchvision==0.22.1 --index-url https://download.pytorch.org/whl/cu118",)
    assert ">= 525.60.13" in f.fix.summary


def test_cu130_needs_r580():
    f = _one("cu130-on-r575", "driver-too-old-for-cuda-build")
    assert "580.65.06" in _text(f)
    # The newest build driver 575 can run: cu128 needs 570.26 (MVC 525.60.13), but torch 2.14's cu128 variant is gone
    assert f.fix.commands == ("pip install torch==2.14.1 torchvision==0.29.1 --index-url https://download.pytorch.org/whl/cu126",)


def test_rtx5090_says_which_build_to_install():
    f = _one("rtx5090-cu126", "gpu-arch-not-in-build")
    assert "12.0" in f.title
    assert f.fix.commands == ("pip install torch==2.11.0 torchvision==0.26.0 --index-url https://download.pytorch.org/whl/cu128",)


@pytest.mark.parametrize("case", ["gtx1080-default-cu130", "v100-default-cu130"])
def test_pascal_and_volta_on_cu130_get_the_cu126_build(case):
    f = _one(case, "gpu-arch-not-in-build")
    assert f.fix.commands == ("pip install torch==2.14.1 torchvision==0.29.1 --index-url https://download.pytorch.org/whl/cu126",)


def test_gtx1080_compute_capability_comes_from_the_name():
    f = _one("gtx1080-default-cu130", "gpu-arch-not-in-build")
    assert any("6.1 (from its name)" in e for e in f.evidence)


def test_tf_without_and_cuda_gets_the_same_release_with_and_cuda():
    f = _one("tf216-without-and-cuda", "tf-missing-gpu-libs")
    assert f.fix.commands == ("pip install 'tensorflow[and-cuda]==2.16.1'",)


def test_tf_native_windows_suggests_wsl2_and_the_python_for_210():
    f = _one("tf212-native-windows", "tf-windows-native-gpu-unsupported")
    text = _text(f)
    assert "WSL2" in text and "Python 3.7–3.10" in text and "this is Python 3.11" in text
    assert "cudatoolkit=11.2 cudnn=8.1.0" in text
    assert any("tensorflow[and-cuda]==2.21.0" in c for c in f.fix.commands)


def test_cudnn_mismatch_pins_the_tested_cudnn():
    f = _one("tf216-with-torch-cudnn9", "cudnn-version-mismatch")
    assert f.fix.commands == ("pip install 'nvidia-cudnn-cu12==8.9.7.29'",)
    assert "another major" in f.title


def test_cluster_ld_library_path_fix_drops_the_directory():
    f = _one("cluster-ld-cudnn80-before-83", "ld-library-path-wrong-cuda-libs")
    assert "8.0.5" in f.title and "8.3.2" in f.title
    assert f.fix.commands == ("export LD_LIBRARY_PATH=/usr/local/cuda-11.3/lib64",)


def test_python_fix_names_a_release_with_wheels():
    f = _one("python313-tf216", "python-version-no-wheel")
    assert "3.9–3.12" in " ".join(f.evidence)
    assert f.fix.commands == ("pip install tensorflow==2.21.0",)  # no GPU on that machine: the plain package


def test_toolkit_fix_points_at_the_installed_matching_toolkit():
    f = _one("nvcc118-torch-cu126", "cuda-toolkit-major-mismatch-for-extensions")
    assert f.fix.commands == ("export CUDA_HOME=/usr/local/cuda-12.6", "export PATH=/usr/local/cuda-12.6/bin:$PATH")


def test_no_matrix_means_no_findings():
    facts, _ = CASES["gke-t4-r470-cu121"]
    assert [f for rule in RULES for f in rule(facts, None)] == []


@pytest.mark.parametrize("fixture", ["healthy-h100", "no-gpu-cuda-builds", "laptop-cpu-wheel", "wsl2-no-libcuda", "tf-cpu-shadows-gpu"])
def test_foundation_fixtures_raise_no_version_alarm(fixture):
    findings = run(load_facts(fixture))
    assert [f.id for f in findings if f.severity >= Severity.WARNING] == []
