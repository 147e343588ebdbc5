"""The checks over partial facts: implied GPUs, the build kind, rules from log lines, the primary cause and the
section status. Each rule with the real situation that triggers it and the nearest one that must not."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gpudoctor.checks import run_checks
from gpudoctor.checks.causes import link, primary
from gpudoctor.checks.coverage import section_status
from gpudoctor.cli import main
from gpudoctor.evidence import read_evidence, read_many
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Facts, Finding, Section, Severity, Status
from gpudoctor.render.text import render_text, summary_line
from gpudoctor.snapshot import facts_from_dict

MATRIX = load_matrix()


def judge(text: str, *more: str):
    facts = read_many([(text, "paste"), *((m, f"more{i}") for i, m in enumerate(more))])
    return run_checks(facts, MATRIX, "paste")


def found(report) -> dict[str, str]:
    return {f.id: f.severity.label for f in report.findings}


# -- implied facts -------------------------------------------------------------------------------------------------


def test_a_driver_version_implies_a_gpu_so_a_cpu_only_torch_is_an_error():
    report = judge("Nvidia driver version: 535.54.03\nPyTorch version: 2.1.0+cpu\nIs CUDA available: False\n")
    assert found(report)["torch-cpu-only-build"] == "error"
    finding = next(f for f in report.findings if f.id == "torch-cpu-only-build")
    assert any("so an NVIDIA GPU is present" in line for line in finding.evidence)  # says what it assumed


def test_a_cpu_only_torch_with_the_gpu_unknown_is_a_warning_not_an_error():
    assert found(judge("torch==2.1.0+cpu\n"))["torch-cpu-only-build"] == "warning"


def test_a_missing_build_key_never_means_cpu_only():
    facts = facts_from_dict({"driver": {"version": "535.54.03"}, "frameworks": {"torch": {"version": "2.1.0"}}})
    report = run_checks(facts, MATRIX)
    assert "torch-cpu-only-build" not in found(report)
    torch_section = next(r for r in report.sections if r.section is Section.TORCH)
    assert torch_section.status is Status.NOT_JUDGED and "CUDA build" in torch_section.reason


def test_a_driver_too_old_for_the_build_needs_no_gpu_list():
    report = judge("| NVIDIA-SMI 450.57       Driver Version: 450.57       CUDA Version: 11.0     |\ntorch==2.4.1+cu124\n")
    assert found(report)["driver-too-old-for-cuda-build"] == "error"


def test_the_torch_driver_message_alone_is_enough():
    report = judge("RuntimeError: The NVIDIA driver on your system is too old (found version 10010).")
    assert found(report)["driver-too-old-for-cuda-build"] == "error"
    assert report.facts.driver.cuda_version == "10.1"


# -- rules from log lines ------------------------------------------------------------------------------------------


def test_tf_library_warnings_without_a_gpu_are_no_alarm():
    line = "W dso_loader.cc:59] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file"
    assert found(judge(line))["tf-missing-gpu-libs"] == "warning"  # the GPU is unknown
    with_gpu = judge(line, "| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03   CUDA Version: 12.2 |")
    assert found(with_gpu)["tf-missing-gpu-libs"] == "error"
    no_gpu = run_checks(facts_from_dict({**json.loads('{"gpus": [], "pci_devices": []}'),
                                         "symptoms": [s.__dict__ for s in read_evidence(line).symptoms]}), MATRIX)
    assert "tf-missing-gpu-libs" not in found(no_gpu)


def test_tensorrt_libraries_are_not_cuda_libraries():
    line = "W dso_loader.cc:64] Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file"
    assert "tf-missing-gpu-libs" not in found(judge(line))


def test_numpy_2_with_a_torch_built_against_numpy_1():
    assert found(judge("torch==2.2.2+cu121\nnumpy==2.0.1\n"))["numpy2-abi-mismatch"] == "error"
    assert "numpy2-abi-mismatch" not in found(judge("torch==2.3.0+cu121\nnumpy==2.0.1\n"))
    assert "numpy2-abi-mismatch" not in found(judge("torch==2.2.2+cu121\nnumpy==1.26.4\n"))
    assert found(judge("tensorflow==2.17.0\nnumpy==2.1.0\n"))["numpy2-abi-mismatch"] == "error"
    assert "numpy2-abi-mismatch" not in found(judge("tensorflow==2.18.0\nnumpy==2.1.0\n"))


def test_cuda_toolkit_newer_than_the_driver():
    smi = "| NVIDIA-SMI 515.65.01    Driver Version: 515.65.01    CUDA Version: 11.7     |"
    nvcc = "Cuda compilation tools, release 13.0, V13.0.48"
    assert found(judge(smi, nvcc))["cuda-toolkit-newer-than-driver"] == "warning"
    assert found(judge(smi, nvcc, "CUDA driver version is insufficient for CUDA runtime version"))["cuda-toolkit-newer-than-driver"] == "error"
    assert "cuda-toolkit-newer-than-driver" not in found(judge(smi, "Cuda compilation tools, release 11.7, V11.7.64"))
    # minor-version compatibility: an 11.8 toolkit's programs run on a CUDA 11.7 driver, its PTX does not JIT there
    # (googlecolab/colabtools#5667: nvcc 12.5 beside driver 550.54.15, CUDA 12.4): a warning that says which
    report = judge(smi, "Cuda compilation tools, release 11.8, V11.8.89")
    (f,) = [f for f in report.findings if f.id == "cuda-toolkit-newer-than-driver"]
    assert f.severity.label == "warning" and "PTX" in f.title and "its programs run" in f.title


def test_cuda_visible_devices_with_uuids_is_valid():
    facts = facts_from_dict({"host": {"env": {"CUDA_VISIBLE_DEVICES": "GPU-8f3a"}}, "gpus": [{"index": 0, "name": "NVIDIA A100"}],
                             "driver": {"version": "550.54.15"}})
    assert "cuda-visible-devices-hides-all-gpus" not in found(run_checks(facts, MATRIX))
    facts = facts_from_dict({"host": {"env": {"CUDA_VISIBLE_DEVICES": "1"}}, "gpus": [{"index": 0, "name": "NVIDIA A100"}],
                             "driver": {"version": "550.54.15"}})
    assert found(run_checks(facts, MATRIX))["cuda-visible-devices-hides-all-gpus"] == "error"


def test_several_mig_instances_and_one_selected():
    gpus = [{"index": 0, "name": "NVIDIA A100", "mig_enabled": True}, {"index": 1, "name": "NVIDIA A100", "mig_enabled": True}]
    assert found(run_checks(facts_from_dict({"gpus": gpus, "driver": {"version": "550.54.15"}}), MATRIX))["mig-several-instances-visible"] == "warning"
    one = facts_from_dict({"gpus": gpus, "driver": {"version": "550.54.15"}, "host": {"env": {"CUDA_VISIBLE_DEVICES": "MIG-4f2b"}}})
    assert "mig-several-instances-visible" not in found(run_checks(one, MATRIX))
    single = facts_from_dict({"gpus": gpus[:1], "driver": {"version": "550.54.15"}})
    assert "mig-several-instances-visible" not in found(run_checks(single, MATRIX))


def test_nvidia_visible_devices_outside_a_container_only_on_a_probed_machine():
    probed = facts_from_dict({"host": {"os": "linux", "env": {"NVIDIA_VISIBLE_DEVICES": "0"}}})
    assert found(run_checks(probed, MATRIX))["nvidia-visible-devices-outside-container"] == "warning"
    in_container = facts_from_dict({"host": {"os": "linux", "container": "docker", "env": {"NVIDIA_VISIBLE_DEVICES": "0"}}})
    assert "nvidia-visible-devices-outside-container" not in found(run_checks(in_container, MATRIX))
    assert "nvidia-visible-devices-outside-container" not in found(judge("NVIDIA_VISIBLE_DEVICES=0"))


def test_container_without_runtime_when_no_nvml_error_was_captured():
    facts = facts_from_dict({"host": {"os": "linux", "container": "docker"}, "libraries": {"libcuda": []},
                             "pci_devices": [{"bus_id": "0000:01:00.0", "vendor_id": "10de", "driver": "nvidia"}]})
    assert found(run_checks(facts, MATRIX))["container-without-gpu-runtime"] == "error"
    facts = facts_from_dict({"host": {"os": "linux", "container": "docker"}, "libraries": {"libcuda": [{"path": "/usr/lib/libcuda.so.1"}]},
                             "driver": {"version": "550.54.15"},
                             "pci_devices": [{"bus_id": "0000:01:00.0", "vendor_id": "10de", "driver": "nvidia"}]})
    assert "container-without-gpu-runtime" not in found(run_checks(facts, MATRIX))


def test_out_of_memory_is_a_note_not_a_setup_problem():
    report = judge("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity)")
    assert found(report) == {"cuda-out-of-memory": "info"}


# -- the primary cause, section status, the summary ----------------------------------------------------------------


def test_the_cpu_only_build_explains_cuda_unavailable_and_leads():
    report = judge("Nvidia driver version: 535.54.03\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090\n"
                   "PyTorch version: 2.1.0+cpu\nCUDA used to build PyTorch: None\nIs CUDA available: False\n")
    assert report.primary == "torch-cpu-only-build"
    cause = next(f for f in report.findings if f.id == "torch-cpu-only-build")
    text = render_text(report)
    assert text.splitlines()[2].startswith("Cause: torch 2.1.0+cpu is a CPU-only build")
    assert "explains" not in text or cause.explains


def test_link_and_primary_are_pure_data():
    a = Finding("torch-cpu-only-build", Severity.ERROR, Section.TORCH, "cpu")
    b = Finding("torch-cuda-unavailable", Severity.ERROR, Section.TORCH, "unavailable")
    linked = link((b, a))
    assert linked[1].explains == ("torch-cuda-unavailable",) and linked[0].explains == ()
    assert primary(linked) == "torch-cpu-only-build"
    assert primary((Finding("x", Severity.INFO, Section.GPU, "note"),)) is None


@pytest.mark.parametrize(("facts", "section", "status"), [
    (Facts(), Section.GPU, Status.NOT_JUDGED),
    (facts_from_dict({"gpus": [], "pci_devices": []}), Section.GPU, Status.OK),
    (facts_from_dict({"frameworks": {"tensorflow": {"version": "2.15.0"}}}), Section.TENSORFLOW, Status.NOT_JUDGED),
    (facts_from_dict({"frameworks": {"tensorflow": {"version": "2.15.0", "is_cuda_build": True}}}), Section.CUDNN, Status.NOT_JUDGED),
    (facts_from_dict({"frameworks": {"torch": {"version": "2.5.1+cu124"}}}), Section.CUDNN, Status.NOT_APPLICABLE),
])
def test_section_status_without_findings(facts, section, status):
    assert section_status(section, (), facts).status is status


def test_a_finding_decides_the_section_status():
    finding = Finding("x", Severity.WARNING, Section.GPU, "w")
    assert section_status(Section.GPU, (finding,), Facts()).status is Status.WARNING
    assert section_status(Section.GPU, (finding,), Facts(), crashed=True).status is Status.CRASHED


def test_the_summary_never_says_no_problems_over_unknowns():
    report = judge("PyTorch version: 2.1.0+cu121\nCUDA used to build PyTorch: 12.1\nIs CUDA available: True\n")
    line = summary_line(report)
    assert line.startswith("Summary: no problem found in what is known") and "Not judged: GPU and driver" in line
    healthy = run_checks(facts_from_dict({"gpus": [], "pci_devices": [], "host": {"os": "linux"}, "cuda_toolkits": [],
                                          "frameworks": {}, "libraries": {"libcudnn": []}, "python_packages": {}}), MATRIX)
    assert summary_line(healthy).startswith("Summary: no problems found")


def test_unknown_values_are_never_printed_as_none():
    report = judge("PyTorch version: 2.1.0\nIs CUDA available: True\n", '{"gpus": [{"index": 0}], "pci_devices": [{"vendor_id": "10de"}]}')
    assert "None" not in render_text(report, verbose=True)


# -- the command line ----------------------------------------------------------------------------------------------


def test_check_from_standard_input_with_json_provenance():
    result = CliRunner().invoke(main, ["check", "--from", "-", "--json"], input="Nvidia driver version: 535.54.03\nPyTorch version: 2.1.0+cpu\n")
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert data["primary"] == "torch-cpu-only-build"
    assert data["facts"]["provenance"]["driver.version"] == "collect_env, line 1"
    assert {s["section"]: s["status"] for s in data["sections"]}["gpu"] == "ok"


def test_check_from_a_paste_with_markdown_gives_a_reply_to_paste(tmp_path):
    paste = tmp_path / "issue.md"
    paste.write_text("### Versions\n```\nPyTorch version: 2.7.1+cu126\nCUDA used to build PyTorch: 12.6\n"
                     "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 5090\nNvidia driver version: 570.124.04\n```\n")
    result = CliRunner().invoke(main, ["check", "--from", str(paste), "--markdown"])
    assert result.exit_code == 1
    cause = next(line for line in result.output.splitlines() if line.startswith("**Cause:"))
    assert "gpu-arch-not-in-build" in cause and result.output.index(cause) < result.output.index("### ")


def test_check_from_saves_the_merged_snapshot(tmp_path):
    out = tmp_path / "snap.json"
    result = CliRunner().invoke(main, ["check", "--from", "-", "--save", str(out)], input="Nvidia driver version: 535.54.03\n")
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text())
    assert saved["driver"]["version"] == "535.54.03" and saved["provenance"] == {"driver.version": "collect_env, line 1"}


@pytest.mark.parametrize("data", [b"", b"\x00" * 5000, bytes(range(256)) * 400])
def test_unreadable_input_is_one_line_and_exit_2(tmp_path, data):
    path = tmp_path / "in"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["check", "--from", str(path)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith("gpudoctor: error:")


def test_an_ignored_finding_never_leads_the_report():
    paste = "Nvidia driver version: 535.54.03\nPyTorch version: 2.1.0+cpu\n"
    result = CliRunner().invoke(main, ["check", "--from", "-", "--json", "--ignore", "torch-cpu-only-build"], input=paste)
    data = json.loads(result.output)
    assert data["primary"] is None and "torch-cpu-only-build" not in {f["id"] for f in data["findings"]}
    assert {s["section"]: s["status"] for s in data["sections"]}["torch"] == "ok"
    assert result.exit_code == 0


def test_a_pasted_pip_failure_on_the_tensorrt_pin_names_the_broken_combination():
    # The shape of tensorflow/tensorflow#61986: pip's own lines, on Python 3.11.
    report = judge("Python 3.11.5\n"
                   "ERROR: Could not find a version that satisfies the requirement tensorrt==8.5.3.1 (from tensorflow[and-cuda]) (from versions: 10.0.1)\n"
                   "ERROR: No matching distribution found for tensorrt==8.5.3.1\n")
    assert found(report).get("known-broken-combination") == "error"
    assert report.primary == "known-broken-combination"


def test_a_cpu_only_torch_beside_a_driver_is_fixed_with_a_cuda_build_for_that_driver():
    # The commonest thread: nvidia-smi's banner and a +cpu torch. The GPU's model is unknown, its driver is not: the
    # fix must be a CUDA build that driver runs, never another CPU build (found by mutation testing, issue 11).
    report = judge("NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2\n"
                   ">>> import torch\n>>> torch.__version__\n'2.3.1+cpu'\n")
    (finding,) = [f for f in report.findings if f.id == "torch-cpu-only-build"]
    install = finding.fix.commands[-1]
    assert "/whl/cpu" not in install and "+cpu" not in finding.fix.summary
    assert install.startswith("pip install torch==") and "--index-url https://download.pytorch.org/whl/cu12" in install


DRIVER_SHAPES = [  # (driver, does it imply an NVIDIA GPU?)
    ({"version": "535.54.03"}, True),
    ({"cuda_version": "12.2"}, True),  # a pasted banner's "CUDA Version" alone: only a running driver prints it
    ({"kernel_module": "nvidia"}, True),
    ({"kernel_module": "nouveau"}, False),
    ({}, False),
]


@pytest.mark.parametrize("driver,implied", DRIVER_SHAPES, ids=lambda v: str(v))
def test_the_checks_and_the_solver_read_a_gpu_from_the_driver_alike(driver, implied):
    # One rule (model.gpu_implied_by_driver) for both layers: `check` calling a CPU-only torch an error and
    # `env --from` offering a CUDA build must agree on whether the machine has an NVIDIA GPU.
    from gpudoctor.checks._facts import gpu_presence
    from gpudoctor.matrix.solver.solve import target_from_facts

    facts = facts_from_dict({"driver": driver})
    assert (gpu_presence(facts) is True) is implied
    assert target_from_facts(facts, MATRIX).gpu_unknown is implied


def test_a_driver_that_fails_implies_a_gpu_but_no_build_for_it():
    # The GPU is there (the check says so), yet the solver picks no CUDA build for a driver NVML cannot talk to.
    from gpudoctor.checks._facts import gpu_presence
    from gpudoctor.matrix.solver.solve import target_from_facts

    facts = facts_from_dict({"driver": {"version": "535.54.03", "nvml_error": "Driver/library version mismatch"}})
    assert gpu_presence(facts) is True
    assert target_from_facts(facts, MATRIX).gpu_unknown is False
