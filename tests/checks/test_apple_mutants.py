"""Apple-silicon rules, finding by finding (issue 11: mutation score of checks/platforms_apple.py): the whole finding
for each failure mode, the macOS line one below / at / above, where the TensorFlow version is read from, and the
Macs each rule must stay silent on (an Intel Mac, a Python under Rosetta, unknown facts, no table)."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import platforms_apple as apple
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Apple, Facts, Finding, Fix, Frameworks, Host, Section, Severity, TensorflowBuild, TorchBuild

MPS_URL = "https://developer.apple.com/metal/pytorch/"
METAL_URL = "https://developer.apple.com/metal/tensorflow-plugin/"
NATIVE = Apple(macos="14.5", python_arch="arm64", rosetta=False, chip="Apple M3")
INTEL = Apple(macos="13.6", python_arch="x86_64", rosetta=False, chip="Intel(R) Core(TM) i9-9880H")
ROSETTA = Apple(macos="14.5", python_arch="x86_64", rosetta=True, chip="Apple M2 Pro")


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def mac(a: Apple | None = NATIVE, os: str | None = "darwin", **facts) -> Facts:
    return Facts(host=Host(os=os, apple=a), **facts)


def run(rule, facts: Facts, matrix) -> list[Finding]:
    return list(rule(facts, matrix))


# -- the GPU and the Python ------------------------------------------------------------------------------------------

GPU_TITLE = ("Apple silicon GPU: PyTorch uses it as the `mps` device, TensorFlow through tensorflow-metal "
             "(NVIDIA checks do not apply)")


def test_apple_gpu_pinned(matrix):
    assert run(apple.apple_gpu, mac(), matrix) == [Finding(
        "apple-silicon-gpu", Severity.OK, Section.GPU, GPU_TITLE, ("chip: Apple M3", "macOS 14.5", "Python architecture: arm64"))]


@pytest.mark.parametrize("a, evidence", [
    (Apple(chip="Apple M1"), ("chip: Apple M1",)),  # the chip alone tells
    (Apple(python_arch="arm64"), ("Python architecture: arm64",)),  # an arm64 Python runs only on Apple silicon
    (Apple(macos="15.1", python_arch="arm64", rosetta=None), ("macOS 15.1", "Python architecture: arm64")),
])
def test_apple_gpu_from_partial_facts(matrix, a, evidence):
    (finding,) = run(apple.apple_gpu, mac(a, os=None), matrix)  # host.apple alone says this is a Mac
    assert finding.evidence == evidence


@pytest.mark.parametrize("facts", [
    mac(INTEL), mac(ROSETTA), mac(Apple()), mac(None), Facts(),
    mac(Apple(python_arch="x86_64")),  # translated or not is unknown: cannot tell
    mac(Apple(chip="Intel(R) Xeon(R) W-3245", rosetta=None)),
])
def test_apple_gpu_silent(matrix, facts):
    assert run(apple.apple_gpu, facts, matrix) == []


ROSETTA_FIX = Fix(
    "Install a native arm64 Python (python.org's universal2 installer, Homebrew in /opt/homebrew, or Miniforge's "
    "arm64 installer), recreate the environment with it, then reinstall the frameworks",
    ('python3 -c "import platform; print(platform.machine())"   # must print arm64',
     "curl -LO https://github.com/conda-forge/miniforge/releases/latest/download/Miniforge3-MacOSX-arm64.sh",
     "bash Miniforge3-MacOSX-arm64.sh"),
    MPS_URL)
ROSETTA_TITLE = "This Python is an x86_64 build running under Rosetta on an Apple-silicon Mac: no MPS, no tensorflow-metal"


def test_python_under_rosetta_pinned(matrix):
    assert run(apple.apple_python_under_rosetta, mac(ROSETTA), matrix) == [Finding(
        "apple-python-under-rosetta", Severity.ERROR, Section.GPU, ROSETTA_TITLE,
        ("sysctl.proc_translated = 1 (the process is translated)", "Python architecture: x86_64", "chip: Apple M2 Pro"),
        ROSETTA_FIX)]
    (bare,) = run(apple.apple_python_under_rosetta, mac(Apple(rosetta=True)), matrix)
    assert bare.evidence == ("sysctl.proc_translated = 1 (the process is translated)", "Python architecture: unknown")


@pytest.mark.parametrize("facts", [mac(NATIVE), mac(INTEL), mac(Apple()), mac(None), Facts()])
def test_python_under_rosetta_silent(matrix, facts):
    assert run(apple.apple_python_under_rosetta, facts, matrix) == []


# -- macOS too old for MPS (PyTorch's MPS notes: macOS 12.3+) --------------------------------------------------------

OLD_MACOS_FIX = Fix("Update macOS (System Settings → General → Software Update)", (), MPS_URL)


def test_macos_too_old_with_torch_is_an_error_pinned(matrix):
    facts = mac(Apple(macos="12.2.1", python_arch="arm64", rosetta=False), python_packages={"torch": "1.13.1"})
    assert run(apple.apple_macos_too_old_for_mps, facts, matrix) == [Finding(
        "apple-macos-too-old-for-mps", Severity.ERROR, Section.GPU,
        "macOS 12.2.1 is older than the 12.3 PyTorch's MPS device needs: training runs on the CPU",
        ("macOS 12.2.1", "MPS needs macOS 12.3 or later (PyTorch's MPS notes)", "torch 1.13.1 is installed"),
        OLD_MACOS_FIX)]


def test_macos_too_old_without_torch_is_a_warning(matrix):
    facts = mac(Apple(macos="11.7", chip="Apple M1"), python_packages={"torch": None})
    assert run(apple.apple_macos_too_old_for_mps, facts, matrix) == [Finding(
        "apple-macos-too-old-for-mps", Severity.WARNING, Section.GPU,
        "macOS 11.7 is older than the 12.3 PyTorch's MPS device needs: training runs on the CPU",
        ("macOS 11.7", "MPS needs macOS 12.3 or later (PyTorch's MPS notes)"), OLD_MACOS_FIX)]


@pytest.mark.parametrize("macos, fires", [
    ("12.2", True), ("12.2.9", True), ("12", True), ("12.3", False), ("12.3.0", False), ("12.4", False), ("13", False),
    ("10.16", False),  # the compatibility version an old-SDK Python reads on macOS 11+: not the real one
    ("10.15.7", True), ("", False), ("unknown", False),
])
def test_macos_line_for_mps(matrix, macos, fires):
    found = run(apple.apple_macos_too_old_for_mps, mac(Apple(macos=macos, python_arch="arm64")), matrix)
    assert [f.id for f in found] == (["apple-macos-too-old-for-mps"] if fires else [])


@pytest.mark.parametrize("a", [
    Apple(macos="12.0", python_arch="x86_64", rosetta=False),  # an Intel Mac: MPS is not its route to a GPU
    Apple(macos="12.0", python_arch="x86_64", rosetta=True),  # under Rosetta the Rosetta finding says why
    Apple(macos="12.0"),  # Apple silicon or not is unknown
    Apple(python_arch="arm64"),
])
def test_macos_too_old_silent(matrix, a):
    assert run(apple.apple_macos_too_old_for_mps, mac(a), matrix) == []


def test_no_apple_table_no_judgement(matrix):
    facts = mac(Apple(macos="11.0", python_arch="arm64"), python_packages={"tensorflow": "2.16.2", "tensorflow-metal": None})
    without = dataclasses.replace(matrix, platform_tables=dataclasses.replace(matrix.platform_tables, apple=None))
    for rule in (apple.apple_macos_too_old_for_mps, apple.tf_metal_missing):
        assert run(rule, facts, matrix) != []
        assert run(rule, facts, without) == [] and run(rule, facts, None) == []
        assert run(rule, facts, dataclasses.replace(matrix, platform_tables=None)) == []


# -- torch.backends.mps with --deep ----------------------------------------------------------------------------------


def test_torch_sees_mps_pinned(matrix):
    facts = mac(frameworks=Frameworks(torch=TorchBuild(version="2.5.1", mps_built=True, mps_available=True)))
    assert run(apple.torch_mps_runtime, facts, matrix) == [Finding(
        "torch-mps-available", Severity.OK, Section.TORCH, "torch 2.5.1 sees the Apple GPU as the mps device",
        ("torch.backends.mps.is_available() = True",))]


def test_torch_without_mps_pinned(matrix):
    facts = mac(frameworks=Frameworks(torch=TorchBuild(mps_built=False, mps_available=False)))
    assert run(apple.torch_mps_runtime, facts, matrix) == [Finding(
        "torch-mps-unavailable", Severity.ERROR, Section.TORCH,
        "torch (version unknown) does not see the Apple GPU (MPS): training runs on the CPU",
        ("torch.backends.mps.is_built() = False", "torch.backends.mps.is_available() = False"),
        Fix("Install the macOS arm64 wheel from the package index (it has MPS built in)",
            ("pip uninstall -y torch torchvision torchaudio", "pip install torch torchvision torchaudio"), MPS_URL))]


@pytest.mark.parametrize("facts", [
    mac(INTEL, frameworks=Frameworks(torch=TorchBuild(version="2.2.2", mps_available=False))),
    mac(ROSETTA, frameworks=Frameworks(torch=TorchBuild(version="2.2.2", mps_available=False))),
    mac(Apple(), frameworks=Frameworks(torch=TorchBuild(version="2.2.2", mps_available=False))),
    mac(frameworks=Frameworks(torch=TorchBuild(version="2.5.1", mps_available=None))),  # without --deep: not asked
    mac(frameworks=Frameworks(torch=None)), mac(frameworks=None),
    Facts(host=Host(os="linux"), frameworks=Frameworks(torch=TorchBuild(version="2.5.1", mps_available=True))),
    Facts(host=Host(os="linux"), frameworks=Frameworks(torch=TorchBuild(version="2.5.1", mps_available=False))),
])
def test_torch_mps_runtime_silent(matrix, facts):
    assert run(apple.torch_mps_runtime, facts, matrix) == []


# -- tensorflow-metal (the plug-in's own table, matrices/apple.toml) -----------------------------------------------


def metal(metal_version: str | None, a: Apple = NATIVE, tf: str | None = None, **packages) -> Facts:
    return mac(a, python_packages={"tensorflow-metal": metal_version, **packages},
               frameworks=Frameworks(tensorflow=TensorflowBuild(version=tf)) if tf else None)


def test_metal_mismatch_pinned(matrix):
    assert run(apple.tf_metal_version_mismatch, metal("1.1.0", tf="2.18.1"), matrix) == [Finding(
        "tf-metal-version-mismatch", Severity.ERROR, Section.TENSORFLOW,
        "tensorflow-metal 1.1.0 is the plug-in for TensorFlow >=2.14,<2.18, not for the installed 2.18.1",
        ("tensorflow-metal 1.1.0: TensorFlow >=2.14,<2.18 (the plug-in's own table)", "TensorFlow 2.18.1 is installed"),
        Fix("Install tensorflow-metal 1.2 (the plug-in for TensorFlow 2.18.1)", ("pip install 'tensorflow-metal==1.2.*'",), METAL_URL))]


def test_metal_mismatch_with_a_tensorflow_no_plugin_serves(matrix):
    (finding,) = run(apple.tf_metal_version_mismatch, metal("1.1.0", tensorflow="2.4.1"), matrix)
    assert finding.fix == Fix("Install a TensorFlow that tensorflow-metal 1.1.0 supports (>=2.14,<2.18)", (), METAL_URL)
    assert finding.title == "tensorflow-metal 1.1.0 is the plug-in for TensorFlow >=2.14,<2.18, not for the installed 2.4.1"


@pytest.mark.parametrize("facts, installed", [
    (metal("1.0.0", tensorflow="2.16.1"), "2.16.1"),  # no build facts: the distribution's version
    (metal("1.0.0", **{"tensorflow-macos": "2.15.0"}), "2.15.0"),  # Apple's tensorflow-macos, before TF 2.13 merged it
    (metal("1.0.0", tensorflow="2.16.1", **{"tensorflow-macos": "2.13.0"}), "2.16.1"),  # tensorflow first
    (metal("1.0.0", tf="2.17.0", tensorflow="2.13.1"), "2.17.0"),  # what the import said beats the metadata
])
def test_metal_mismatch_reads_the_tensorflow_version_in_order(matrix, facts, installed):
    (finding,) = run(apple.tf_metal_version_mismatch, facts, matrix)
    assert finding.evidence[1] == f"TensorFlow {installed} is installed"


@pytest.mark.parametrize("facts", [
    metal("1.0.0", tf="2.13.1", tensorflow="2.17.0"),  # the imported TF fits; the metadata is not consulted
    metal("1.0.0", tensorflow="2.13.0", **{"tensorflow-macos": "2.17.0"}),
    metal("9.0.0", tensorflow="2.18.0"),  # a plug-in newer than the table: not judged
    metal("1.1.0", tensorflow="2.17.9"), metal("1.2.0", tensorflow="2.18.0"),
    metal(None, tensorflow="2.18.0"), metal("1.1.0"), mac(python_packages=None),
])
def test_metal_mismatch_silent(matrix, facts):
    assert run(apple.tf_metal_version_mismatch, facts, matrix) == []
    assert run(apple.tf_metal_version_mismatch, metal("1.1.0", tensorflow="2.18.1"), None) == []


METAL_MISSING_TITLE = "TensorFlow {} on Apple silicon without tensorflow-metal: it runs on the CPU only"


def test_metal_missing_pinned(matrix):
    assert run(apple.tf_metal_missing, metal(None, tensorflow="2.16.2"), matrix) == [Finding(
        "tf-metal-missing", Severity.INFO, Section.TENSORFLOW, METAL_MISSING_TITLE.format("2.16.2"),
        ("tensorflow-metal is not installed",),
        Fix("Install the tensorflow-metal plug-in for this TensorFlow to train on the Apple GPU",
            ("pip install 'tensorflow-metal==1.1.*'",), METAL_URL))]


@pytest.mark.parametrize("facts, version, command", [
    (metal(None, tensorflow="2.4.1"), "2.4.1", "pip install tensorflow-metal"),  # older than every plug-in
    (metal(None, **{"tensorflow-macos": "2.12.0"}), "2.12.0", "pip install 'tensorflow-metal==0.8.*'"),
    (metal(None, tensorflow="2.19.0", **{"tensorflow-macos": "2.12.0"}), "2.19.0", "pip install 'tensorflow-metal==1.2.*'"),
    (metal(None, Apple(chip="Apple M4"), tensorflow="2.18.0"), "2.18.0", "pip install 'tensorflow-metal==1.2.*'"),
])
def test_metal_missing_names_the_plugin_for_the_installed_tensorflow(matrix, facts, version, command):
    (finding,) = run(apple.tf_metal_missing, facts, matrix)
    assert (finding.title, finding.fix.commands) == (METAL_MISSING_TITLE.format(version), (command,))


@pytest.mark.parametrize("facts", [
    metal("1.1.0", tensorflow="2.16.2"),  # installed
    mac(python_packages={"tensorflow": "2.16.2"}),  # the plug-in was not looked up: unknown, not absent
    metal(None), metal(None, tensorflow=None),
    metal(None, INTEL, tensorflow="2.16.2"), metal(None, ROSETTA, tensorflow="2.16.2"), metal(None, Apple(), tensorflow="2.16.2"),
])
def test_metal_missing_silent(matrix, facts):
    assert run(apple.tf_metal_missing, facts, matrix) == []


def test_tensorflow_seeing_no_gpu_without_a_package_list_is_a_warning(matrix):
    # TensorFlow's GPU list is empty and nothing says whether the plug-in is installed: the plug-in is the first thing
    unseen = TensorflowBuild(version="2.15.0", gpus_visible=0)
    (f,) = run(apple.tf_metal_missing, mac(frameworks=Frameworks(tensorflow=unseen)), matrix)
    assert (f.id, f.severity) == ("tf-metal-missing", Severity.WARNING)
    assert f.title == "TensorFlow 2.15.0 on Apple silicon sees no GPU: the Apple GPU needs the tensorflow-metal plug-in"
    assert f.evidence == ("no package list says whether tensorflow-metal is installed",
                          "TensorFlow lists no GPU device (tf.config.list_physical_devices('GPU') is empty)")
    # a package list that shows it absent: the same warning, with that evidence
    listed = mac(frameworks=Frameworks(tensorflow=unseen), python_packages={"tensorflow": "2.15.0", "tensorflow-metal": None})
    assert run(apple.tf_metal_missing, listed, matrix)[0].evidence[0] == "tensorflow-metal is not installed"


@pytest.mark.parametrize("facts", [
    mac(frameworks=Frameworks(tensorflow=TensorflowBuild(version="2.15.0", gpus_visible=1))),           # it sees the GPU
    mac(frameworks=Frameworks(tensorflow=TensorflowBuild(version="2.15.0", gpus_visible=0)),
        python_packages={"tensorflow": "2.15.0", "tensorflow-metal": "1.1.0"}),                          # installed
    mac(INTEL, frameworks=Frameworks(tensorflow=TensorflowBuild(version="2.15.0", gpus_visible=0))),   # an Intel Mac
])
def test_no_metal_warning_where_it_does_not_apply(matrix, facts):
    assert run(apple.tf_metal_missing, facts, matrix) == []
