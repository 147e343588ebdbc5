"""Spellings in a hand-written snapshot read as the format's own (snapshot_values.py): every accepted spelling, the
edges of each pattern, and what a value that is no spelling at all becomes."""

from __future__ import annotations

import pytest

from gpudoctor.model import CudaToolkit, Driver, Facts, Frameworks, Gpu, ProbeError, TensorflowBuild, TorchBuild
from gpudoctor.snapshot import facts_from_dict
from gpudoctor.snapshot_values import compute_capability, cuda_version, normalise


@pytest.mark.parametrize(("written", "read"), [
    ("8.6", "8.6"), (" 8.6 ", "8.6"), ("08.06", "8.6"), ("12.0", "12.0"), ("100.0", "100.0"),
    ("sm_86", "8.6"), ("SM_86", "8.6"), ("compute_86", "8.6"), ("cc86", "8.6"), ("86", "8.6"), (" sm_86 ", "8.6"),
    ("sm86", "8.6"), ("sm_90a", "9.0"), ("sm_120", "12.0"), ("sm_1000", "100.0"), ("sm_5", "5.0"),
    ("sm_05", "5.0"), ("sm_086", "8.6"), ("sm_00", "0.0"),
])
def test_compute_capability_spellings(written, read):
    assert compute_capability(written) == read


@pytest.mark.parametrize("written", ["weird", "", "sm_", "sm_12345", "1000.0", "8.1000", "8.6.1", "gfx90a", "sm_86ab"])
def test_compute_capability_that_is_no_spelling_is_unknown(written):
    assert compute_capability(written) is None


@pytest.mark.parametrize(("written", "read"), [
    ("12.1", "12.1"), ("12.4.131", "12.4.131"), ("12.8 (r570)", "12.8 (r570)"), ("12", "12"), ("12 ", "12 "),
    ("cu121", "12.1"), ("CU121", "12.1"), ("cu90", "9.0"), (" cu118 ", "11.8"), ("cu_121", "12.1"), ("cu 121", "12.1"),
    ("cuda121", "12.1"), ("cu1280", "128.0"),
    ("CUDA 12.1", "12.1"), ("cuda_12.4.131", "12.4.131"), ("cuda12.4", "12.4"), ("Cuda 12.4 ", "12.4"),
])
def test_cuda_version_spellings(written, read):
    assert cuda_version(written) == read


@pytest.mark.parametrize(("written", "read"), [("cuda12", "12"), ("cuda 11", "11"), ("CU12", "12"), ("cu10", "10"), ("cu92", "9.2")])
def test_a_two_digit_tag_starting_with_1_is_a_cuda_major_not_cuda_1(written, read):
    # A snapshot that says "cuda12" once read as CUDA 1.2, an old driver's CUDA that made a false alarm likely.
    assert cuda_version(written) == read


@pytest.mark.parametrize("written", ["weird", "", "cu1", "cu12345", "v12.1", "cuda", "rocm6.2", "12345.1"])
def test_cuda_version_that_is_no_spelling_is_unknown(written):
    assert cuda_version(written) is None


def test_nothing_to_normalise_returns_the_same_facts():
    facts = Facts(gpus=(Gpu(name="x", compute_capability="8.6"), Gpu(name="y")), driver=Driver(version="570.86.15"),
                  cuda_toolkits=(CudaToolkit(version="12.8", path="/usr/local/cuda"),),
                  frameworks=Frameworks(torch=TorchBuild(version="2.7.0"), tensorflow=TensorflowBuild(version="2.19.0")))
    assert normalise(facts) == facts
    assert normalise(Facts()) == Facts()


