"""gpu-arch-not-in-build / gpu-arch-ptx-only, finding by finding (issue 11: mutation score of checks/arch.py).

The report is the product: each case pins the severity, section, title, every evidence line and the fix a user
reads, for the three ways the rule decides (an arch list read from the build, an arch list from the matrix, only
the CUDA toolkit's compute-capability range), plus the cases where it must stay quiet."""

from __future__ import annotations

import dataclasses

from gpudoctor.checks.arch import gpu_arch_not_in_build
from gpudoctor.model import Section, Severity
from tests.checks.test_version_rules import MATRIX, TF21_AND_CUDA, machine, tf, torch

R570 = {"driver": "570.124.04", "driver_cuda": "12.8"}
RTX5090 = ("NVIDIA GeForce RTX 5090", "12.0")
SASS_RULE = "a GPU runs SASS of its own major with an equal or lower minor, or PTX of an equal or lower compute capability"
TORCH_211_CU128 = ("pip install torch==2.11.0 torchvision==0.26.0 --index-url https://download.pytorch.org/whl/cu128",)
TORCH_URL = "https://pytorch.org/get-started/previous-versions/"
TF_URL = "https://www.tensorflow.org/install/pip"


def findings(facts):
    return list(gpu_arch_not_in_build(facts, MATRIX))


def only(facts):
    (finding,) = findings(facts)
    return finding


# -- an arch list read from the installed build (--deep) --------------------------------------------------------


def test_deep_arch_list_without_the_gpu_is_an_error_that_says_why():
    f = only(machine(**R570, gpus=(RTX5090,), torch=torch("2.7.1+cu128", "12.8", ["sm_80", "sm_86", "sm_90"])))
    assert (f.id, f.severity, f.section) == ("gpu-arch-not-in-build", Severity.ERROR, Section.TORCH)
    assert f.title == "torch 2.7.1+cu128 has no code for GPU 0 (NVIDIA GeForce RTX 5090) (compute capability 12.0)"
    assert f.evidence == (
        "GPU 0 (NVIDIA GeForce RTX 5090) has compute capability 12.0",
        "torch 2.7.1+cu128 is compiled for sm_80 sm_86 sm_90 (read from the installed build)",
        SASS_RULE,
    )
    assert f.fix.summary == "Install a PyTorch build compiled for compute capability 12.0: install torch 2.11.0+cu128"
    assert f.fix.commands == TORCH_211_CU128
    assert f.fix.url == TORCH_URL


def test_pasted_arch_list_names_where_it_was_pasted_from():
    facts = machine(**R570, gpus=(RTX5090,), torch=torch("2.7.1+cu128", "12.8", ["sm_80", "sm_86", "sm_90"]))
    pasted = dataclasses.replace(facts, provenance={"frameworks.torch.arch_list": "collect_env, line 7"})
    assert only(pasted).evidence[1] == "torch 2.7.1+cu128 is compiled for sm_80 sm_86 sm_90 (as pasted: collect_env, line 7)"
    # provenance of another fact says nothing about where the torch arch list came from
    other = dataclasses.replace(facts, provenance={"frameworks.tensorflow.compute_capabilities": "collect_env, line 7"})
    assert only(other).evidence[1].endswith("(read from the installed build)")


def test_compute_capability_from_the_gpu_name_says_so():
    f = only(machine(**R570, gpus=(("NVIDIA GeForce RTX 5090", None),), torch=torch("2.7.1+cu128", "12.8", ["sm_80", "sm_86", "sm_90"])))
    assert f.evidence[0] == "GPU 0 (NVIDIA GeForce RTX 5090) has compute capability 12.0 (from its name)"
    assert "(compute capability 12.0)" in f.title


def test_each_gpu_is_judged_and_an_unknown_gpu_is_skipped():
    arch = ["sm_80", "sm_86", "sm_90"]
    for first in (("NVIDIA H100 80GB HBM3", "9.0"), ("Mystery Accelerator", None)):  # served by sm_90 / unknown cc
        (f,) = findings(machine(**R570, gpus=(first, RTX5090), torch=torch("2.7.1+cu128", "12.8", arch)))
        assert f.title.startswith("torch 2.7.1+cu128 has no code for GPU 1 (NVIDIA GeForce RTX 5090)")
    two = findings(machine(**R570, gpus=(RTX5090, ("NVIDIA GeForce RTX 5080", "12.0")), torch=torch("2.7.1+cu128", "12.8", arch)))
    assert [f.title.split(" has no code for ")[1][:5] for f in two] == ["GPU 0", "GPU 1"]


