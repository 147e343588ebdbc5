"""ld-library-path-wrong-cuda-libs finding by finding (issue 11: mutation score of checks/tensorflow_libs.py): an
older CUDA runtime or cuDNN first on LD_LIBRARY_PATH, the fix that drops that directory, and the cases it stays silent."""

from __future__ import annotations

import dataclasses

from gpudoctor.checks import tensorflow_libs as t
from gpudoctor.model import Finding, Fix, Section, Severity
from tests.checks.test_version_rules import CASES, MATRIX

LD_URL = "https://docs.nvidia.com/deeplearning/cudnn/latest/installation/linux.html"


def run(rule, facts):
    return list(rule(facts, MATRIX))


# -- ld-library-path-wrong-cuda-libs -----------------------------------------------------------------------------------


def test_an_old_cudnn_first_on_the_loader_path():
    (f,) = run(t.ld_library_path_wrong_cuda_libs, CASES["cluster-ld-cudnn80-before-83"][0])
    assert f == Finding(
        "ld-library-path-wrong-cuda-libs", Severity.ERROR, Section.ENVIRONMENT,
        "LD_LIBRARY_PATH puts cuDNN 8.0.5 before the cuDNN 8.3.2.44+ that torch 1.12.1+cu113 needs",
        ("LD_LIBRARY_PATH=/opt/cudnn-8.0/lib64:/usr/local/cuda-11.3/lib64",
         "the loader finds /opt/cudnn-8.0/lib64/libcudnn.so.8 (cuDNN 8.0.5) first: LD_LIBRARY_PATH wins over the framework's own libraries",
         "torch 1.12.1+cu113 needs cuDNN 8.x >= 8.3.2.44"),
        Fix("Remove /opt/cudnn-8.0/lib64 from LD_LIBRARY_PATH (the framework brings its own cuDNN; also check ~/.bashrc and module files)",
            ("export LD_LIBRARY_PATH=/usr/local/cuda-11.3/lib64",), LD_URL),
    )


def test_an_old_cuda_runtime_alone_on_the_loader_path_is_unset():
    (f,) = run(t.ld_library_path_wrong_cuda_libs, CASES["ld-old-cudart-before-torch-cu121"][0])
    assert f.title == "LD_LIBRARY_PATH puts CUDA runtime 12.0.107 before the CUDA runtime 12.1+ that torch 2.1.2+cu121 needs"
    assert f.evidence[2] == "torch 2.1.2+cu121 needs CUDA runtime 12.x >= 12.1"
    assert f.fix.commands == ("unset LD_LIBRARY_PATH",)


def test_the_ld_rule_is_silent_when_the_path_is_fine_or_unknown():
    assert run(t.ld_library_path_wrong_cuda_libs, CASES["cluster-ld-cudnn89-ok"][0]) == []
    facts = CASES["cluster-ld-cudnn80-before-83"][0]
    assert run(t.ld_library_path_wrong_cuda_libs, dataclasses.replace(facts, host=dataclasses.replace(facts.host, env={}))) == []
    assert run(t.ld_library_path_wrong_cuda_libs, dataclasses.replace(facts, libraries=None)) == []
    assert run(t.ld_library_path_wrong_cuda_libs, dataclasses.replace(facts, host=dataclasses.replace(facts.host, os="windows"))) == []
    other_dir = dataclasses.replace(facts, host=dataclasses.replace(facts.host, env={"LD_LIBRARY_PATH": "/usr/local/cuda-11.3/lib64"}))
    assert run(t.ld_library_path_wrong_cuda_libs, other_dir) == []
    assert list(t.ld_library_path_wrong_cuda_libs(facts, None)) == []
