"""Each reader on real pasted text (tests/data/pasted, the thread corpus, the captured nvidia-smi XML logs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.evidence import read_evidence, read_many
from gpudoctor.model import Facts

from .corpus import threads

DATA = Path(__file__).resolve().parent.parent / "data"
PASTED = DATA / "pasted"
THREADS = {t.name: t for t in threads()}


def pasted(name: str) -> Facts:
    return read_evidence((PASTED / name).read_text(), name)


def thread(name: str) -> Facts:
    return read_evidence(THREADS[name].pasted, name)


def test_nvidia_smi_table_of_a_610_driver_reads_the_kmd_and_umd_banner():
    facts = pasted("nvidia-smi-610-b200.txt")
    assert facts.driver.version == "610.43.02" and facts.driver.cuda_version == "13.3"
    assert [(g.index, g.name, g.pci_bus_id, g.memory_total_mib, g.mig_enabled, g.ecc_uncorrected_errors) for g in facts.gpus] == [
        (0, "NVIDIA B200", "00000000:63:00.0", 183359, False, 0), (1, "NVIDIA B200", "00000000:68:00.0", 183359, False, 0)]
    assert facts.provenance["driver.version"] == "nvidia-smi, line 4"


def test_nvidia_smi_table_of_a_450_driver_keeps_na_cells_unknown():
    facts = pasted("nvidia-smi-450-titan-xp.txt")
    assert facts.driver.version == "450.57" and facts.driver.cuda_version == "11.0"
    (gpu,) = facts.gpus
    assert (gpu.name, gpu.memory_used_mib, gpu.memory_total_mib) == ("TITAN Xp", 7, 12196)
    assert gpu.mig_enabled is None and gpu.ecc_uncorrected_errors is None  # "N/A" is unknown, never a value


def test_nvidia_smi_query_text():
    facts = pasted("nvidia-smi-q-quadro-m1000m.txt")
    assert facts.driver.version == "375.82" and facts.driver.cuda_version is None
    (gpu,) = facts.gpus
    assert (gpu.name, gpu.uuid, gpu.pci_bus_id) == ("Quadro M1000M", "GPU-7cfc2710-0025-0d50-7ce9-5c877f079cb4", "0000:01:00.0")


@pytest.mark.parametrize("name", sorted(p.name for p in (DATA / "nvidia-smi").glob("*.xml") if "garbled" not in p.name))
def test_nvidia_smi_xml_pasted_inside_a_report(name):
    xml = (DATA / "nvidia-smi" / name).read_text()
    facts = read_evidence("Here is my nvidia-smi -q -x:\n```\n" + xml + "\n```\nthanks", name)
    assert facts.driver.version and facts.gpus and all(g.name for g in facts.gpus)


def test_collect_env_of_torch_1_5_on_windows():
    facts = pasted("collect-env-1.5-windows.txt")
    torch = facts.frameworks.torch
    assert (torch.version, torch.cuda, torch.build, torch.cuda_available) == ("1.5.0+cu101", "10.1", "cuda", True)
    assert facts.host.os == "windows" and facts.host.python == "3.7"
    assert [g.name for g in facts.gpus] == ["TITAN RTX", "TITAN RTX"]
    assert facts.driver.version == "442.92" and facts.cuda_toolkits[0].version == "10.1"
    (cudnn,) = facts.libraries.libcudnn
    assert cudnn.path.endswith("cudnn64_7.dll") and cudnn.version == "7"
    assert facts.python_packages["numpy"] == "1.19.0" and facts.python_packages["torchvision"] == "0.6.0+cu101"


def test_collect_env_could_not_collect_is_unknown_never_absent():
    facts = pasted("collect-env-1.10-could-not-collect.txt")
    assert facts.gpus is None and facts.driver is None and facts.libraries is None
    torch = facts.frameworks.torch
    assert (torch.version, torch.cuda, torch.cuda_available) == ("1.10.2", "11.3", False)
    assert facts.host.python == "3.6.13" and facts.host.kernel == "5.4.0-81-generic" and facts.host.glibc == "2.17"
    assert facts.python_packages["cudatoolkit"] == "11.3.1"


def test_collect_env_could_not_collect_for_the_build_cuda_means_no_cuda_build_and_says_so():
    facts = pasted("collect-env-1.7-cpu-windows.txt")
    assert facts.frameworks.torch.build == "cpu"
    assert "torch.version.cuda is None" in facts.provenance["frameworks.torch.build"]


def test_collect_env_rocm_build_is_never_cpu():
    text = ("PyTorch version: 2.0.1+rocm5.4.2\nIs debug build: False\nCUDA used to build PyTorch: N/A\n"
            "ROCM used to build PyTorch: 5.4.22803-474e8620\nIs CUDA available: True\n")
    torch = read_evidence(text).frameworks.torch
    assert (torch.build, torch.hip, torch.cuda) == ("rocm", "5.4.22803", None)


def test_collect_env_mig_instances_on_an_a100():
    facts = thread("env-pytorch-130181")
    assert facts.gpus[0].mig_enabled is True
    assert any(s.kind == "mig-instances" and s.subject == "2" for s in facts.symptoms)


def test_nvcc_version():
    facts = read_evidence("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.1, V12.1.105\n")
    assert (facts.cuda_toolkits[0].version, facts.cuda_toolkits[0].on_path) == ("12.1", True)


def test_conda_list_gives_the_torch_build_from_its_build_string():
    facts = thread("torch-data-315")
    assert facts.frameworks.torch.build == "cpu" and facts.python_packages["torch"] == "1.11.0"
    cuda = read_evidence("pytorch                   1.10.2          py3.9_cuda11.3_cudnn8.2.0_0    pytorch\n").frameworks.torch
    assert (cuda.build, cuda.cuda, cuda.cudnn) == ("cuda", "11.3", "8.2.0")


def test_conda_install_plan_line():
    assert read_evidence(THREADS["torch-clx-319"].pasted).frameworks.torch.build == "cpu"


def test_pip_freeze_and_pip_list():
    facts = read_evidence("torch==2.1.0+cu121\nnumpy==2.0.1\nrequests==2.31.0\n")
    assert facts.python_packages == {"torch": "2.1.0+cu121", "numpy": "2.0.1"}  # only what gpudoctor judges
    facts = read_evidence("Package    Version\n---------- -------\ntensorflow 2.15.0\nnvidia-cudnn-cu12 8.9.4.25\n")
    # a whole list (pip list's header): the CUDA wheels it does not name are recorded as absent (None)
    assert {k: v for k, v in facts.python_packages.items() if v} == {"tensorflow": "2.15.0", "nvidia-cudnn-cu12": "8.9.4.25"}
    assert facts.python_packages["nvidia-cudnn-cu11"] is None and facts.python_packages["nvidia-cuda-runtime-cu12"] is None
    assert "nvidia-cudnn-cu12" in facts.python_packages and facts.provenance["python_packages.nvidia-cudnn-cu11"].endswith(
        "(a whole package list that does not name it)")


def test_tf_build_info_printed_on_windows():
    text = "OrderedDict([('cpu_compiler', 'C:/VS/cl.exe'), ('cuda_version', '64_112'), ('cudnn_version', '64_8'), ('is_cuda_build', True), ('is_rocm_build', False)])"
    tf = read_evidence(text).frameworks.tensorflow
    assert (tf.is_cuda_build, tf.cuda, tf.cudnn) == (True, "11.2", "8")


def test_tf_device_lists():
    assert read_evidence(">>> tf.config.list_physical_devices('GPU')\n[]\n").frameworks.tensorflow.gpus_visible == 0
    one = "[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]"
    assert read_evidence(f"print(tf.config.list_physical_devices('GPU'))\n{one}\n").frameworks.tensorflow.gpus_visible == 1


def test_tf_1x_device_creation_log_gives_the_gpu_and_its_compute_capability():
    line = ("2019-03-25 10:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device "
            "(/job:localhost/replica:0/task:0/device:GPU:0 with 10470 MB memory) -> physical GPU (device: 0, name: GeForce GTX "
            "1080 Ti, pci bus id: 0000:01:00.0, compute capability: 6.1)")
    facts = read_evidence(line)
    assert (facts.gpus[0].name, facts.gpus[0].compute_capability) == ("GeForce GTX 1080 Ti", "6.1")
    assert facts.frameworks.tensorflow.gpus_visible == 1


def test_torch_one_liner_and_repl():
    facts = read_evidence('python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"\n2.1.0+cpu None False\n')
    torch = facts.frameworks.torch
    assert (torch.version, torch.build, torch.cuda_available) == ("2.1.0+cpu", "cpu", False)
    facts = read_evidence(">>> torch.cuda.is_available()\nFalse\n>>> torch.backends.cudnn.version()\n8200\n")
    assert (facts.frameworks.torch.cuda_available, facts.frameworks.torch.cudnn) == (False, "8.2.0")


@pytest.mark.parametrize(("line", "kind", "fact"), [
    ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040).", "driver-too-old", ("driver", "cuda_version", "11.4")),
    ("E tensorflow/stream_executor/cuda/cuda_dnn.cc:343] Loaded runtime CuDNN library: 7.4.1 but source was compiled with: 7.6.0.  CuDNN library major",
     "cudnn-loaded-mismatch", ("frameworks.tensorflow", "cudnn", "7.6.0")),
    ("W tensorflow/stream_executor/platform/default/dso_loader.cc:59] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file",
     "library-not-loadable", ("frameworks.tensorflow", "is_cuda_build", True)),
    ("A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.1 as it may crash.", "numpy-abi", ("python_packages", "numpy", "2.0.1")),
    ("AssertionError: Torch not compiled with CUDA enabled", "torch-not-compiled-with-cuda", ("frameworks.torch", "build", "cpu")),
])
def test_framework_messages_state_facts(line, kind, fact):
    facts = read_evidence(line)
    assert any(s.kind == kind for s in facts.symptoms)
    where, name, value = fact
    node: object = facts
    for part in where.split("."):
        node = getattr(node, part)
    assert (node.get(name) if isinstance(node, dict) else getattr(node, name)) == value


def test_the_sm_120_warning_gives_the_gpu_and_the_arch_list():
    facts = read_evidence(
        "UserWarning:\nNVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n")
    assert (facts.gpus[0].name, facts.gpus[0].compute_capability) == ("NVIDIA GeForce RTX 5090", "12.0")
    assert facts.frameworks.torch.arch_list == ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")


def test_a_wrapped_message_is_read_across_the_line_break():
    facts = thread("torch-fasterqwen3tts-113")
    assert facts.driver.cuda_version == "12.4"


def test_lspci_gives_the_bound_kernel_driver():
    facts = thread("env-negativo17-73")
    assert facts.pci_devices[0].driver == "nouveau" and facts.pci_devices[0].vendor_id == "10de"


def test_contradicting_outputs_are_kept_and_reported():
    text = "| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03   CUDA Version: 12.2 |\nPyTorch version: 2.1.0\nNvidia driver version: 470.82.01\n"
    facts = read_evidence(text)
    assert facts.driver.version == "535.54.03"
    (c,) = facts.contradictions
    assert (c.fact, c.kept, c.other, c.other_from) == ("driver.version", "535.54.03", "470.82.01", "collect_env, line 3")


def test_the_same_fact_said_less_exactly_is_no_contradiction():
    facts = read_evidence("| NVIDIA-SMI 535.54   Driver Version: 535.54   CUDA Version: 12.2 |\nPyTorch version: 2.1.0\nNvidia driver version: 535.54.03\n")
    assert facts.contradictions is None and facts.driver.version == "535.54.03"


def test_a_snapshot_and_a_paste_merge():
    facts = read_many([("Nvidia driver version: 535.54.03\nPyTorch version: 2.1.0+cu121\n", "paste"),
                       ('{"host": {"os": "linux", "wsl": 2}}', "context.json")])
    assert facts.host.wsl == 2 and facts.driver.version == "535.54.03"
    assert facts.provenance["host.wsl"] == "snapshot context.json"


def test_a_single_snapshot_is_read_exactly_as_saved():
    facts = read_evidence('{"schema": "gpudoctor.facts/1", "driver": {"version": "550.54.15"}}')
    assert facts.provenance is None and facts.driver.version == "550.54.15"


@pytest.mark.parametrize("text", [
    "Successfully installed absl-py-0.15.0 keras-2.7.0 torch-2.4.0+cu121",
    # https://github.com/pytorch/pytorch/issues/131662: pip's two last lines pasted onto one, in backticks
    "```Installing collected packages: torch Successfully installed torch-2.4.0+cu121```",
    "Installing collected packages: numpy, torch\nSuccessfully installed numpy-1.26.4 torch-2.4.0+cu121",
])
def test_pips_successfully_installed_line_gives_the_versions(text):
    facts = read_evidence(text, "paste")
    assert facts.frameworks.torch.version == "2.4.0+cu121"


def test_a_sentence_about_installing_is_no_pip_output():
    facts = read_evidence("I then ran pip and it said Successfully installed torch-2.4.0 but nothing changed", "paste")
    assert facts.frameworks is None or facts.frameworks.torch is None or facts.frameworks.torch.version != "2.4.0"


LSHW_NOUVEAU = """  *-display
       description: VGA compatible controller
       product: G98 [GeForce 9300 GS]
       vendor: NVIDIA Corporation
       physical id: 0
       bus info: pci@0000:03:00.0
       configuration: driver=nouveau latency=0
