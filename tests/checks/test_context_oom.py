"""Out of memory while CUDA creates its context: the GPU's memory is held by something else (gpu-memory-in-use, a
[[finding]] of signatures.toml), unlike a batch too large for the GPU."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix


def _in_use(text: str):
    return [f for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings if f.id == "gpu-memory-in-use"]


def test_an_earlier_colab_session_holding_the_gpu():
    # googlecolab/colabtools#91
    (f,) = _in_use("`InternalError: failed initializing StreamExecutor for CUDA device ordinal 0: Internal: failed call to "
                   "cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY; total memory reported: 11995578368\n")
    assert f.severity.label == "warning" and f.fix.commands[0].startswith("nvidia-smi --query-compute-apps")


def test_the_same_class_in_another_thread_a_shared_server():
    # tensorflow/tensorflow#30594: other users' processes held the GPU
    text = ("2019-07-11 12:42:11.226602: W tensorflow/compiler/xla/service/platform_util.cc:240] unable to create StreamExecutor "
            "for CUDA:0: failed initializing StreamExecutor for CUDA device ordinal 0: Internal: failed call to "
            "cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 11996954624\n")
    assert len(_in_use(text)) == 1


def test_an_allocation_that_fails_later_is_the_batch_not_another_process():
    # deepfacelab's allocator line (a batch too large) and an ECC error at context creation
    assert _in_use("E tensorflow/stream_executor/cuda/cuda_driver.cc:1002] failed to allocate 3.39G (3640655872 bytes) from "
                   "device: CUDA_ERROR_OUT_OF_MEMORY\n") == []
    assert _in_use("failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered\n") == []


def test_an_uncorrectable_ecc_error_is_failing_gpu_memory():
    # nagadit/DeepFaceLab_Linux#89 (at context creation) and vllm-project/vllm#5222 (during a run): hardware both times
    def ecc(text):
        return [f for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings if f.id == "gpu-ecc-uncorrected-errors"]

    (f,) = ecc("Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered\n")
    assert f.severity.label == "warning" and f.fix.commands[0] == "nvidia-smi -q -d ECC,PAGE_RETIREMENT"
    assert len(ecc("RuntimeError: CUDA error: uncorrectable ECC error encountered\n")) == 1
    assert ecc("| N/A   34C    P0    25W / 250W |      0MiB / 16280MiB |      0%      Default | Volatile Uncorr. ECC |\n") == []
