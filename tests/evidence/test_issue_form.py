"""Issue-template and issue-form fields read as stated facts (gpudoctor/evidence/readers/issue_form.py), on the
form text of real public threads: the corpus threads that carry it, and the lines quoted below with their URLs."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.render.text import render_text

from .corpus import threads

THREADS = {t.name: t for t in threads()}


def thread(name: str):
    return read_evidence(THREADS[name].pasted, name)


def test_tensorflow_issue_form_states_windows_python_cuda_cudnn_and_the_gpu():
    facts = thread("tf-tensorflow-60237")  # https://github.com/tensorflow/tensorflow/issues/60237
    assert (facts.host.os, facts.host.os_release, facts.host.python) == ("windows", "Windows 10", "3.10.10")
    assert [t.version for t in facts.cuda_toolkits] == ["11.8"]
    assert [lib.version for lib in facts.libraries.libcudnn] == ["8.6.0.163"]
    assert [g.name for g in facts.gpus] == ["1050 Ti"]
    assert facts.provenance["host.os"] == "issue form (stated), line 3"
    # "### Mobile device / -", "### Bazel version / -": placeholders are unknown, and stay out of the snapshot
    assert facts.driver is None


def test_cuml_environment_details_name_wsl2_and_the_driver_in_brackets():
    facts = thread("env-cuml-5624")  # https://github.com/NVIDIA/cuml/issues/5624
    assert (facts.host.os, facts.host.wsl) == ("linux", 2)
    assert facts.driver.version == "545.84" and [g.name for g in facts.gpus] == ["NVIDIA RTX 3060"]
    assert [t.version for t in facts.cuda_toolkits] == ["12.2"]


def test_hedged_and_several_valued_answers_are_unknown():
    # https://github.com/tensorflow/tensorflow/issues/26209: "TensorFlow version: current version from pip (maybe
    # version 1.13.1)"; https://github.com/tensorflow/tensorflow/issues/27144: "Python version: Tested on both 3.5
    # and 3.6"; https://github.com/tensorflow/tensorflow/issues/26218: "1.11.0 , 1.13.1" and "9/7.1.4 , 10/7.4.1"
    assert thread("tf-tensorflow-26209").frameworks.tensorflow.version is None  # hedged: no version
    assert thread("tf-tensorflow-26209").frameworks.tensorflow.is_cuda_build  # "installed from: ... tensorflow-gpu"
    assert thread("tf-tensorflow-26209").host.python == "3.5.2"
    facts = thread("tf-tensorflow-27144")
    assert facts.host.python is None and facts.frameworks.tensorflow.version == "1.13.1"
    facts = thread("ok-tensorflow-26218")
    assert facts.frameworks is None and facts.cuda_toolkits is None and facts.host.python == "3.6.5"


def test_a_stated_value_never_overrides_a_printed_one():
    # https://github.com/tensorflow/tensorflow/issues/55582: the form says Python 3.17.13, pip printed python 3.8
    facts = thread("tf-tensorflow-55582")
    assert facts.host.python == "3.8"
    (contradiction,) = [c for c in facts.contradictions if c.fact == "host.python"]
    assert contradiction.other == "3.17.13" and contradiction.other_from.startswith("issue form (stated)")


def test_a_form_cuda_that_nvcc_contradicts_is_a_warning_not_a_crash():
    text = ("- CUDA/cuDNN version: 11.8 / 8.6\n- GPU model and memory: RTX 3090 24GB\n"
            "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.7, V11.7.99\n")
    facts = read_evidence(text)
    assert facts.cuda_toolkits[0].version == "11.7"  # nvcc's, though the form comes first in the text
    report = run_checks(facts, load_matrix(), "form vs nvcc")
    assert [f.severity.label for f in report.findings if f.id == "evidence-contradiction"] == ["warning"]
    assert report.crashes == ()


def test_a_stated_gpu_name_agrees_with_the_name_nvidia_smi_prints():
    # https://github.com/tensorflow/tensorflow/issues/62328: "NVIDIA GeForce GTX 1650 Mobile / Max-Q" in the form,
    # "NVIDIA GeForce GTX 1650" in nvidia-smi: one GPU, no contradiction, the printed name kept
    facts = thread("tf-tensorflow-62328")
    assert [g.name for g in facts.gpus] == ["NVIDIA GeForce GTX 1650"]
    assert not [c for c in facts.contradictions or () if c.fact.startswith("gpus")]


def test_the_older_bold_tensorflow_template():
    # https://github.com/tensorflow/tensorflow/issues/14048
    text = """### System information
- **Have I written custom code (as opposed to using a stock example script provided in TensorFlow)**: No
- **OS Platform and Distribution (e.g., Linux Ubuntu 16.04)**: Linux Ubuntu 16.04.2 
- **TensorFlow installed from (source or binary)**: binary (via pip)
- **TensorFlow version (use command below)**: ('v1.3.0-rc2-20-g0787eee', '1.3.0') 
- **Python version**: 2.7
- **Bazel version (if compiling from source)**: n/a
- **CUDA/cuDNN version**: Cuda 8.0 (via pip) / cuDNN 6.0.21
- **GPU model and memory**: GeForce GTX 1060 6GB
"""
    facts = read_evidence(text)
    assert (facts.host.os, facts.host.python, facts.frameworks.tensorflow.version) == ("linux", "2.7", "1.3.0")
    assert [g.name for g in facts.gpus] == ["GeForce GTX 1060"]
    assert [t.version for t in facts.cuda_toolkits] == ["8.0"]  # "(via pip)" is an aside
    assert [lib.version for lib in facts.libraries.libcudnn] == ["6.0.21"]


def test_an_empty_template_and_prose_answers_state_nothing():
    # https://github.com/tensorflow/tensorflow/issues/15816 (the template left empty) and
    # https://github.com/tensorflow/tensorflow/issues/34753 (a sentence where a version belongs)
    text = """### System information
