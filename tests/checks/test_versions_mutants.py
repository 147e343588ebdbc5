"""The version rules finding by finding (issue 11: mutation score of checks/versions.py).

test_version_rules.py asserts which ids each situation gives; this file pins what the user reads for each rule
(title, evidence lines, fix commands and links) and the edges of each decision: the CUDA majors with and without
minor-version compatibility, a driver known only by its CUDA version, CUDA_HOME against PATH, NumPy 2 at the first
NumPy-2 release, the Python read from a pip log and pip's "from versions" list."""

from __future__ import annotations

import dataclasses

from gpudoctor.checks import pip_messages as pm
from gpudoctor.checks import versions as v
from gpudoctor.model import Section, Severity, Symptom
from tests.checks.test_version_rules import CASES, MATRIX, machine, tf, torch

DRIVER_URL = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#cuda-driver"
MVC_URL = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"
TORCH_URL = "https://pytorch.org/get-started/previous-versions/"
TF_URL = "https://www.tensorflow.org/install/pip"


def run(rule, facts):
    return list(rule(facts, MATRIX))


def one(rule, facts):
    (finding,) = run(rule, facts)
    return finding


def logged(facts, *symptoms: Symptom):
    return dataclasses.replace(facts, symptoms=symptoms)


# -- matrix-unknown-version -----------------------------------------------------------------------------------------


def test_a_release_newer_than_the_matrix_is_info_with_the_update_fix():
    f = one(v.matrix_unknown_version, CASES["torch-newer-than-matrix"][0])
    newest = MATRIX.torch[-1].latest
    assert (f.id, f.severity, f.section) == ("matrix-unknown-version", Severity.INFO, Section.TORCH)
    assert f.title == (f"torch 2.16.0+cu132 is newer than the compatibility matrix knows (it knows up to {newest}, reviewed "
                       f"{MATRIX.reviewed}): only the general rules were applied")
    assert f.evidence == ("torch 2.16.0+cu132 installed", f"matrix reviewed {MATRIX.reviewed}")
    assert (f.fix.summary, f.fix.commands) == ("Update gpudoctor for a newer matrix; the CUDA driver rules still apply", ("pip install -U gpudoctor",))


def test_a_release_older_than_the_matrix_is_not_called_newer():
    f = one(v.matrix_unknown_version, machine(python="3.6.9", packages={"torch": "0.4.1"}))
    assert f.title == (f"torch 0.4.1 is not in the compatibility matrix (it covers {MATRIX.torch[0].latest} to {MATRIX.torch[-1].latest}): "
                       "only the general rules were applied")
    assert f.severity is Severity.INFO


def test_tensorflow_is_measured_against_the_tensorflow_releases():
    newer = one(v.matrix_unknown_version, machine(python="3.12.3", tf=tf("2.99.0", "12.5.1", "9")))
    assert newer.section is Section.TENSORFLOW
    assert newer.title == (f"tensorflow 2.99.0 is newer than the compatibility matrix knows (it knows up to 2.21.0, reviewed "
                           f"{MATRIX.reviewed}): only the general rules were applied")
    older = one(v.matrix_unknown_version, machine(python="3.12.3", tf=tf("0.12.1", "8.0", "5")))
    assert older.title == "tensorflow 0.12.1 is not in the compatibility matrix (it covers 1.0.1 to 2.21.0): only the general rules were applied"


def test_an_unknown_variant_of_a_known_release_lists_the_known_ones():
    (f,) = run(v.matrix_unknown_version, machine(python="3.8.10", torch=torch("1.8.1+cu103", "10.3")))
    assert f.title == "torch 1.8.1+cu103: the matrix does not know a CUDA 10.3 variant of torch 1.8: only the general rules were applied"
    assert f.evidence == ("known variants of torch 1.8: cu101, cu102, cu111",)
    assert (f.severity, f.section) == (Severity.INFO, Section.TORCH)
    # CUDA 10.3 is a pre-11 toolkit: no minor-version compatibility to be missing, so no "CUDA newer" finding


def test_a_cuda_newer_than_the_matrix_says_its_driver_was_not_checked():
    found = run(v.matrix_unknown_version, machine(torch=torch("2.7.1+cu999", "99.9")))
    assert [(f.section, f.severity) for f in found] == [(Section.TORCH, Severity.INFO), (Section.CUDA, Severity.INFO)]
    assert found[1].title == "CUDA 99.9 (of torch 2.7.1+cu999) is newer than the matrix knows: its driver requirement was not checked"
    assert found[1].evidence == (f"the matrix knows CUDA up to {MATRIX.newest_cuda()} (reviewed {MATRIX.reviewed})",)


def test_known_builds_give_no_matrix_finding():
    assert run(v.matrix_unknown_version, CASES["cu130-on-r580-healthy"][0]) == []
    assert run(v.matrix_unknown_version, machine(python="3.10.12", tf=tf("2.16.1", "12.3", "8"))) == []
    assert list(v.matrix_unknown_version(CASES["torch-newer-than-matrix"][0], None)) == []


