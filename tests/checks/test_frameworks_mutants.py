"""Framework build rules, finding by finding (issue 11: mutation score of checks/frameworks.py): CPU-only torch by
what is known of the GPU, CUDA builds on machines without one, what --deep saw at import, and CPU-only TensorFlow
packages in their four shapes."""

from __future__ import annotations

from gpudoctor.checks import frameworks as fw
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Driver, Facts, Frameworks, Gpu, Host, Section, Severity, Symptom, TensorflowBuild, TorchBuild

MATRIX = load_matrix()
RTX3090 = (Gpu(index=0, name="NVIDIA GeForce RTX 3090", compute_capability="8.6"),)
R550 = Driver(version="550.54.15", cuda_version="12.4", kernel_module="nvidia")
LINUX = Host(os="linux", python="3.10.12", env={})
NO_GPU = {"gpus": (), "pci_devices": ()}
TORCH_CU126 = "pip install torch==2.14.1 torchvision==0.29.1 --index-url https://download.pytorch.org/whl/cu126"
TF_AND_CUDA = "pip install 'tensorflow[and-cuda]==2.21.0'"


def run(rule, facts):
    return list(rule(facts, MATRIX))


def one(rule, facts):
    (finding,) = run(rule, facts)
    return finding


def torch_only(build: TorchBuild, **facts) -> Facts:
    return Facts(host=facts.pop("host", LINUX), frameworks=Frameworks(torch=build), **facts)


def tf_only(build: TensorflowBuild, **facts) -> Facts:
    return Facts(host=facts.pop("host", LINUX), frameworks=Frameworks(tensorflow=build), **facts)


# -- torch-cpu-only-build -----------------------------------------------------------------------------------------


CPU = TorchBuild(version="2.7.1+cpu")
CPU_EVIDENCE = "torch 2.7.1+cpu: no CUDA in this build (torch.version.cuda is None)"


def test_cpu_torch_without_a_gpu_is_info_with_the_log_line():
    log = Symptom("torch-not-compiled-with-cuda", "AssertionError: Torch not compiled with CUDA enabled")
    f = one(fw.torch_cpu_only_build, torch_only(CPU, symptoms=(log, log), **NO_GPU))
    assert (f.id, f.severity, f.section) == ("torch-cpu-only-build", Severity.INFO, Section.TORCH)
    assert f.title == "torch 2.7.1+cpu is a CPU-only build (fine on this machine without an NVIDIA GPU)"
    assert f.evidence == (CPU_EVIDENCE, f"log: {log.text}")
    assert f.fix is None


def test_cpu_torch_on_a_gpu_machine_is_an_error_with_the_cuda_build():
    f = one(fw.torch_cpu_only_build, torch_only(CPU, gpus=RTX3090, driver=R550))
    assert (f.severity, f.title) == (Severity.ERROR, "torch 2.7.1+cpu is a CPU-only build on a machine with an NVIDIA GPU")
    assert f.evidence == (CPU_EVIDENCE,)
    assert f.fix.summary == "Replace it with a CUDA build: install torch 2.14.1+cu126"
    assert f.fix.commands == ("pip uninstall -y torch torchvision torchaudio", TORCH_CU126)


def test_a_gpu_implied_by_the_driver_is_named_in_the_evidence():
    f = one(fw.torch_cpu_only_build, torch_only(CPU, driver=R550))
    assert f.severity is Severity.ERROR
    assert f.evidence == (CPU_EVIDENCE, "NVIDIA driver 550.54.15 reports its version, so an NVIDIA GPU is present (the GPU list is unknown)")
    assert f.fix.commands[0] == "pip uninstall -y torch torchvision torchaudio"


def test_cpu_torch_where_the_gpu_is_unknown_is_a_warning():
    f = one(fw.torch_cpu_only_build, torch_only(CPU))
    assert f.severity is Severity.WARNING
    assert f.title == "torch 2.7.1+cpu is a CPU-only build: it cannot use an NVIDIA GPU (whether this machine has one is not known)"
    assert f.evidence == (CPU_EVIDENCE,)


