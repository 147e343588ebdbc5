"""cuDNN asked for by file name of one major, another major installed: the needed major is missing
(checks/cudnn_majors.py)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

# https://github.com/OpenNMT/CTranslate2/issues/1780 (whisperX on Windows beside a torch >= 2.4)
LOCATE_8 = "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!\n"


def _ids(text: str) -> dict[str, str]:
    return {f.id: f.severity.label for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings}


def test_cudnn_8_asked_for_beside_the_cudnn_9_wheel_is_a_version_mismatch():
    found = _ids(LOCATE_8 + "nvidia-cudnn-cu12==9.1.0.70\n")
    assert found.get("cudnn-version-mismatch") == "error"


def test_cudnn_8_asked_for_beside_cudnn_8_is_only_off_the_loader_path():
    found = _ids(LOCATE_8 + "nvidia-cudnn-cu11==8.9.2.26\n")
    assert "cudnn-version-mismatch" not in found and found.get("cudnn-not-on-loader-path") == "error"


def test_a_sentence_with_a_link_still_states_the_cudnn_it_names():
    # https://github.com/SYSTRAN/faster-whisper/issues/885: the reporter's sentence carries a link
    words = "The thing is, I have installed cudnn-9.2 as per Nvidia's official instructions. (https://developer.nvidia.com/cudnn-downloads)\n"
    found = _ids("Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or directory\n" + words)
    assert found.get("cudnn-version-mismatch") == "error"