# -- driver-too-old-for-cuda-build ---------------------------------------------------------------------------------


def test_driver_below_the_mvc_floor_pinned():
    f = one(v.driver_too_old_for_cuda_build, CASES["gke-t4-r470-cu121"][0])
    assert (f.severity, f.section) == (Severity.ERROR, Section.TORCH)
    assert f.title == "NVIDIA driver 470.82.01 is too old for torch 2.1.2+cu121 (CUDA 12.1)"
    assert f.evidence == (
        "driver 470.82.01 supports CUDA 11.4",
        "torch 2.1.2+cu121 is built with CUDA 12.1: it needs driver >= 525.60.13 (minor-version compatibility floor of CUDA 12.x)",
    )
    assert f.fix.summary == ("PyTorch cannot start CUDA with this driver: install torch 2.7.1+cu118; or upgrade the NVIDIA driver to "
                             ">= 525.60.13 to keep torch 2.1.2+cu121 (>= 530.30.02 for CUDA 12.1's full feature set)")
    assert f.fix.url == TORCH_URL


def test_no_full_feature_note_when_the_floor_is_the_full_driver():
    f = one(v.driver_too_old_for_cuda_build, CASES["cu130-on-r575"][0])
    assert f.fix.summary.endswith("; or upgrade the NVIDIA driver to >= 580.65.06 to keep torch 2.11.0+cu130")


def test_pre_11_cuda_has_no_minor_version_compatibility():
    facts = machine(driver="418.39", driver_cuda="10.1", gpus=(("Tesla V100-SXM2-16GB", "7.0"),), torch=torch("1.8.1+cu102", "10.2"), python="3.8.10")
    f = one(v.driver_too_old_for_cuda_build, facts)
    assert f.evidence[1] == "torch 1.8.1+cu102 is built with CUDA 10.2: it needs driver >= 440.33 (CUDA 10.2 has no minor-version compatibility)"
    assert f.fix.commands == ("pip install torch==1.8.1 torchvision==0.9.1 --index-url https://download.pytorch.org/whl/cu101",)


def test_a_driver_known_only_by_its_cuda_version_is_judged():
    facts = machine(driver_cuda="11.4", gpus=(("Tesla T4", "7.5"),), torch=torch("2.1.2+cu121", "12.1"), python="3.10.12")
    f = one(v.driver_too_old_for_cuda_build, facts)
    assert f.title == "NVIDIA driver with CUDA 11.4 is too old for torch 2.1.2+cu121 (CUDA 12.1)"
    assert f.evidence[0] == "driver with CUDA 11.4 supports CUDA 11.4"


def test_tensorflow_builds_are_judged_too():
    facts = machine(driver="470.82.01", driver_cuda="11.4", gpus=(("Tesla T4", "7.5"),), python="3.10.12", tf=tf("2.16.1", "12.3", "8"))
    f = one(v.driver_too_old_for_cuda_build, facts)
    assert f.section is Section.TENSORFLOW
    assert f.title == "NVIDIA driver 470.82.01 is too old for tensorflow 2.16.1 (CUDA 12.3)"
    assert f.fix.url == TF_URL


def test_ptx_newer_than_the_driver_pinned_once_per_build():
    facts = machine(driver="550.54.15", driver_cuda="12.4", gpus=(("NVIDIA GeForce RTX 4090", "8.9"), ("NVIDIA L4", "8.9"), ("NVIDIA L4", "8.9")),
                    torch=torch("2.7.1+cu128", "12.8", ["sm_70", "sm_75", "compute_75"]))
    f = one(v.driver_too_old_for_cuda_build, facts)
    assert (f.severity, f.section) == (Severity.ERROR, Section.TORCH)
    assert f.title == "GPU 0 (NVIDIA GeForce RTX 4090) needs PTX JIT for torch 2.7.1+cu128, and driver 550.54.15 is too old to compile CUDA 12.8 PTX"
    assert f.evidence == (
        "driver 550.54.15 supports CUDA 12.4",
        "GPU 0 (NVIDIA GeForce RTX 4090) has compute capability 8.9; torch 2.7.1+cu128 has no SASS for it, only PTX (compute_75)",
        "minor-version compatibility does not cover JIT of PTX made by a newer CUDA than the driver's",
    )
    assert f.fix.summary == "Install a build with native code for this GPU: install torch 2.14.1+cu126; or upgrade the driver to >= 570.26"
    assert f.fix.url == TORCH_URL


