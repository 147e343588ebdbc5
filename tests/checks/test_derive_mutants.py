"""The derived-facts layer (checks/derive.py, issue 20 class 2) edge by edge, for mutation testing: which package
lists and hosts prove the package index's tensorflow is a CUDA build, what the derived fact and its provenance say,
and every case that must leave the facts exactly as they were; the same for torch's CUDA build read from its own
"no NVIDIA driver" words, and for Rosetta on an Apple-silicon Mac.

Equivalent mutant: _rosetta's `re.match(r"Apple M\\d", apple.chip or "XXXX")` for `or ""`: "XXXX" names no Apple
chip, and neither does ""."""

from __future__ import annotations

import pytest

from gpudoctor.checks.derive import derive
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Apple, Facts, Frameworks, Host, Symptom, TensorflowBuild, TorchBuild

MATRIX = load_matrix()

LINUX = Host(os="linux", arch="x86_64", python="3.11.9")
WHY = "derived: the package index's tensorflow {} wheel for Linux x86_64 is the CUDA build"


def facts(packages=None, tf=None, host=LINUX, provenance=None, torch=None) -> Facts:
    frameworks = Frameworks(tensorflow=tf, torch=torch) if tf or torch else None
    return Facts(host=host, python_packages=packages, frameworks=frameworks, provenance=provenance)


def test_a_whole_list_with_tensorflow_derives_a_cuda_build_with_its_provenance():
    out = derive(facts({"tensorflow": "2.16.1", "numpy": "1.26.4"}, provenance={"python_packages": "pip list"}), None)
    assert out.frameworks == Frameworks(tensorflow=TensorflowBuild(version="2.16.1", is_cuda_build=True))
    assert out.provenance == {"python_packages": "pip list", "frameworks.tensorflow.is_cuda_build": WHY.format("2.16.1")}
    assert out.python_packages == {"tensorflow": "2.16.1", "numpy": "1.26.4"} and out.host == LINUX


def test_no_provenance_stays_none_and_other_frameworks_are_kept():
    torch = TorchBuild(version="2.3.1+cu121", cuda="12.1")
    out = derive(facts({"tensorflow": "2.16.1"}, torch=torch), None)
    assert out.provenance is None
    assert out.frameworks == Frameworks(torch=torch, tensorflow=TensorflowBuild(version="2.16.1", is_cuda_build=True))


def test_the_build_read_elsewhere_keeps_its_other_facts():
    tf = TensorflowBuild(version="2.15.0", cuda="12.2", cudnn="8", path="/venv/lib/tensorflow")
    out = derive(facts({"tensorflow": "2.15.0"}, tf=tf, provenance={}), None)
    assert out.frameworks.tensorflow == TensorflowBuild(version="2.15.0", is_cuda_build=True, cuda="12.2", cudnn="8",
                                                        path="/venv/lib/tensorflow")
    assert out.provenance == {"frameworks.tensorflow.is_cuda_build": WHY.format("2.15.0")}


@pytest.mark.parametrize("listed", [None, "", "2.15.0"])
def test_the_build_s_version_is_used_when_the_list_names_the_tensorflow_distribution(listed):
    """The 'tensorflow' distribution is in the list (with no version, or another source's): the build read from the
    framework is that distribution, and its version is the one named."""
    out = derive(facts({"tensorflow": listed}, tf=TensorflowBuild(version="2.16.1")), None)
    assert out.frameworks.tensorflow == TensorflowBuild(version="2.16.1", is_cuda_build=True)


def test_the_list_s_version_is_used_when_the_build_has_none():
    out = derive(facts({"tensorflow": "2.16.1"}, tf=TensorflowBuild(path="/x")), None)
    assert out.frameworks.tensorflow == TensorflowBuild(version=None, is_cuda_build=True, path="/x")