def test_every_normalised_field_is_read_in_its_own_spelling():
    facts = normalise(Facts(
        gpus=(Gpu(name="a", compute_capability="8.9"), Gpu(name="b", compute_capability="sm_120")),
        driver=Driver(version="570.86.15", cuda_version="cu128"),
        cuda_toolkits=(CudaToolkit(version="12.8"), CudaToolkit(version="cuda_11.8", path="/opt/cuda-11.8")),
        frameworks=Frameworks(torch=TorchBuild(version="2.7.0", cuda="cu126"), tensorflow=TensorflowBuild(cuda="CUDA 12.5")),
    ))
    assert [g.compute_capability for g in facts.gpus] == ["8.9", "12.0"]
    assert [g.name for g in facts.gpus] == ["a", "b"]
    assert facts.driver == Driver(version="570.86.15", cuda_version="12.8")
    assert facts.cuda_toolkits == (CudaToolkit(version="12.8"), CudaToolkit(version="11.8", path="/opt/cuda-11.8"))
    assert facts.frameworks == Frameworks(torch=TorchBuild(version="2.7.0", cuda="12.6"), tensorflow=TensorflowBuild(cuda="12.5"))
    assert facts.probe_errors == ()


def test_values_that_are_no_spelling_become_unknown_and_each_names_its_key():
    earlier = ProbeError("nvml", "NVML not found")
    facts = normalise(Facts(
        gpus=(Gpu(compute_capability="8.6"), Gpu(compute_capability="weird")),
        driver=Driver(version="570.86.15", cuda_version="latest"),
        cuda_toolkits=(CudaToolkit(version="12.8"), CudaToolkit(version="newest")),
        frameworks=Frameworks(torch=TorchBuild(cuda="rocm"), tensorflow=TensorflowBuild(cuda="?")),
        probe_errors=(earlier,),
    ))
    assert [g.compute_capability for g in facts.gpus] == ["8.6", None]
    assert facts.driver == Driver(version="570.86.15", cuda_version=None)
    assert [t.version for t in facts.cuda_toolkits] == ["12.8", None]
    assert facts.frameworks == Frameworks(torch=TorchBuild(cuda=None), tensorflow=TensorflowBuild(cuda=None))
    assert facts.probe_errors == (
        earlier,
        ProbeError("snapshot", "gpus[1].compute_capability 'weird' is not a compute capability: read as unknown"),
        ProbeError("snapshot", "driver.cuda_version 'latest' is not a CUDA version: read as unknown"),
        ProbeError("snapshot", "cuda_toolkits[1].version 'newest' is not a CUDA version: read as unknown"),
        ProbeError("snapshot", "frameworks.torch.cuda 'rocm' is not a CUDA version: read as unknown"),
        ProbeError("snapshot", "frameworks.tensorflow.cuda '?' is not a CUDA version: read as unknown"),
    )


def test_a_long_bad_value_is_quoted_only_in_part():
    facts = normalise(Facts(driver=Driver(cuda_version="x" * 61)))
    assert facts.probe_errors == (ProbeError("snapshot", f"driver.cuda_version {'x' * 60!r} is not a CUDA version: read as unknown"),)


def test_one_framework_is_normalised_without_inventing_the_other():
    torch_only = normalise(Facts(frameworks=Frameworks(torch=TorchBuild(cuda="cu124"))))
    assert torch_only.frameworks == Frameworks(torch=TorchBuild(cuda="12.4"), tensorflow=None)
    tf_only = normalise(Facts(frameworks=Frameworks(tensorflow=TensorflowBuild(cuda="cu125"))))
    assert tf_only.frameworks == Frameworks(torch=None, tensorflow=TensorflowBuild(cuda="12.5"))
    unknown_cuda = Facts(frameworks=Frameworks(torch=TorchBuild(version="2.7.0+cpu", cuda=None, build="cpu")))
    assert normalise(unknown_cuda) == unknown_cuda


def test_a_snapshot_read_from_json_is_normalised():
    facts = facts_from_dict({"gpus": [{"compute_capability": "sm_89"}], "driver": {"cuda_version": "cu124"}})
    assert facts.gpus == (Gpu(compute_capability="8.9"),)
    assert facts.driver == Driver(cuda_version="12.4")