def test_ptx_rule_skips_gpus_with_sass_and_drivers_as_new_as_the_build():
    arch = ["sm_70", "sm_75", "sm_89", "compute_75"]
    sass = machine(driver="550.54.15", driver_cuda="12.4", gpus=(("NVIDIA L4", "8.9"),), torch=torch("2.7.1+cu128", "12.8", arch))
    assert run(v.driver_too_old_for_cuda_build, sass) == []
    same = machine(driver="570.124.04", driver_cuda="12.8", gpus=(("NVIDIA L4", "8.9"),), torch=torch("2.7.1+cu128", "12.8", arch[:2] + arch[3:]))
    assert run(v.driver_too_old_for_cuda_build, same) == []


def test_no_driver_or_no_cuda_build_no_driver_finding():
    assert run(v.driver_too_old_for_cuda_build, machine(gpus=(("Tesla T4", "7.5"),), torch=torch("2.1.2+cu121", "12.1"))) == []
    assert run(v.driver_too_old_for_cuda_build, machine(driver="470.82.01", driver_cuda="11.4", torch=torch("2.1.2+cpu", None))) == []


# -- python-version-no-wheel ----------------------------------------------------------------------------------------


def test_python_without_a_wheel_of_the_installed_series_pinned():
    f = one(v.python_version_no_wheel, machine(python="3.12.1", packages={"torch": "1.13.1"}))
    assert (f.id, f.severity, f.section) == ("python-version-no-wheel", Severity.ERROR, Section.TORCH)
    assert f.title == "Python 3.12 has no wheel of torch 1.13"
    assert f.evidence == ("this Python is 3.12.1", "torch 1.13 has wheels for Python 3.7–3.11")
    assert f.fix.summary == ("Use a torch release with wheels for Python 3.12: install torch 2.15.0+cpu; "
                             "or use Python 3.7–3.11 for torch 1.13")


def test_published_wheels_name_the_exact_release_and_the_documented_table():
    f = one(v.python_version_no_wheel, machine(python="3.4.10", packages={"tensorflow": "1.15.0"}))
    assert f.title == "Python 3.4 has no wheel of tensorflow 1.15.0"
    assert f.evidence == (
        "this Python is 3.4.10",
        "tensorflow 1.15.0 has wheels for Python 2.7, 3.5–3.7",
        "TensorFlow's tested-build table lists Python 2.7, 3.3–3.7, but no 3.4 wheel of it was published",
    )
    assert f.fix.commands == ("pip install tensorflow==1.14.0",)
    # a Python the table never listed: no table line
    assert len(one(v.python_version_no_wheel, machine(python="3.8.10", packages={"tensorflow": "1.15.0"})).evidence) == 2


def test_python_with_a_wheel_or_unknown_is_quiet():
    assert run(v.python_version_no_wheel, machine(python="3.11.9", packages={"torch": "1.13.1"})) == []  # the wheels have cp311
    assert run(v.python_version_no_wheel, machine(python="", packages={"torch": "1.13.1"})) == []
    assert run(v.python_version_no_wheel, machine(python="3.6.9", packages={"torch": "0.4.1"})) == []  # unknown release


# -- cuda-toolkit-major-mismatch-for-extensions ----------------------------------------------------------------------


def test_toolkit_of_another_major_pinned():
    f = one(v.cuda_toolkit_major_mismatch_for_extensions, CASES["nvcc118-torch-cu126"][0])
    assert (f.id, f.severity, f.section) == ("cuda-toolkit-major-mismatch-for-extensions", Severity.WARNING, Section.CUDA)
    assert f.title == "The local CUDA toolkit is 11.8 but torch 2.7.1+cu126 is built with CUDA 12.6: building CUDA extensions will fail"
    assert f.evidence == (
        "nvcc on PATH: CUDA 11.8 (/usr/local/cuda-11.8)",
        "torch 2.7.1+cu126 is built with CUDA 12.6; torch.utils.cpp_extension refuses a toolkit of another major",
        "running the framework itself needs no local toolkit: this matters only for compiling extensions",
    )
    assert f.fix.summary == "Point the extension build at the installed CUDA 12.6 toolkit"
    assert f.fix.url == "https://pytorch.org/docs/stable/cpp_extension.html"


def test_cuda_home_decides_over_path_even_with_a_trailing_slash():
    toolkits = [("12.6", "/usr/local/cuda-12.6", True), ("11.8", "/usr/local/cuda-11.8", False)]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        f = one(v.cuda_toolkit_major_mismatch_for_extensions, machine(torch=torch("2.7.1+cu126", "12.6"), env={var: "/usr/local/cuda-11.8/"}, toolkits=toolkits))
        assert f.evidence[0] == f"{var}=/usr/local/cuda-11.8/: CUDA 11.8 (/usr/local/cuda-11.8)"  # the variable it came from
        assert f.fix.commands == ("export CUDA_HOME=/usr/local/cuda-12.6", "export PATH=/usr/local/cuda-12.6/bin:$PATH")
    # CUDA_HOME naming the toolkit of the right major: nothing to say, whatever PATH has
    assert run(v.cuda_toolkit_major_mismatch_for_extensions, machine(torch=torch("2.7.1+cu126", "12.6"), env={"CUDA_HOME": "/usr/local/cuda-12.6"},
                                                                     toolkits=[("11.8", "/usr/local/cuda-11.8", True), ("12.6", "/usr/local/cuda-12.6", False)])) == []