def test_sass_of_the_same_major_is_healthy():
    assert findings(machine(**R570, gpus=(("NVIDIA GeForce RTX 4090", "8.9"),), torch=torch("2.7.1+cu128", "12.8", ["sm_80", "sm_86"]))) == []


# -- PTX only ---------------------------------------------------------------------------------------------------


def test_ptx_only_is_a_warning_with_a_native_build_to_install():
    f = only(machine(**R570, gpus=(RTX5090,), torch=torch("2.7.1+cu128", "12.8", ["sm_80", "sm_90", "compute_90"])))
    assert (f.id, f.severity, f.section) == ("gpu-arch-ptx-only", Severity.WARNING, Section.TORCH)
    assert f.title == "torch 2.7.1+cu128 runs on GPU 0 (NVIDIA GeForce RTX 5090) only through PTX JIT: the first start compiles kernels (slow)"
    assert f.evidence == (
        "GPU 0 (NVIDIA GeForce RTX 5090) has compute capability 12.0",
        "torch 2.7.1+cu128 is compiled for sm_80 sm_90 compute_90 (read from the installed build): no SASS for 12.0, PTX for a lower compute capability",
    )
    assert f.fix.summary == "For native code on 12.0 (no JIT on first start): install torch 2.11.0+cu128"
    assert f.fix.commands == TORCH_211_CU128
    assert f.fix.url == TORCH_URL


def test_ptx_only_without_a_native_build_says_so_and_offers_no_command():
    f = only(machine(**R570, gpus=(RTX5090,), tf=tf("2.21.0", "12.5.1", "9"), packages=TF21_AND_CUDA, libcudnn=[], libcudart=[]))
    assert (f.id, f.severity, f.section) == ("gpu-arch-ptx-only", Severity.WARNING, Section.TENSORFLOW)
    assert f.evidence[1] == (
        "tensorflow 2.21.0 is compiled for sm_60 sm_70 sm_80 sm_89 sm_90 compute_90 (per the matrix for tensorflow 2.21.0): "
        "no SASS for 12.0, PTX for a lower compute capability"
    )
    assert f.fix.summary == (
        "No TensorFlow build that fits this machine has native code for 12.0: expect a slow first start; "
        "the compiled kernels are cached for later runs"
    )
    assert f.fix.commands == ()
    assert f.fix.url == TF_URL


def test_ptx_newer_than_the_driver_is_left_to_the_driver_rule():
    arch = ["sm_80", "sm_90", "compute_90"]
    # driver CUDA 12.4 < build CUDA 12.8: it cannot JIT the PTX (driver-too-old-for-cuda-build reports it), by
    # version or by the CUDA version alone
    assert findings(machine(driver="550.54.15", driver_cuda="12.4", gpus=(RTX5090,), torch=torch("2.7.1+cu128", "12.8", arch))) == []
    assert findings(machine(driver_cuda="12.4", gpus=(RTX5090,), torch=torch("2.7.1+cu128", "12.8", arch))) == []
    # the same CUDA as the build, or no driver known: the JIT works, the warning stands
    assert [f.id for f in findings(machine(**R570, gpus=(RTX5090,), torch=torch("2.7.1+cu128", "12.8", arch)))] == ["gpu-arch-ptx-only"]
    assert [f.id for f in findings(machine(gpus=(RTX5090,), torch=torch("2.7.1+cu128", "12.8", arch)))] == ["gpu-arch-ptx-only"]


# -- the arch list from the matrix ------------------------------------------------------------------------------


def test_matrix_arch_list_names_the_matrix_as_its_source():
    f = only(machine(**R570, gpus=(RTX5090,), torch=torch("2.7.1+cu126", "12.6")))
    assert f.severity is Severity.ERROR
    assert f.evidence[1] == "torch 2.7.1+cu126 is compiled for sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90 (per the matrix for torch 2.7.1+cu126)"


def test_tensorflow_on_kepler_is_an_error_in_the_tensorflow_section():
    f = only(machine(**R570, gpus=(("Tesla K80", "3.7"),), tf=tf("2.16.1", "12.3", "8")))
    assert (f.id, f.severity, f.section) == ("gpu-arch-not-in-build", Severity.ERROR, Section.TENSORFLOW)
    assert f.fix.summary.startswith("Install a TensorFlow build compiled for compute capability 3.7: install tensorflow 2.13.1")
    assert f.fix.url == TF_URL