@pytest.mark.parametrize("host", [
    Host(os="linux", arch=None), Host(os="linux", arch="amd64"), Host(os="linux", arch="x86_64", wsl=2),
])
def test_linux_x86_64_hosts_derive(host):
    assert derive(facts({"tensorflow": "2.1.0"}, host=host), None).frameworks.tensorflow.is_cuda_build is True


@pytest.mark.parametrize("version", ["2.1", "2.1.0", "2.16.1", "10.0.0"])
def test_every_release_from_2_1_derives(version):
    assert derive(facts({"tensorflow": version}), None).frameworks.tensorflow.is_cuda_build is True


@pytest.mark.parametrize(("packages", "tf", "host"), [
    ({"tensorflow": "2.16.1"}, None, None),  # the host is unknown
    ({"tensorflow": "2.16.1"}, None, Host(os="windows", arch="x86_64")),
    ({"tensorflow": "2.16.1"}, None, Host(os="darwin", arch="x86_64")),
    ({"tensorflow": "2.16.1"}, None, Host(os=None, arch="x86_64")),
    ({"tensorflow": "2.16.1"}, None, Host(os="linux", arch="x86_64", wsl=1)),
    ({"tensorflow": "2.16.1"}, None, Host(os="linux", arch="aarch64")),
    ({"tensorflow": "2.16.1"}, None, Host(os="linux", arch="ppc64le")),
    ({"tensorflow": "2.16.1", "tensorflow-cpu": "2.16.1"}, None, LINUX),
    ({"tensorflow": "2.16.1", "tensorflow-intel": "2.16.1"}, None, LINUX),
    ({"tensorflow": "2.16.1", "tensorflow-macos": "2.16.1"}, None, LINUX),
    ({"tensorflow": "2.16.1", "tensorflow-aarch64": "2.16.1"}, None, LINUX),
    ({"tensorflow": "1.15.0"}, None, LINUX),  # 1.x: the GPU build was tensorflow-gpu
    ({"tensorflow": "2.0.0"}, None, LINUX),
    ({"tensorflow": "1.9"}, None, LINUX),
    ({"tensorflow": "2.16.1+nv24.3"}, None, LINUX),  # a local tag: NVIDIA's container build, not the index's
    ({"tensorflow": "2.16.0rc0"}, None, LINUX),
    ({"tensorflow": "2"}, None, LINUX),
    ({"tensorflow": ""}, None, LINUX),
    ({"tensorflow-gpu": "2.10.0"}, None, LINUX),  # no 'tensorflow' distribution at all
    ({}, None, LINUX),
    (None, None, LINUX),
    ({"tensorflow": "2.16.1"}, TensorflowBuild(version="2.16.1", is_cuda_build=False), LINUX),  # already known
    ({"tensorflow": "2.16.1"}, TensorflowBuild(version="2.16.1", is_cuda_build=True), LINUX),
    (None, TensorflowBuild(version="2.16.1"), LINUX),  # a version from a sentence: which distribution is unknown
    ({"numpy": "1.26.4"}, TensorflowBuild(version="2.16.1"), LINUX),
])
def test_the_facts_are_returned_unchanged(packages, tf, host):
    before = facts(packages, tf=tf, host=host, provenance={"x": "y"})
    assert derive(before, None) is before


def test_a_cpu_distribution_listed_without_a_version_does_not_block():
    out = derive(facts({"tensorflow": "2.16.1", "tensorflow-cpu": None, "tensorflow-intel": ""}), None)
    assert out.frameworks.tensorflow.is_cuda_build is True


# -- Windows up to 2.10, and "installed with pip" where no package list names tensorflow -----------------------------

WINDOWS = Host(os="windows", arch="amd64", python="3.7.7")
FROM_PIP = Symptom("tensorflow-from-pip", "- TensorFlow installed from: pip", "tensorflow")


def said(tf: TensorflowBuild | None, host=LINUX, packages=None, *symptoms: Symptom) -> Facts:
    return Facts(host=host, python_packages=packages, frameworks=Frameworks(tensorflow=tf) if tf else None,
                 symptoms=symptoms or None, provenance={})