def test_without_a_toolkit_of_the_right_major_the_fix_installs_one():
    f = one(v.cuda_toolkit_major_mismatch_for_extensions, machine(torch=torch("2.7.1+cu126", "12.6"), toolkits=[("11.8", "/usr/local/cuda-11.8", True)]))
    assert f.fix.summary == "Install a CUDA 12.6 toolkit (any 12.x works for extensions) and set CUDA_HOME to it before building extensions"
    assert f.fix.commands == ("export CUDA_HOME=/usr/local/cuda-12.6",)
    assert f.fix.url == "https://developer.nvidia.com/cuda-toolkit-archive"


def test_which_toolkit_is_used_when_none_is_on_path():
    two = [("11.8", "/usr/local/cuda-11.8", False), ("12.6", "/usr/local/cuda-12.6", False)]
    assert run(v.cuda_toolkit_major_mismatch_for_extensions, machine(torch=torch("2.7.1+cu126", "12.6"), toolkits=two)) == []  # cannot tell
    (f,) = run(v.cuda_toolkit_major_mismatch_for_extensions, machine(torch=torch("2.7.1+cu126", "12.6"), toolkits=two[:1]))  # the only one
    # where it really is: not "nvcc on PATH" (issue 11: the evidence named PATH for a toolkit found elsewhere)
    assert f.evidence[0] == "the only CUDA toolkit found (not on PATH, no CUDA_HOME): CUDA 11.8 (/usr/local/cuda-11.8)"
    unknown = machine(torch=torch("2.7.1+cu126", "12.6"), toolkits=[("11.8", "/usr/local/cuda-11.8", None)])
    assert one(v.cuda_toolkit_major_mismatch_for_extensions, unknown).evidence[0].startswith(
        "the only CUDA toolkit found (whether nvcc is on PATH is unknown): ")


def test_no_extension_warning_for_rocm_cpu_or_no_toolkit():
    toolkits = [("11.8", "/usr/local/cuda-11.8", True)]
    assert run(v.cuda_toolkit_major_mismatch_for_extensions, machine(torch=dict(torch("2.7.1+rocm6.3", "12.6"), hip="6.3"), toolkits=toolkits)) == []
    assert run(v.cuda_toolkit_major_mismatch_for_extensions, machine(torch=torch("2.7.1+cpu", None), toolkits=toolkits)) == []
    assert run(v.cuda_toolkit_major_mismatch_for_extensions, machine(torch=torch("2.7.1+cu126", "12.6"), toolkits=[])) == []


# -- cuda-toolkit-newer-than-driver --------------------------------------------------------------------------------


def test_toolkit_newer_than_the_driver_is_a_warning_pinned():
    f = one(v.cuda_toolkit_newer_than_driver, machine(driver="470.82.01", driver_cuda="11.4", toolkits=[("12.4", "/usr/local/cuda-12.4", True)]))
    assert (f.id, f.severity, f.section) == ("cuda-toolkit-newer-than-driver", Severity.WARNING, Section.CUDA)
    assert f.title == "The CUDA 12.4 toolkit is newer than driver 470.82.01 supports: what nvcc builds will not run"
    assert f.evidence == (
        "nvcc: CUDA 12.4 (/usr/local/cuda-12.4)",
        "driver 470.82.01 supports CUDA 11.4; CUDA 12.4 needs driver >= 525.60.13",
        "pip wheels of PyTorch and TensorFlow bring their own CUDA; this matters for extensions, nvcc builds and JIT",
    )
    assert f.fix.summary == "Upgrade the NVIDIA driver to >= 525.60.13, or use a CUDA toolkit no newer than CUDA 11.4"
    assert f.fix.commands == ("nvidia-smi   # 'CUDA Version' is the newest CUDA the driver runs",)
    assert f.fix.url == DRIVER_URL


def test_toolkit_newer_than_the_driver_with_the_log_is_an_error():
    text = "CUDA driver version is insufficient for CUDA runtime version"
    facts = logged(machine(driver_cuda="11.4", toolkits=[("12.4", None, True)]), Symptom("driver-insufficient", text), Symptom("driver-insufficient", text + " (2)"))
    f = one(v.cuda_toolkit_newer_than_driver, facts)
    assert f.severity is Severity.ERROR
    assert f.title == "The CUDA 12.4 toolkit is newer than the driver (CUDA 11.4) supports: what nvcc builds will not run"
    assert f.evidence[0] == "nvcc: CUDA 12.4"
    assert f.evidence[2] == f"log: {text}" and len(f.evidence) == 4  # one log line is enough