def test_a_cpu_build_is_skipped_and_the_next_build_still_judged():
    (f,) = findings(machine(**R570, gpus=(RTX5090,), torch=torch("2.7.1+cpu", None), tf=tf("2.16.1", "12.3", "8")))
    assert f.id == "gpu-arch-ptx-only" and f.section is Section.TENSORFLOW


# -- only the toolkit's compute-capability range ----------------------------------------------------------------


def test_below_the_toolkit_range_is_an_error():
    f = only(machine(**R570, gpus=(("Tesla K80", "3.7"),), torch=torch("2.6.0+cu126", "12.6")))
    assert (f.id, f.severity, f.section) == ("gpu-arch-not-in-build", Severity.ERROR, Section.TORCH)
    assert f.title == "torch 2.6.0+cu126 cannot have code for GPU 0 (Tesla K80) (compute capability 3.7)"
    assert f.evidence == (
        "GPU 0 (Tesla K80) has compute capability 3.7",
        "torch 2.6.0+cu126 is built with CUDA 12.6, which compiles for compute capability 5.0 to 9.0",
        "PTX only runs on a GPU of its own or a higher compute capability",
    )
    assert f.fix.summary == "Install a PyTorch build compiled for compute capability 3.7: install torch 2.0.1+cu117"
    assert f.fix.commands == ("pip install torch==2.0.1 torchvision==0.15.2 --index-url https://download.pytorch.org/whl/cu117",)


def test_above_the_toolkit_range_is_a_warning():
    f = only(machine(**R570, gpus=(("Mystery Accelerator", None), RTX5090), torch=torch("2.6.0+cu126", "12.6")))
    assert (f.id, f.severity, f.section) == ("gpu-arch-not-in-build", Severity.WARNING, Section.TORCH)
    assert f.title == "torch 2.6.0+cu126 has no native code for GPU 1 (NVIDIA GeForce RTX 5090) (compute capability 12.0) and probably no PTX for it"
    assert f.evidence == (
        "GPU 1 (NVIDIA GeForce RTX 5090) has compute capability 12.0",
        "torch 2.6.0+cu126 is built with CUDA 12.6, which compiles for compute capability 5.0 to 9.0",
        "only PTX could run it; the matrix does not know whether this build carries PTX",
    )
    assert f.fix.summary == "Install a PyTorch build compiled for compute capability 12.0: install torch 2.11.0+cu128"
    assert f.fix.commands == TORCH_211_CU128


def test_the_ends_of_the_toolkit_range_are_inside_it():
    for gpu in (("NVIDIA H100 80GB HBM3", "9.0"), ("NVIDIA GeForce GTX 750 Ti", "5.0")):
        assert findings(machine(**R570, gpus=(gpu,), torch=torch("2.6.0+cu126", "12.6"))) == []


def test_an_unconfirmed_matrix_arch_list_is_not_trusted():
    """TF 2.5's list is the documented one (arch_confirmed = false): its compute_80 would claim PTX for an H100;
    only the CUDA 11.2 range is known, so the rule warns that the build probably has no code for it."""
    f = only(machine(**R570, python="3.8.10", gpus=(("NVIDIA H100 80GB HBM3", "9.0"),), tf=tf("2.5.0", "11.2", "8")))
    assert (f.id, f.severity, f.section) == ("gpu-arch-not-in-build", Severity.WARNING, Section.TENSORFLOW)
    assert f.evidence[1] == "tensorflow 2.5.0 is built with CUDA 11.2, which compiles for compute capability 3.5 to 8.6"
    assert findings(machine(**R570, python="3.8.10", gpus=(("NVIDIA A100-SXM4-40GB", "8.0"),), tf=tf("2.5.0", "11.2", "8"))) == []


def test_nothing_to_judge_without_gpus_or_matrix():
    facts = machine(**R570, gpus=(RTX5090,), torch=torch("2.7.1+cu128", "12.8", ["sm_80"]))
    assert list(gpu_arch_not_in_build(facts, None)) == []
    assert findings(machine(**R570, torch=torch("2.7.1+cu128", "12.8", ["sm_80"]))) == []


def test_ptx_only_torch_without_any_native_build_points_at_the_install_page():
    """Jetson Thor (compute capability 11.0): the matrix knows no PyTorch build with sm_110, so the warning can only
    say what to expect, with no command, and link the install selector."""
    facts = machine(python="3.12.3", driver="580.00", driver_cuda="13.0", gpus=(("NVIDIA Jetson AGX Thor", "11.0"),),
                    torch=torch("2.7.1+cu128", "12.8", ["sm_87", "sm_90", "compute_90"]))
    f = only(dataclasses.replace(facts, host=dataclasses.replace(facts.host, arch="aarch64")))
    assert f.id == "gpu-arch-ptx-only"
    assert f.fix.summary.startswith("No PyTorch build that fits this machine has native code for 11.0")
    assert (f.fix.commands, f.fix.url) == ((), "https://pytorch.org/get-started/locally/")