@pytest.mark.parametrize("version", ["2.1.0", "2.3.1", "2.10.0", "2.10.1"])
def test_a_windows_wheel_up_to_2_10_is_the_cuda_build(version):
    out = derive(facts({"tensorflow": version}, host=WINDOWS, provenance={}), MATRIX)  # tensorflow.toml's last Windows GPU release
    assert out.frameworks.tensorflow == TensorflowBuild(version=version, is_cuda_build=True)
    assert out.provenance == {"frameworks.tensorflow.is_cuda_build":
                              f"derived: the package index's tensorflow {version} wheel for Windows x86_64 is the CUDA build"}


@pytest.mark.parametrize("version", ["2.11.0", "2.12.0", "3.0.0"])
def test_a_windows_wheel_after_2_10_is_not(version):
    before = facts({"tensorflow": version}, host=WINDOWS, provenance={})
    assert derive(before, MATRIX) is before
    before = said(TensorflowBuild(version=version), WINDOWS, None, FROM_PIP)
    assert derive(before, MATRIX) is before


def test_on_windows_the_last_gpu_release_is_the_matrixs():
    import dataclasses

    before = facts({"tensorflow": "2.10.0"}, host=WINDOWS, provenance={})
    assert derive(before, None) is before  # without tensorflow.toml nothing is derived on Windows
    assert derive(before, dataclasses.replace(MATRIX, tf_windows_gpu_last="2.9.3")) is before
    assert derive(before, MATRIX).frameworks.tensorflow.is_cuda_build is True


def test_installed_with_pip_names_the_index_s_wheel_with_the_words_as_provenance():
    words = "  - TensorFlow installed from (source or binary): pip install tensorflow==2.4.0 in a fresh venv on Ubuntu 18.04  "
    out = derive(said(TensorflowBuild(version="2.4.0"), LINUX, None, Symptom("tensorflow-from-pip", words, "tensorflow")), None)
    assert out.frameworks.tensorflow == TensorflowBuild(version="2.4.0", is_cuda_build=True)
    assert out.provenance == {"frameworks.tensorflow.is_cuda_build": (
        "derived: the package index's tensorflow 2.4.0 wheel for Linux x86_64 is the CUDA build"
        f" (installed with pip: {words.strip()[:60]!r})")}
    assert len(words.strip()) > 61  # the words are cut at 60 characters


def test_installed_with_pip_on_windows_without_a_list():
    out = derive(said(TensorflowBuild(version="2.1.0"), WINDOWS, None, FROM_PIP), MATRIX)
    assert out.provenance == {"frameworks.tensorflow.is_cuda_build":
                              "derived: the package index's tensorflow 2.1.0 wheel for Windows x86_64 is the CUDA build"
                              " (installed with pip: '- TensorFlow installed from: pip')"}


def test_on_linux_a_package_list_without_tensorflow_outweighs_installed_with_pip():
    before = said(TensorflowBuild(version="2.4.0"), LINUX, {"numpy": "1.19.5", "tensorflow-gpu": "2.4.0"}, FROM_PIP)
    assert derive(before, None) is before
    # without a list, or with the list naming it, the words decide
    assert derive(said(TensorflowBuild(version="2.4.0"), LINUX, {}, FROM_PIP), None).frameworks.tensorflow.is_cuda_build is True
    listed = derive(said(TensorflowBuild(version="2.4.0"), LINUX, {"tensorflow": "2.4.0"}, FROM_PIP), None)
    assert listed.provenance == {"frameworks.tensorflow.is_cuda_build": WHY.format("2.4.0")}  # the list speaks, not the words


# -- torch's CUDA build from its own words --------------------------------------------------------------------------

NO_DRIVER = Symptom("no-driver-found", "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
                    "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx", "torch")