def test_the_toolkit_on_path_is_the_one_judged():
    older_on_path = [("12.4", "/usr/local/cuda-12.4", False), ("11.4", "/usr/local/cuda-11.4", True)]
    assert run(v.cuda_toolkit_newer_than_driver, machine(driver="470.82.01", driver_cuda="11.4", toolkits=older_on_path)) == []
    assert run(v.cuda_toolkit_newer_than_driver, machine(driver="470.82.01", driver_cuda="11.4", toolkits=[("11.4", "/usr/local/cuda-11.4", False)])) == []
    assert run(v.cuda_toolkit_newer_than_driver, machine(toolkits=[("12.4", "/usr/local/cuda-12.4", True)])) == []  # no driver
    assert len(run(v.cuda_toolkit_newer_than_driver, machine(driver="470.82.01", driver_cuda="11.4", toolkits=older_on_path[:1]))) == 1


# -- numpy2-abi-mismatch -------------------------------------------------------------------------------------------


def test_numpy2_with_a_numpy1_torch_pinned():
    f = one(v.numpy2_abi_mismatch, machine(python="3.10.12", packages={"numpy": "2.0.1", "torch": "2.1.2"}))
    assert (f.id, f.severity, f.section) == ("numpy2-abi-mismatch", Severity.ERROR, Section.TORCH)
    assert f.title == "NumPy 2 is installed with a package compiled against NumPy 1.x: it fails to import or to convert arrays"
    assert f.evidence == ("numpy 2.0.1 is installed", "torch 2.1.2 is built against NumPy 1.x (NumPy 2 builds start at torch 2.3.0)")
    assert f.fix.commands == ("pip install 'numpy<2'", "pip install 'torch>=2.3.0'")
    assert f.fix.url == "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"


def test_numpy2_edges():
    assert run(v.numpy2_abi_mismatch, machine(python="3.10.12", packages={"numpy": "2.0.1", "torch": "2.3.0"})) == []  # the first NumPy 2 build
    assert run(v.numpy2_abi_mismatch, machine(python="3.10.12", packages={"numpy": "1.26.4", "torch": "2.1.2"})) == []
    assert run(v.numpy2_abi_mismatch, machine(python="3.10.12", packages={"torch": "2.1.2"})) == []
    f = one(v.numpy2_abi_mismatch, machine(python="3.10.12", packages={"numpy": "2.0.1", "tensorflow": "2.17.1", "torch": "2.3.0"}))
    assert f.section is Section.TENSORFLOW
    assert f.fix.commands == ("pip install 'numpy<2'", "pip install 'tensorflow>=2.18.0'")


def test_numpy2_from_the_log_alone():
    lines = [f"A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.{i}" for i in range(3)]
    f = one(v.numpy2_abi_mismatch, logged(machine(python="3.10.12"), *(Symptom("numpy-abi", t) for t in lines), Symptom("other", "x")))
    assert f.section is Section.ENVIRONMENT
    assert f.evidence == (f"log: {lines[0]}", f"log: {lines[1]}")  # two log lines at most, no version line when unknown
    assert f.fix.commands == ("pip install 'numpy<2'",)


# -- python-version-no-wheel from a pip log ------------------------------------------------------------------------


def _no_match(python: str, text: str, subject: str):
    return logged(machine(python=python), Symptom("no-matching-distribution", text, subject=subject))


def test_no_matching_distribution_for_a_release_pinned():
    text = "ERROR: No matching distribution found for tensorflow==2.16.1"
    f = one(pm.python_version_no_wheel_from_message, _no_match("3.13.1", text, "tensorflow2.16.1"))
    assert (f.id, f.severity, f.section) == ("python-version-no-wheel", Severity.ERROR, Section.TENSORFLOW)
    assert f.title == "Python 3.13 has no wheel of tensorflow 2.16: pip finds nothing to install"
    assert f.evidence == (f"log: {text}", "this Python is 3.13.1", "tensorflow 2.16 has wheels for Python 3.9–3.12")
    assert f.fix.summary == "Use a Python that tensorflow 2.16 has wheels for, or a release built for Python 3.13: install tensorflow 2.21.0 (cpu)"
    assert f.fix.commands == ("pip install tensorflow==2.21.0",)


def test_no_matching_distribution_without_a_version_uses_every_release():
    f = one(pm.python_version_no_wheel_from_message, _no_match("3.16.0", "ERROR: No matching distribution found for torch", "torch"))
    assert f.section is Section.TORCH
    assert f.title == "Python 3.16 has no wheel of torch: pip finds nothing to install"
    pythons = {p for r in MATRIX.torch for p in r.python}
    assert f.evidence[2] == f"torch has wheels for Python {min(pythons, key=lambda p: tuple(map(int, p.split('.'))))}–3.15"
    assert run(pm.python_version_no_wheel_from_message, _no_match("3.12.1", "ERROR: No matching distribution found for torch", "torch")) == []