def test_a_build_judged_by_its_toolkit_range_does_not_hide_the_next_build():
    found = findings(machine(**R570, gpus=(("Tesla K80", "3.7"),), torch=torch("2.6.0+cu126", "12.6"), tf=tf("2.16.1", "12.3", "8")))
    assert [(f.id, f.severity, f.section) for f in found] == [
        ("gpu-arch-not-in-build", Severity.ERROR, Section.TORCH),
        ("gpu-arch-not-in-build", Severity.ERROR, Section.TENSORFLOW),
    ]


def test_toolkit_range_reads_the_compute_capability_from_the_name():
    f = only(machine(driver="580.95.05", driver_cuda="13.0", gpus=(("NVIDIA GeForce GTX 1080", None),), torch=torch("2.16.0+cu132", "13.2")))
    assert f.title == "torch 2.16.0+cu132 cannot have code for GPU 0 (NVIDIA GeForce GTX 1080) (compute capability 6.1)"
    assert f.evidence[1] == "torch 2.16.0+cu132 is built with CUDA 13.2, which compiles for compute capability 7.5 to 12.1"


def test_an_unreadable_compute_capability_is_skipped_not_judged():
    """nvidia-smi prints [N/A] for fields it cannot read: that GPU is not judged, the next one is."""
    odd = ("NVIDIA Graphics Device", "N/A")
    by_range = only(machine(**R570, gpus=(odd, ("Tesla K80", "3.7")), torch=torch("2.6.0+cu126", "12.6")))
    assert "GPU 1 (Tesla K80)" in by_range.title
    by_list = only(machine(**R570, gpus=(odd, RTX5090), torch=torch("2.7.1+cu128", "12.8", ["sm_80"])))
    assert "GPU 1 (NVIDIA GeForce RTX 5090)" in by_list.title


def test_pasted_tensorflow_arch_list_names_its_own_source():
    facts = machine(**R570, gpus=(RTX5090,), tf=dict(tf("2.16.1", "12.3", "8"), compute_capabilities=["sm_80", "sm_90"]))
    pasted = dataclasses.replace(facts, provenance={"frameworks.tensorflow.compute_capabilities": "tf build info, line 4",
                                                    "frameworks.torch.arch_list": "collect_env, line 7"})
    assert only(pasted).evidence[1] == "tensorflow 2.16.1 is compiled for sm_80 sm_90 (as pasted: tf build info, line 4)"


def test_a_driver_known_by_its_version_alone_still_suppresses_ptx_it_cannot_jit():
    arch = ["sm_80", "sm_90", "compute_90"]
    assert findings(machine(driver="550.54.15", gpus=(RTX5090,), torch=torch("2.7.1+cu128", "12.8", arch))) == []


def test_a_gpu_left_to_the_driver_rule_does_not_hide_the_next_gpu():
    arch = ["sm_80", "sm_90", "compute_90"]
    f = only(machine(driver="550.54.15", driver_cuda="12.4", gpus=(RTX5090, ("Tesla K80", "3.7")), torch=torch("2.7.1+cu128", "12.8", arch)))
    assert (f.id, f.severity) == ("gpu-arch-not-in-build", Severity.ERROR) and "GPU 1 (Tesla K80)" in f.title


def test_a_gpu_inside_the_toolkit_range_does_not_hide_the_next_gpu():
    f = only(machine(**R570, gpus=(("NVIDIA H100 80GB HBM3", "9.0"), ("Tesla K80", "3.7")), torch=torch("2.6.0+cu126", "12.6")))
    assert "GPU 1 (Tesla K80)" in f.title


def test_an_unreadable_cuda_version_is_not_judged():
    assert findings(machine(**R570, gpus=(("Tesla K80", "3.7"),), torch=torch("2.6.0", "unknown"))) == []


def test_a_compute_capability_nvidia_smi_could_not_read_is_skipped():
    from gpudoctor.model import Gpu

    for build in (torch("2.6.0+cu126", "12.6"), torch("2.7.1+cu128", "12.8", ["sm_80"])):
        facts = machine(**R570, torch=build)
        facts = dataclasses.replace(facts, gpus=(Gpu(index=0, name="NVIDIA Graphics Device", compute_capability="[N/A]"),))
        assert findings(facts) == []