- **OS Platform and Distribution (e.g., Linux Ubuntu 16.04)**:
- **TensorFlow version (use command below)**:
- **Python version**: 
- **CUDA/cuDNN version**:
- **GPU model and memory**:
- CUDA/cuDNN version:it is saying nvidia-smi cuda 10 but on nvcc -version it is not showing 
### Python version

_No response_
"""
    facts = read_evidence(text)
    assert facts.host is None and facts.gpus is None and facts.cuda_toolkits is None and facts.frameworks is None
    assert "None" not in render_text(run_checks(facts, load_matrix(), "empty form"), verbose=True)


def test_transformers_environment_info_and_its_placeholders():
    # https://github.com/huggingface/transformers/issues/6979
    text = """## Environment info
- `transformers` version: 3.1.0
- Platform: Linux-4.19.112+-x86_64-with-Ubuntu-18.04-bionic
- Python version: 3.6.9
- PyTorch version (GPU?): 1.6.0+cu101 (True)
- Tensorflow version (GPU?): not installed (NA)
- Using GPU in script?: P100 GPU instance (Google Colab)
"""
    facts = read_evidence(text)
    assert (facts.host.os, facts.host.python, facts.frameworks.torch.version) == ("linux", "3.6.9", "1.6.0+cu101")
    assert facts.frameworks.tensorflow is None


def test_ethminer_hardware_line_without_a_colon():
    facts = thread("env-ethminer-1640")  # https://github.com/ethereum-mining/ethminer/issues/1640
    assert [g.name for g in facts.gpus] == ["1080 Ti"] and facts.host.os == "linux"


def test_a_bare_label_line_outside_a_template_is_not_a_form():
    facts = read_evidence("Python version: 3.9\nOS: Windows\nGPU: RTX 4090\n")
    assert facts.host is None and facts.gpus is None


def test_a_version_answer_with_the_framework_glued_on_is_read():
    # https://github.com/tensorflow/tensorflow/issues/60241 answered "tf2.12.0"
    form = "### Tensorflow Version\n\ntf2.12.0\n\n### OS Platform and Distribution\n\nWin11\n"
    facts = read_evidence(form, "form")
    assert facts.frameworks.tensorflow.version == "2.12.0" and facts.host.os == "windows"


def test_a_typed_list_of_versions_on_adjacent_lines_is_read_outside_a_template():
    facts = thread("gh-qanet-5")  # https://github.com/localminimum/QANet/issues/5: "tensorflow version: 1.5.0" / "CUDA: 9.0" / ...
    assert facts.frameworks.tensorflow.version == "1.5.0" and [t.version for t in facts.cuda_toolkits] == ["9.0"]
    lone = read_evidence("2018-03-23 I tensorflow/core/platform/cpu_feature_guard.cc:137] ok\nCUDA: 9.0\nsomething else happened\n")
    assert lone.cuda_toolkits is None  # one "Label: version" line among log lines is not a list a person typed
    apart = read_evidence("tensorflow version: 1.5.0\nit crashed\nCUDA: 9.0\n")
    assert apart.frameworks is None and apart.cuda_toolkits is None


def test_the_typed_list_and_the_cuda_stream_executor_judge_the_driver_too_old_for_tensorflow():
    report = run_checks(thread("gh-qanet-5"), load_matrix(), "gh-qanet-5")
    assert "driver-too-old-for-cuda-build" in {f.id for f in report.findings if f.severity.label == "error"}


def test_the_os_and_gpu_lines_of_a_typed_list_of_versions_count_with_it():
    facts = read_evidence("OS: Windows 11\ntorch: 2.4.0\nPython: 3.11.5\nGPU: RTX 4090\n")
    assert (facts.host.os, facts.frameworks.torch.version, facts.host.python) == ("windows", "2.4.0", "3.11.5")
    assert facts.gpus[0].name == "RTX 4090"


def test_a_typed_list_with_chinese_labels_and_a_full_width_colon():
    # Jittor/jittor#194: "cuda版本：11.2" (CUDA version) and "驱动版本: 450.102.04" (driver version)
    facts = read_evidence("运行时出现错误：\n\ncuda版本：11.2\n驱动版本: 450.102.04\n", "paste")
    assert facts.driver.version == "450.102.04" and facts.cuda_toolkits[0].version == "11.2"
    assert read_evidence("驱动版本: 450.102.04\n", "paste").driver is None  # one line alone is not a typed list


def test_a_tensorflow_gpu_version_field_says_the_cuda_build_and_arch_linux_is_linux():
    # tensorflow/tensorflow#39132
    from gpudoctor.evidence import read_evidence

    facts = read_evidence("- **OS Platform and Distribution (e.g., Linux Ubuntu 16.04)**: ArchLinux 64bits\n"
                          "- **TensorFlow version (use command below)**: tensorflow-gpu 2.2.0rc4\n", "paste")
    tf = facts.frameworks.tensorflow
    assert (tf.version, tf.is_cuda_build, facts.host.os) == ("2.2.0rc4", True, "linux")
    plain = read_evidence("- **TensorFlow version (use command below)**: 2.2.0\n", "paste").frameworks.tensorflow
    assert plain.is_cuda_build is None
