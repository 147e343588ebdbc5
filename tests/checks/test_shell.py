"""Issue 20, class 9: a variable set at the prompt without export never reaches the program."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix


def _ids(text: str) -> list[str]:
    return [f.id for f in run_checks(read_evidence(text), load_matrix()).findings]


def test_a_prompt_assignment_without_export_is_named():
    facts = read_evidence("$ HSA_OVERRIDE_GFX_VERSION=10.3.0\n$ python -c 'import torch; print(torch.cuda.is_available())'\nFalse\n")
    assert facts.host is None or not (facts.host.env or {}).get("HSA_OVERRIDE_GFX_VERSION")  # not in the program's environment
    (finding,) = [f for f in run_checks(facts, load_matrix()).findings if f.id == "shell-variable-not-exported"]
    assert finding.fix.commands == ("export HSA_OVERRIDE_GFX_VERSION=10.3.0",)


def test_exported_or_env_output_is_the_environment():
    assert "shell-variable-not-exported" not in _ids("$ export HSA_OVERRIDE_GFX_VERSION=10.3.0\n")
    assert "shell-variable-not-exported" not in _ids("HSA_OVERRIDE_GFX_VERSION=10.3.0\n")  # `env` output: exported
    assert read_evidence("$ export CUDA_VISIBLE_DEVICES=1\n").host.env == {"CUDA_VISIBLE_DEVICES": "1"}


def test_uname_on_a_mac_tells_rosetta():
    """Issue 20, class 9: `uname -a` names an Apple-silicon kernel and an x86_64 shell: Python under Rosetta."""
    text = ("Darwin MacBook-Pro.local 21.6.0 Darwin Kernel Version 21.6.0: Mon Aug 22 20:20:07 PDT 2022; "
            "root:xnu-8020.140.49~2/RELEASE_ARM64_T8101 x86_64\n")
    assert "apple-python-under-rosetta" in _ids(text)
    native = text.replace(" x86_64\n", " arm64\n")
    assert "apple-python-under-rosetta" not in _ids(native)
    intel = text.replace("RELEASE_ARM64_T8101", "RELEASE_X86_64")
    assert read_evidence(intel).host.apple.rosetta is None  # an Intel Mac: no Rosetta question


def test_a_traceback_names_the_framework_that_failed_to_load_a_library():
    """A library line that names no framework belongs to the framework whose traceback it ends (class: attribution)."""
    text = ('  File "/home/u/venv/lib64/python3.11/site-packages/torch/__init__.py", line 427, in <module>\n'
            "    from torch._C import *  # noqa: F403\n"
            "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n")
    facts = read_evidence(text)
    assert facts.frameworks.torch.path == "/home/u/venv/lib64/python3.11/site-packages/torch"
    ids = _ids(text)
    assert "cuda-library-not-on-loader-path" in ids and "tf-missing-gpu-libs" not in ids


def test_an_exported_variable_in_markdown_inline_code_is_read():
    # https://github.com/thuml/Autoformer/issues/25: "`export CUDA_VISIBLE_DEVICES=1`" quoted in the post
    from gpudoctor.evidence import read_evidence

    assert read_evidence("`export CUDA_VISIBLE_DEVICES=1`\n", "post").host.env == {"CUDA_VISIBLE_DEVICES": "1"}
    assert read_evidence("`export CUDA_VISIBLE_DEVICES=1` and then\n", "post").host is None  # a sentence, not a command