def test_cpu_torch_on_macos_or_a_cuda_torch_is_not_this_rule():
    assert run(fw.torch_cpu_only_build, torch_only(CPU, host=Host(os="darwin", env={}), gpus=RTX3090)) == []
    assert run(fw.torch_cpu_only_build, torch_only(TorchBuild(version="2.7.1+cu126", cuda="12.6"), gpus=RTX3090)) == []
    assert run(fw.torch_cpu_only_build, Facts(host=LINUX)) == []
    (f,) = run(fw.torch_cpu_only_build, torch_only(TorchBuild(build="cpu"), gpus=RTX3090, driver=R550))
    assert f.title.startswith("torch (version unknown) is a CPU-only build")


# -- CUDA builds without a GPU ------------------------------------------------------------------------------------


def test_cuda_builds_on_a_machine_without_a_gpu_are_info():
    facts = Facts(host=LINUX, frameworks=Frameworks(torch=TorchBuild(version="2.7.1+cu126", cuda="12.6"),
                                                    tensorflow=TensorflowBuild(version="2.16.1", is_cuda_build=True, cuda="12.3", cudnn="8")), **NO_GPU)
    t = one(fw.torch_cuda_build_without_gpu, facts)
    assert (t.id, t.severity, t.section) == ("torch-cuda-build-no-gpu", Severity.INFO, Section.TORCH)
    assert t.title == "torch 2.7.1+cu126 is a CUDA 12.6 build; no NVIDIA GPU or driver found, so it will run on the CPU"
    assert t.evidence == ("torch.version.cuda = 12.6",)
    f = one(fw.tf_cuda_build_without_gpu, facts)
    assert (f.id, f.severity, f.section) == ("tf-cuda-build-no-gpu", Severity.INFO, Section.TENSORFLOW)
    assert f.title == "TensorFlow 2.16.1 is a CUDA 12.3 build; no NVIDIA GPU or driver found, so it will run on the CPU"
    assert f.evidence == ("build_info: cuda 12.3, cuDNN 8",)


def test_cuda_builds_of_unknown_cuda_version_say_so():
    t = one(fw.torch_cuda_build_without_gpu, torch_only(TorchBuild(version="2.7.1+cu126"), **NO_GPU))
    assert t.title == "torch 2.7.1+cu126 is a CUDA (version unknown) build; no NVIDIA GPU or driver found, so it will run on the CPU"
    assert t.evidence == ("torch.version.cuda = unknown",)
    f = one(fw.tf_cuda_build_without_gpu, tf_only(TensorflowBuild(is_cuda_build=True), **NO_GPU))
    assert f.title == "TensorFlow (version unknown) is a CUDA (version unknown) build; no NVIDIA GPU or driver found, so it will run on the CPU"
    assert f.evidence == ("build_info: cuda unknown, cuDNN unknown",)


def test_cuda_builds_with_a_gpu_or_unknown_gpu_are_quiet():
    for where in ({"gpus": RTX3090}, {}):
        assert run(fw.torch_cuda_build_without_gpu, torch_only(TorchBuild(version="2.7.1+cu126", cuda="12.6"), **where)) == []
        assert run(fw.tf_cuda_build_without_gpu, tf_only(TensorflowBuild(version="2.16.1", is_cuda_build=True), **where)) == []
    assert run(fw.tf_cuda_build_without_gpu, tf_only(TensorflowBuild(version="2.16.1", is_cuda_build=False), **NO_GPU)) == []
    assert run(fw.torch_cuda_build_without_gpu, torch_only(CPU, **NO_GPU)) == []


# -- what --deep saw ----------------------------------------------------------------------------------------------


def test_import_failure_pinned():
    build = TorchBuild(version="2.7.1+cu126", import_error="OSError: libcudnn.so.9: cannot open shared object file",
                       path="/usr/lib/python3/dist-packages/torch", cuda_available=True)
    f = one(fw.torch_runtime, torch_only(build, gpus=RTX3090, driver=R550))
    assert (f.id, f.severity, f.section) == ("framework-import-failed", Severity.ERROR, Section.TORCH)
    assert f.title == "import torch fails: OSError: libcudnn.so.9: cannot open shared object file"
    assert f.evidence == ("torch 2.7.1+cu126 at /usr/lib/python3/dist-packages/torch",)
    assert f.fix.summary == "Reinstall torch: install torch 2.14.1+cu126"
    assert f.fix.commands == ("pip uninstall -y torch", TORCH_CU126)
    tf = one(fw.tf_runtime, tf_only(TensorflowBuild(import_error="ImportError: DLL load failed"), gpus=RTX3090, driver=R550))
    assert (tf.section, tf.title, tf.evidence) == (Section.TENSORFLOW, "import tensorflow fails: ImportError: DLL load failed",
                                                   ("tensorflow (version unknown) at (path unknown)",))
    assert tf.fix.commands[0] == "pip uninstall -y tensorflow"