"""


def test_lshw_display_blocks_give_the_nvidia_device_and_its_driver():
    # https://github.com/peci1/nvidia-htop/issues/23
    (device,) = read_evidence(LSHW_NOUVEAU, "paste").pci_devices
    assert (device.bus_id, device.vendor_id, device.driver) == ("0000:03:00.0", "10de", "nouveau")
    unclaimed = LSHW_NOUVEAU.replace("*-display", "*-display UNCLAIMED").replace("       configuration: driver=nouveau latency=0\n", "")
    (device,) = read_evidence(unclaimed, "paste").pci_devices
    assert device.driver is None and device.bus_id == "0000:03:00.0"
    # neither a driver nor UNCLAIMED: whether one is bound is not said, so no device is recorded from it
    silent = LSHW_NOUVEAU.replace("       configuration: driver=nouveau latency=0\n", "")
    assert read_evidence(silent, "paste").pci_devices is None
    amd = LSHW_NOUVEAU.replace("NVIDIA Corporation", "Advanced Micro Devices, Inc. [AMD/ATI]")
    assert read_evidence(amd, "paste").pci_devices is None


def test_the_python_interpreter_banner_gives_the_python_and_where_it_says_so_the_os():
    from gpudoctor.evidence import read_evidence

    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/9321: MSC builds are Windows'
    win = read_evidence("Python 3.11.2 (tags/v3.11.2:878ead1, Feb  7 2023, 16:38:35) [MSC v.1934 64 bit (AMD64)]", "paste")
    assert (win.host.python, win.host.os) == ("3.11.2", "windows")
    linux = read_evidence("Python 3.13.3 (main, Apr  9 2025, 04:03:52) [Clang 20.1.0 ] on linux", "paste")
    assert (linux.host.python, linux.host.os) == ("3.13.3", "linux")
    bare = read_evidence("Python 3.6.9 (default, Nov  7 2019, 10:44:02) ", "paste")
    assert (bare.host.python, bare.host.os) == ("3.6.9", None)


def test_macos_dyld_naming_a_cuda_library_that_tensorflow_s_extension_needs():
    # tensorflow/tensorflow#6370: the Mac GPU wheel of TF 0.12 needs CUDA 8.0's runtime; only 7.5 is installed
    from gpudoctor.checks import run_checks
    from gpudoctor.evidence import read_evidence
    from gpudoctor.matrix import load_matrix

    text = ("ImportError: dlopen(/Library/Frameworks/Python.framework/Versions/3.5/lib/python3.5/site-packages/tensorflow/python/"
            "_pywrap_tensorflow.so, 10): Library not loaded: @rpath/libcudart.8.0.dylib\n  Reason: image not found\n")
    facts = read_evidence(text, "paste")
    assert facts.frameworks.tensorflow.path.endswith("site-packages/tensorflow")
    assert [s.subject for s in facts.symptoms if s.kind == "library-not-loadable"] == ["libcudart.8.0.dylib"]
    assert "tf-missing-gpu-libs" in {f.id for f in run_checks(facts, load_matrix(), "paste").findings}