def test_no_matching_distribution_of_tensorflow_gpu_and_of_other_packages():
    f = one(pm.python_version_no_wheel_from_message, _no_match("3.9.0", "ERROR: No matching distribution found for tensorflow-gpu==1.15", "tensorflow-gpu1.15"))
    assert f.title == "Python 3.9 has no wheel of tensorflow 1.15: pip finds nothing to install"
    assert run(pm.python_version_no_wheel_from_message, _no_match("3.13.1", "ERROR: No matching distribution found for numpy==1.21", "numpy1.21")) == []
    assert run(pm.python_version_no_wheel_from_message, _no_match("3.11.9", "ERROR: No matching distribution found for tensorflow==2.16.1", "tensorflow2.16.1")) == []


def _offered(python: str, wanted: str, offered: str):
    text = f"ERROR: Could not find a version that satisfies the requirement {wanted} (from versions: {offered})"
    return logged(machine(python=python), Symptom("pip-offered-versions", text, subject=f"{wanted}|{offered}")), text


def test_pip_offered_versions_without_the_release_pinned():
    facts, text = _offered("", "torch==1.13.1", "2.0.0, 2.0.1")
    f = one(pm.python_version_no_wheel_from_message, facts)
    assert (f.severity, f.section) == (Severity.ERROR, Section.TORCH)
    assert f.title == "torch 1.13.1 exists, but not for this Python or platform: pip offers only other versions"
    assert f.evidence == (f"log: {text}", "torch 1.13 has wheels for Python 3.7–3.11",
                          "pip's 'from versions' list holds only releases with a wheel for this interpreter")
    assert f.fix.summary == "Use a Python 3.7–3.11 environment for torch 1.13.1, or install one of the versions pip offers"
    assert f.fix.commands == ("python3.11 -m venv .venv && . .venv/bin/activate && pip install 'torch==1.13.1'",)
    assert f.fix.url == TORCH_URL
    facts, _ = _offered("", "tensorflow==2.16.1", "2.20.0")
    f = one(pm.python_version_no_wheel_from_message, facts)
    assert f.section is Section.TENSORFLOW and f.fix.url == TF_URL
    assert f.fix.commands == ("python3.12 -m venv .venv && . .venv/bin/activate && pip install 'tensorflow==2.16.1'",)


def test_pip_offered_versions_edges():
    assert run(pm.python_version_no_wheel_from_message, _offered("", "torch==2.0.1", "2.0.0, 2.0.1")[0]) == []  # offered after all
    assert run(pm.python_version_no_wheel_from_message, _offered("", "torch==0.4.1", "2.0.0")[0]) == []  # not a release the matrix knows
    assert len(run(pm.python_version_no_wheel_from_message, _offered("3.8.10", "torch==1.13.1", "2.0.0")[0])) == 1  # pip's list wins
    assert list(pm.python_version_no_wheel_from_message(_offered("", "torch==1.13.1", "2.0.0")[0], None)) == []


# -- more edges (second mutation pass) --------------------------------------------------------------------------------


def test_the_general_findings_carry_the_matrix_id():
    found = run(v.matrix_unknown_version, machine(torch=torch("2.7.1+cu999", "99.9")))
    assert [f.id for f in found] == ["matrix-unknown-version", "matrix-unknown-version"]


def test_every_build_is_judged_against_the_driver():
    r470 = {"driver": "470.82.01", "driver_cuda": "11.4", "gpus": (("Tesla T4", "7.5"),), "python": "3.10.12"}
    both = run(v.driver_too_old_for_cuda_build, machine(**r470, torch=torch("2.1.2+cu121", "12.1"), tf=tf("2.16.1", "12.3", "8")))
    assert [f.section for f in both] == [Section.TORCH, Section.TENSORFLOW]
    after_cpu = run(v.driver_too_old_for_cuda_build, machine(**r470, torch=torch("2.1.2+cpu", None), tf=tf("2.16.1", "12.3", "8")))
    assert [f.section for f in after_cpu] == [Section.TENSORFLOW]


def test_cuda_11_builds_have_a_minor_version_floor():
    f = one(v.driver_too_old_for_cuda_build, machine(driver="418.39", driver_cuda="10.1", gpus=(("Tesla T4", "7.5"),), python="3.8.10",
                                                     torch=torch("1.12.1+cu113", "11.3")))
    assert f.evidence[1].endswith("(minor-version compatibility floor of CUDA 11.x)")


def test_ptx_rule_reads_the_gpu_name_and_lists_every_ptx_target():
    facts = machine(driver="550.54.15", driver_cuda="12.4", gpus=(("NVIDIA L4", None),), torch=torch("2.7.1+cu128", "12.8", ["sm_70", "compute_70", "compute_75"]))
    f = one(v.driver_too_old_for_cuda_build, facts)
    assert f.evidence[1] == "GPU 0 (NVIDIA L4) has compute capability 8.9; torch 2.7.1+cu128 has no SASS for it, only PTX (compute_70 compute_75)"
    assert f.fix.url == TORCH_URL