def test_cuda_available_is_ok():
    build = TorchBuild(version="2.7.1+cu126", cuda="12.6", cudnn="90100", cuda_available=True, device_count=2, arch_list=("sm_80", "sm_86"))
    f = one(fw.torch_runtime, torch_only(build, gpus=RTX3090, driver=R550))
    assert (f.id, f.severity) == ("torch-cuda-available", Severity.OK)
    assert f.title.startswith("torch 2.7.1+cu126 sees 2 CUDA device(s), cuDNN ")
    assert f.evidence == ("arch list: sm_80 sm_86",)
    f = one(fw.torch_runtime, torch_only(TorchBuild(version="2.7.1+cu126", cuda="12.6", cuda_available=True), gpus=RTX3090))
    assert f.title == "torch 2.7.1+cu126 has CUDA available"
    assert f.evidence == ("arch list: ",)


def test_cuda_unavailable_with_gpu_and_driver_present_is_an_error():
    f = one(fw.torch_runtime, torch_only(TorchBuild(version="2.7.1+cu126", cuda="12.6", cuda_available=False), gpus=RTX3090, driver=R550))
    assert (f.id, f.severity, f.section) == ("torch-cuda-unavailable", Severity.ERROR, Section.TORCH)
    assert f.title == "torch 2.7.1+cu126 is a CUDA 12.6 build but torch.cuda.is_available() is False"
    assert f.evidence == ("the GPU and the NVIDIA driver are present (see above); the driver or environment findings say why",)
    assert f.fix.summary.startswith("If no other finding explains it, install the build that fits this machine")


def test_cuda_unavailable_where_gpu_or_driver_is_not_known_is_a_warning():
    unknown = ("whether a GPU and a working NVIDIA driver are present is not known: `nvidia-smi` tells",)
    f = one(fw.torch_runtime, torch_only(TorchBuild(version="2.7.1+cu126", cuda_available=False)))
    assert (f.severity, f.title, f.evidence) == (Severity.WARNING, "torch 2.7.1+cu126 is a CUDA build but torch.cuda.is_available() is False", unknown)
    f = one(fw.torch_runtime, torch_only(TorchBuild(version="2.7.1+cu126", cuda="12.6", cuda_available=False), gpus=RTX3090))
    assert (f.severity, f.evidence) == (Severity.WARNING, unknown)  # a GPU but no driver known


def test_runtime_quiet_cases():
    assert run(fw.torch_runtime, torch_only(TorchBuild(version="2.7.1+cu126", cuda="12.6"), gpus=RTX3090)) == []  # not --deep
    assert run(fw.torch_runtime, torch_only(TorchBuild(version="2.7.1+cpu", cuda_available=False), gpus=RTX3090)) == []
    assert run(fw.torch_runtime, torch_only(TorchBuild(version="2.7.1+cu126", cuda="12.6", cuda_available=False), **NO_GPU)) == []
    assert run(fw.torch_runtime, Facts(host=LINUX)) == []


def test_tensorflow_runtime():
    f = one(fw.tf_runtime, tf_only(TensorflowBuild(version="2.16.1", is_cuda_build=True, gpus_visible=0), gpus=RTX3090, driver=R550))
    assert (f.id, f.severity, f.section) == ("tf-gpu-not-visible", Severity.ERROR, Section.TENSORFLOW)
    assert f.title == "TensorFlow 2.16.1 is a CUDA build but tf.config.list_physical_devices('GPU') is empty"
    assert f.evidence == ("the GPU and the NVIDIA driver are present; the CUDA library findings say why",)
    assert f.fix.summary == "Install TensorFlow with its CUDA libraries: install tensorflow 2.21.0 (and-cuda)"
    assert f.fix.commands == (TF_AND_CUDA,)
    ok = one(fw.tf_runtime, tf_only(TensorflowBuild(version="2.16.1", is_cuda_build=True, gpus_visible=2), gpus=RTX3090, driver=R550))
    assert (ok.id, ok.severity, ok.title) == ("tf-gpus-visible", Severity.OK, "TensorFlow 2.16.1 sees 2 GPU(s)")
    assert run(fw.tf_runtime, tf_only(TensorflowBuild(version="2.16.1", is_cuda_build=True, gpus_visible=0), gpus=RTX3090)) == []  # no driver
    assert run(fw.tf_runtime, tf_only(TensorflowBuild(version="2.16.1", is_cuda_build=False, gpus_visible=0), gpus=RTX3090, driver=R550)) == []
    assert run(fw.tf_runtime, tf_only(TensorflowBuild(version="2.16.1", is_cuda_build=True), gpus=RTX3090, driver=R550)) == []


