"""A CUDA or cuDNN library that no known framework fails to load is that library's finding, not TensorFlow's
(checks/messages.py, cudnn_majors.not_on_loader_path); a TensorFlow form keeps it TensorFlow's."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix


def _found(text: str) -> dict[str, str]:
    return {f.id: f.severity.label for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings}


def test_onnxruntime_failing_on_cudnn_is_the_cudnn_finding():
    # https://github.com/microsoft/onnxruntime/issues/25609 (onnxruntime's provider library)
    line = ("2025-07-31 15:09:16.647314988 [E:onnxruntime:Default, provider_bridge_ort.cc:2195 TryGetProviderInfo_CUDA] "
            "Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object file: "
            "No such file or directory\n")
    found = _found(line)
    assert "cudnn-not-on-loader-path" in found and "tf-missing-gpu-libs" not in found


def test_mxnet_missing_cudart_is_the_cuda_library_finding():
    # https://github.com/apache/mxnet/issues/3829
    found = _found('OSError: libcudart.so.7.5: cannot open shared object file: No such file or directory\n')
    assert "cuda-library-not-on-loader-path" in found


def test_a_tensorflow_gpu_form_keeps_it_tensorflows():
    # https://github.com/tensorflow/tensorflow/issues/26209
    text = ("- TensorFlow installed from (source or binary): Binary (pip3 install -U tensorflow-gpu\n"
            "- GPU model and memory: Titan Xp\n"
            "ImportError: libcublas.so.10.0: cannot open shared object file: No such file or directory\n")
    assert "tf-missing-gpu-libs" in _found(text)