TOO_OLD = Symptom("driver-too-old", "The NVIDIA driver on your system is too old (found version 10010).", "torch")


def test_torch_s_no_driver_words_derive_its_cuda_build_with_the_words_as_provenance():
    out = derive(Facts(symptoms=(NO_DRIVER, TOO_OLD), provenance={"x": "y"}), None)
    assert out.frameworks == Frameworks(torch=TorchBuild(build="cuda"))
    assert out.provenance == {"x": "y", "frameworks.torch.build": f"derived: only torch's CUDA build prints {NO_DRIVER.text[:80]!r}"}
    assert out.symptoms == (NO_DRIVER, TOO_OLD)


def test_the_driver_too_old_words_keep_the_torch_facts_and_other_frameworks():
    before = Facts(symptoms=(TOO_OLD,), frameworks=Frameworks(torch=TorchBuild(version="1.8.0"), tensorflow=TensorflowBuild(version="2.4.0")))
    out = derive(before, None)
    assert out.frameworks == Frameworks(torch=TorchBuild(version="1.8.0", build="cuda"), tensorflow=TensorflowBuild(version="2.4.0"))
    assert out.provenance is None and before.frameworks.torch.build is None


@pytest.mark.parametrize("before", [
    Facts(symptoms=(Symptom("no-driver-found", NO_DRIVER.text, "tensorflow"),)),  # another framework's words
    Facts(symptoms=(Symptom("no-driver-found", NO_DRIVER.text, None),)),
    Facts(symptoms=(Symptom("cuda-unavailable", "torch.cuda.is_available() False", "torch"),)),
    Facts(symptoms=(NO_DRIVER,), frameworks=Frameworks(torch=TorchBuild(version="2.1.0+cpu"))),  # the build is known
    Facts(symptoms=(TOO_OLD,), frameworks=Frameworks(torch=TorchBuild(build="rocm"))),
    Facts(frameworks=Frameworks(torch=TorchBuild(version="2.1.0"))),
    Facts(),
])
def test_torch_s_build_is_left_alone(before):
    assert derive(before, None) is before


# -- Rosetta --------------------------------------------------------------------------------------------------------

ILLEGAL = Symptom("illegal-instruction", "  zsh: illegal hardware instruction  python -c 'import tensorflow as tf; print(tf.reduce_sum(1))'  ")


def mac(apple: Apple | None, os: str | None = "darwin", arch: str | None = None, *found: Symptom, provenance=None) -> Facts:
    return Facts(host=Host(os=os, arch=arch, python="3.11.4", apple=apple), symptoms=found or None, provenance=provenance)


@pytest.mark.parametrize("python_arch", ["x86_64", "i386"])
def test_an_x86_python_on_an_apple_chip_runs_under_rosetta(python_arch):
    apple = Apple(macos="14.5", python_arch=python_arch, chip="Apple M2 Pro")
    out = derive(mac(apple, None, None, provenance={}), None)
    assert out.host == Host(os=None, python="3.11.4", apple=Apple(macos="14.5", python_arch=python_arch, rosetta=True, chip="Apple M2 Pro"))
    assert out.provenance == {"host.apple.rosetta": f"derived: an {python_arch} Python on an Apple M2 Pro runs under Rosetta"}


def test_a_native_arm64_shell_names_the_mac_apple_silicon():
    out = derive(mac(Apple(python_arch="x86_64"), "darwin", "arm64", provenance={"a": "b"}), None)
    assert out.host.apple == Apple(python_arch="x86_64", rosetta=True) and out.host.arch == "arm64"
    assert out.provenance == {"a": "b", "host.apple.rosetta": "derived: an x86_64 Python on an Apple-silicon Mac (uname -m: arm64) runs under Rosetta"}