# -- tf-cpu-package-shadows-gpu -----------------------------------------------------------------------------------


def test_cpu_package_beside_tensorflow_pinned():
    f = one(fw.tf_cpu_package_shadows_gpu, Facts(host=LINUX, gpus=RTX3090, driver=R550, python_packages={"tensorflow": "2.16.1", "tensorflow-cpu": "2.16.1"}))
    assert (f.id, f.severity, f.section) == ("tf-cpu-package-shadows-gpu", Severity.ERROR, Section.TENSORFLOW)
    assert f.title == "A CPU-only TensorFlow package is installed beside tensorflow and overwrites the same files"
    assert f.evidence == ("tensorflow-cpu==2.16.1 is installed beside tensorflow==2.16.1",)
    assert f.fix.summary == "Remove every TensorFlow package, then install the GPU one: install tensorflow 2.21.0 (and-cuda)"
    assert f.fix.commands == ("pip uninstall -y tensorflow tensorflow-cpu", TF_AND_CUDA)
    # both installed is an error even where the GPU is unknown: they overwrite each other's files
    both = one(fw.tf_cpu_package_shadows_gpu, Facts(host=LINUX, python_packages={"tensorflow": "2.16.1", "tensorflow-intel": "2.16.1"}))
    assert both.severity is Severity.ERROR


def test_only_a_cpu_package_on_a_linux_gpu_machine():
    f = one(fw.tf_cpu_package_shadows_gpu, Facts(host=LINUX, gpus=RTX3090, driver=R550, python_packages={"tensorflow-intel": "2.16.1", "tensorflow-cpu": "2.16.1"}))
    assert f.title == "Only a CPU-only TensorFlow package is installed on a machine with an NVIDIA GPU"
    assert f.evidence == ("tensorflow-cpu==2.16.1 is installed (no GPU support)", "tensorflow-intel==2.16.1 is installed (no GPU support)")
    assert f.fix.commands[0] == "pip uninstall -y tensorflow tensorflow-cpu tensorflow-intel"
    windows = Facts(host=Host(os="windows", env={}), gpus=RTX3090, driver=R550, python_packages={"tensorflow-intel": "2.16.1"})
    assert run(fw.tf_cpu_package_shadows_gpu, windows) == []  # tensorflow-intel is what Windows installs
    assert run(fw.tf_cpu_package_shadows_gpu, Facts(host=LINUX, python_packages={"tensorflow-cpu": "2.16.1"})) == []  # GPU unknown


def test_tf_114_package_is_cpu_only_and_the_fix_keeps_the_release():
    f = one(fw.tf_cpu_package_shadows_gpu, Facts(host=Host(os="linux", python="3.7.9", env={}), gpus=RTX3090, driver=R550, python_packages={"tensorflow": "1.14.0"}))
    assert (f.severity, f.title) == (Severity.ERROR, "tensorflow 1.14.0 is a CPU-only package: the GPU build of this release is the tensorflow-gpu distribution")
    assert f.evidence == ("tensorflow==1.14.0 is installed: the 'tensorflow' 1.14.0 wheel has no CUDA code; GPU support of TensorFlow 1.14 "
                          "is the 'tensorflow-gpu' distribution (tested with CUDA 10.0, cuDNN 7.4)",)
    assert f.fix.summary == ("Replace it with tensorflow-gpu 1.14.0, the CUDA build of the same release; it loads CUDA 10.0 and cuDNN 7.4 "
                             "(or a newer 7.x) from the system (check it again once it is installed: the library findings judge them)")
    assert f.fix.commands == ("pip uninstall -y tensorflow", "pip install tensorflow-gpu==1.14.0")
    assert f.fix.url == "https://www.tensorflow.org/install/source#gpu"


