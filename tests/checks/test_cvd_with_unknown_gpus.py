"""CUDA_VISIBLE_DEVICES set (in a script, or for one command) and CUDA found no GPU, with the GPU list unknown
(checks/environment.py)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix

NO_GPUS = "RuntimeError: No CUDA GPUs are available\n"


def _found(text: str) -> dict[str, str]:
    return {f.id: f.severity.label for f in run_checks(read_evidence(text, "paste"), load_matrix(), "paste").findings}


def test_a_script_setting_it_and_no_gpus_names_the_variable():
    # https://github.com/Grace9994/CoMoSVC/issues/6 (the script's line)
    assert _found("os.environ[\"CUDA_VISIBLE_DEVICES\"]='1'\n" + NO_GPUS).get("cuda-visible-devices-hides-all-gpus") == "warning"


def test_set_for_one_command_and_checked_against_a_stated_gpu():
    # https://github.com/endernewton/tf-faster-rcnn/issues/38: "$0" is the script's name, which names no GPU
    text = ("`CUDA_VISIBLE_DEVICES=$0 ./tools/demo.py `\n"
            "I get greeted with \"no CUDA-capable device is detected\" - however I have a TITAN X on Ubuntu 16.04\n")
    assert _found(text).get("cuda-visible-devices-hides-all-gpus") == "error"


def test_set_without_a_failure_is_no_finding():
    assert "cuda-visible-devices-hides-all-gpus" not in _found("os.environ['CUDA_VISIBLE_DEVICES'] = '0'\n")