def test_every_build_is_judged_against_the_python():
    unknown_then_tf = run(v.python_version_no_wheel, machine(python="3.13.1", packages={"torch": "0.4.1", "tensorflow": "2.16.1"}))
    assert [f.section for f in unknown_then_tf] == [Section.TENSORFLOW]
    fine_then_tf = run(v.python_version_no_wheel, machine(python="3.13.1", packages={"torch": "2.5.1", "tensorflow": "2.16.1"}))
    assert [f.section for f in fine_then_tf] == [Section.TENSORFLOW]


def test_toolkit_rule_without_host_facts_and_with_a_cuda_home_that_names_no_toolkit():
    facts = machine(torch=torch("2.7.1+cu126", "12.6"), toolkits=[("11.8", "/usr/local/cuda-11.8", True)])
    assert len(run(v.cuda_toolkit_major_mismatch_for_extensions, dataclasses.replace(facts, host=None))) == 1
    # torch.utils.cpp_extension._find_cuda_home takes CUDA_HOME and never looks at PATH then: a CUDA_HOME where no
    # toolkit was seen is a toolkit of unknown version, so nothing is said about the one on PATH.
    elsewhere = machine(torch=torch("2.7.1+cu126", "12.6"), env={"CUDA_HOME": "/opt/cuda"}, toolkits=[("11.8", "/usr/local/cuda-11.8", True)])
    assert run(v.cuda_toolkit_major_mismatch_for_extensions, elsewhere) == []


def test_toolkit_paths_compare_without_trailing_separators():
    facts = machine(torch=torch("2.7.1+cu126", "12.6"), env={"CUDA_HOME": "/usr/local/cuda-11.8"},
                    toolkits=[("12.6", "/usr/local/cuda-12.6", True), ("11.8", "/usr/local/cuda-11.8/", False)])
    assert one(v.cuda_toolkit_major_mismatch_for_extensions, facts).evidence[0] == "CUDA_HOME=/usr/local/cuda-11.8: CUDA 11.8 (/usr/local/cuda-11.8/)"
    windows = machine(os="windows", torch=torch("2.7.1+cu126", "12.6"), env={"CUDA_PATH": "C:\\\\CUDA\\\\v11.8\\\\"},
                      toolkits=[("12.6", "C:\\\\CUDA\\\\v12.6", True), ("11.8", "C:\\\\CUDA\\\\v11.8", False)])
    assert one(v.cuda_toolkit_major_mismatch_for_extensions, windows).evidence[0].endswith(": CUDA 11.8 (C:\\\\CUDA\\\\v11.8)")


def test_a_toolkit_without_a_path_says_so():
    f = one(v.cuda_toolkit_major_mismatch_for_extensions, machine(torch=torch("2.7.1+cu126", "12.6"), toolkits=[("11.8", None, True)]))
    assert f.evidence[0] == "nvcc on PATH: CUDA 11.8 (path unknown)"


def test_numpy2_fix_summary():
    f = one(v.numpy2_abi_mismatch, machine(python="3.10.12", packages={"numpy": "2.0.1", "torch": "2.1.2"}))
    assert f.fix.summary == "Install a NumPy 1.x, or upgrade the package built against NumPy 1.x"


def test_no_matching_distribution_of_a_torch_release_and_of_several_lines():
    """Regression: the reader's subject for "torch==1.13.1" is "torch1.13.1"; the rule compared the whole subject
    with "torch", so a torch release was never recognised (TensorFlow was, by its prefix)."""
    lines = (Symptom("no-matching-distribution", "ERROR: No matching distribution found for numpy==1.19", subject="numpy1.19"),
             Symptom("no-matching-distribution", "ERROR: No matching distribution found for torch==1.13.1", subject="torch1.13.1"),
             Symptom("no-matching-distribution", "ERROR: No matching distribution found for tensorflow==2.16.1", subject="tensorflow2.16.1"))
    found = run(pm.python_version_no_wheel_from_message, logged(machine(python="3.13.1"), *lines))
    assert [f.title for f in found] == ["Python 3.13 has no wheel of torch 1.13: pip finds nothing to install",
                                        "Python 3.13 has no wheel of tensorflow 2.16: pip finds nothing to install"]
    assert found[0].evidence[2] == "torch 1.13 has wheels for Python 3.7–3.11"


def test_pip_offered_versions_names_the_framework_and_reads_every_line():
    facts, _ = _offered("", "tensorflow==2.16.1", "2.20.0")
    first = facts.symptoms[0]
    other, _ = _offered("", "torch==2.0.1", "2.0.0, 2.0.1")
    found = run(pm.python_version_no_wheel_from_message, logged(facts, other.symptoms[0], first))
    assert len(found) == 1 and found[0].evidence[1] == "tensorflow 2.16 has wheels for Python 3.9–3.12"