def test_tf_114_package_where_the_gpu_is_unknown_and_the_python_has_no_wheel():
    f = one(fw.tf_cpu_package_shadows_gpu, Facts(host=Host(os="linux", python="3.8.9", env={}), python_packages={"tensorflow": "1.14.0"}))
    assert f.severity is Severity.WARNING
    assert f.fix.summary.endswith("; this Python 3.8 has no wheel of it (it has 2.7, 3.3–3.7)")


def test_tf_package_with_gpu_code_or_beside_tensorflow_gpu_is_fine():
    gpu = {"gpus": RTX3090, "driver": R550, "host": Host(os="linux", python="3.7.9", env={})}
    assert run(fw.tf_cpu_package_shadows_gpu, Facts(python_packages={"tensorflow": "1.14.0", "tensorflow-gpu": "1.14.0"}, **gpu)) == []
    assert run(fw.tf_cpu_package_shadows_gpu, Facts(python_packages={"tensorflow": "1.15.0"}, **gpu)) == []  # 1.15.0 has GPU code
    assert run(fw.tf_cpu_package_shadows_gpu, Facts(python_packages={"tensorflow": "1.14.0"}, host=LINUX, **NO_GPU)) == []
    cuda_build = Frameworks(tensorflow=TensorflowBuild(version="1.14.0", is_cuda_build=True))
    assert run(fw.tf_cpu_package_shadows_gpu, Facts(python_packages={"tensorflow": "1.14.0"}, frameworks=cuda_build, **gpu)) == []


def test_tf_package_without_a_matrix_uses_the_1x_rule():
    facts = Facts(host=Host(os="linux", python="3.7.9", env={}), gpus=RTX3090, driver=R550, python_packages={"tensorflow": "1.14.0"})
    (f,) = fw.tf_cpu_package_shadows_gpu(facts, None)
    assert f.evidence == ("tensorflow==1.14.0 is installed: before 1.15 the 'tensorflow' package was CPU-only; GPU support was 'tensorflow-gpu'",)
    assert f.fix.commands == ("pip uninstall -y tensorflow",)
    facts = Facts(host=LINUX, gpus=RTX3090, driver=R550, python_packages={"tensorflow": "1.15.0"})
    assert list(fw.tf_cpu_package_shadows_gpu(facts, None)) == []


def test_cpu_build_reported_by_build_info_on_a_linux_gpu_machine():
    f = one(fw.tf_cpu_package_shadows_gpu, tf_only(TensorflowBuild(version="2.16.1", is_cuda_build=False), gpus=RTX3090, driver=R550))
    assert (f.severity, f.title) == (Severity.ERROR, "TensorFlow 2.16.1 is a CPU-only build on a machine with an NVIDIA GPU")
    assert f.evidence == ("tensorflow 2.16.1: build_info is_cuda_build = False",)
    assert f.fix.commands == ("pip uninstall -y tensorflow", TF_AND_CUDA)
    assert run(fw.tf_cpu_package_shadows_gpu, tf_only(TensorflowBuild(version="2.16.1", is_cuda_build=None), gpus=RTX3090, driver=R550)) == []


def test_a_release_older_than_the_matrix_keeps_the_uninstall_as_a_command():
    """Regression: the uninstall was passed as the fix's `extra` text, so the summary showed a Python tuple
    ("...; ('pip uninstall -y tensorflow',)") and the command list lost it."""
    facts = Facts(host=Host(os="linux", python="3.5.2", env={}), gpus=(Gpu(index=0, name="Tesla K80", compute_capability="3.7"),),
                  driver=Driver(version="384.81", cuda_version="9.0"), python_packages={"tensorflow": "0.12.1"})
    f = one(fw.tf_cpu_package_shadows_gpu, facts)
    assert f.fix.commands[0] == "pip uninstall -y tensorflow"
    assert "('" not in f.fix.summary


def test_cudnn_integers_are_shown_as_versions():
    from gpudoctor.checks._facts import cudnn_version

    assert [cudnn_version(v) for v in ("90100", "8902", "7605", "9.1.0", "9" * 5000)] == ["9.1.0", "8.9.2", "7.6.5", "9.1.0", "9" * 5000]