def test_an_illegal_instruction_on_an_apple_chip_is_rosetta_when_the_python_arch_is_unknown():
    second = Symptom("illegal-instruction", "Illegal instruction: 4")
    out = derive(mac(Apple(chip="Apple M1"), "darwin", None, ILLEGAL, second, provenance={}), None)
    assert out.host.apple == Apple(chip="Apple M1", rosetta=True)
    assert out.provenance == {"host.apple.rosetta": f"derived: {ILLEGAL.text.strip()[:60]!r} on an Apple M1: an x86 build's AVX, which Rosetta cannot run"}
    assert derive(mac(Apple(chip="Apple M1"), "darwin", None, ILLEGAL), None).provenance is None


@pytest.mark.parametrize("before", [
    mac(Apple(python_arch="arm64", chip="Apple M3")),  # a native Python
    mac(Apple(python_arch="arm64", chip="Apple M3"), "darwin", None, ILLEGAL),  # native: the illegal instruction is another's
    mac(Apple(chip="Apple M3")),  # nothing says x86
    mac(Apple(python_arch="x86_64", chip="Apple M3", rosetta=False)),  # already measured
    mac(Apple(python_arch="x86_64", chip="Apple M3", rosetta=True)),
    mac(Apple(python_arch="x86_64", chip="Intel(R) Core(TM) i9-9880H")),  # an Intel Mac
    mac(Apple(python_arch="x86_64", chip="Apple Macmini")),
    mac(Apple(python_arch="x86_64"), "darwin", "x86_64"),
    mac(Apple(python_arch="x86_64"), "linux", "arm64"),
    mac(Apple(python_arch="x86_64"), None, "arm64"),
    mac(None, "darwin", "arm64", ILLEGAL),  # no Apple facts at all
    Facts(symptoms=(ILLEGAL,)),
])
def test_rosetta_is_left_alone(before):
    assert derive(before, None) is before


WIN_PIP_HOST = Host(os="windows", arch="AMD64", python="3.11.9")


def test_the_index_torch_wheel_on_native_windows_is_the_cpu_build():
    derived = derive(facts({"torch": "2.4.0"}, torch=TorchBuild(version="2.4.0"), host=WIN_PIP_HOST, provenance={}), MATRIX)
    assert derived.frameworks.torch.build == "cpu"
    assert derived.provenance["frameworks.torch.build"] == (
        "derived: the package index's torch 2.4.0 wheel for Windows is the CPU build (CUDA builds come from PyTorch's "
        "index, tagged +cuXXX)")


@pytest.mark.parametrize(("packages", "torch", "host"), [
    ({"torch": "2.4.0+cu121"}, TorchBuild(version="2.4.0+cu121"), WIN_PIP_HOST),  # PyTorch's index: tagged
    ({"torch": "1.13.1"}, TorchBuild(version="1.13.1"), WIN_PIP_HOST),  # 1.x untagged Windows wheels were CUDA builds
    ({}, TorchBuild(version="2.4.0"), WIN_PIP_HOST),  # a sentence's version, not a package list's
    ({"torch": "2.4.0"}, TorchBuild(version="2.4.0", cuda="12.1"), WIN_PIP_HOST),  # conda's build string said CUDA
    ({"torch": "2.4.0"}, TorchBuild(version="2.4.0", build="cuda"), WIN_PIP_HOST),
    ({"torch": "2.4.0"}, TorchBuild(version="2.4.0"), LINUX),  # Linux's index wheel is a CUDA build
    ({"torch": "2.4.0"}, TorchBuild(version="2.4.0"), Host(os="windows", wsl=2)),
    ({"torch": "2.4.0"}, TorchBuild(version=None), WIN_PIP_HOST),
])
def test_the_windows_torch_rule_leaves_everything_else(packages, torch, host):
    before = facts(packages, torch=torch, host=host)
    assert derive(before, MATRIX).frameworks.torch == torch
    assert derive(facts({"torch": "2.4.0"}, torch=TorchBuild(version="2.4.0"), host=WIN_PIP_HOST), None).frameworks.torch.build is None