def test_a_toolkit_of_the_drivers_major_but_a_newer_minor_is_pinned_as_the_ptx_warning():
    # googlecolab/colabtools#5667: nvcc 12.5 beside driver 550.54.15 (CUDA 12.4), PTX 8.5 the driver cannot JIT
    from gpudoctor.model import CudaToolkit, Driver, Facts, Finding, Fix, Host

    facts = Facts(driver=Driver(version="550.54.15"), cuda_toolkits=(CudaToolkit(version="12.5"),))
    assert run(v.cuda_toolkit_newer_than_driver, facts) == [Finding(
        "cuda-toolkit-newer-than-driver", Severity.WARNING, Section.CUDA,
        "The CUDA 12.5 toolkit is newer than driver 550.54.15 (CUDA 12.4): its programs run, but PTX it writes cannot be JIT-compiled by this driver",
        ("nvcc: CUDA 12.5",
         "driver 550.54.15 supports CUDA 12.4; minor-version compatibility runs CUDA 12.5 programs with a limited feature set: "
         "PTX from a newer compiler fails ('the provided PTX was compiled with an unsupported toolchain')",
         "the driver of CUDA 12.5 itself is 555.42.02"),
        Fix("Upgrade the driver to >= 555.42.02, or build for the GPU's own architecture (-arch=sm_XX, machine code) rather than PTX only",
            ("nvidia-smi   # 'CUDA Version': the newest CUDA whose PTX this driver compiles", "nvcc --version"),
            "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"))]
    # the driver's CUDA alone, on Windows: Windows' own driver floor for CUDA 12.5
    windows = Facts(driver=Driver(cuda_version="12.4"), cuda_toolkits=(CudaToolkit(version="12.5"),), host=Host(os="windows"))
    (f,) = run(v.cuda_toolkit_newer_than_driver, windows)
    assert f.title.startswith("The CUDA 12.5 toolkit is newer than the driver (CUDA 12.4): ") and f.evidence[2].endswith("is 555.85")
    # the toolkit given by its on-PATH copy, the other one ignored
    two = Facts(driver=Driver(version="550.54.15"), cuda_toolkits=(CudaToolkit(version="11.8"), CudaToolkit(version="12.5", on_path=True)))
    assert run(v.cuda_toolkit_newer_than_driver, two)[0].evidence[0] == "nvcc: CUDA 12.5"
    same = Facts(driver=Driver(version="550.54.15"), cuda_toolkits=(CudaToolkit(version="12.4"),))
    assert run(v.cuda_toolkit_newer_than_driver, same) == []


def test_a_toolkit_of_a_newer_major_than_the_driver_is_pinned():
    from gpudoctor.model import CudaToolkit, Driver, Facts, Finding, Fix, Host

    facts = Facts(driver=Driver(version="515.65.01", cuda_version="11.7"), cuda_toolkits=(CudaToolkit(version="13.0", path="/usr/local/cuda-13.0"),))
    assert run(v.cuda_toolkit_newer_than_driver, facts) == [Finding(
        "cuda-toolkit-newer-than-driver", Severity.WARNING, Section.CUDA,
        "The CUDA 13.0 toolkit is newer than driver 515.65.01 supports: what nvcc builds will not run",
        ("nvcc: CUDA 13.0 (/usr/local/cuda-13.0)", "driver 515.65.01 supports CUDA 11.7; CUDA 13.0 needs driver >= 580.65.06",
         "pip wheels of PyTorch and TensorFlow bring their own CUDA; this matters for extensions, nvcc builds and JIT"),
        Fix("Upgrade the NVIDIA driver to >= 580.65.06, or use a CUDA toolkit no newer than CUDA 11.7",
            ("nvidia-smi   # 'CUDA Version' is the newest CUDA the driver runs",),
            "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#cuda-driver"))]
    # under WSL 2 the Windows driver's floors apply
    wsl = Facts(driver=Driver(cuda_version="12.4"), cuda_toolkits=(CudaToolkit(version="12.5"),), host=Host(os="linux", wsl=2))
    assert run(v.cuda_toolkit_newer_than_driver, wsl)[0].evidence[2] == "the driver of CUDA 12.5 itself is 555.85"


def test_a_driver_older_than_every_cuda_release_is_said_so_not_cuda_unknown():
    from gpudoctor.model import CudaToolkit, Driver, Facts

    (f,) = run(v.cuda_toolkit_newer_than_driver, Facts(driver=Driver(version="340.108"), cuda_toolkits=(CudaToolkit(version="12.0"),)))
    assert f.evidence[1] == "driver 340.108 is older than any CUDA release the matrix lists; CUDA 12.0 needs driver >= 525.60.13"
    assert f.fix.summary == "Upgrade the NVIDIA driver to >= 525.60.13"
