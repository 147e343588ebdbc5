"""xformers' per-operator "xFormers wasn't build with CUDA support": its compiled kernels did not load, most often a
wheel built for another torch (a warning); with its import warning naming both torch releases, the error rule speaks
and this line joins its evidence (matrices/signatures.toml)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Severity

# https://github.com/yufu-wang/PromptHMR/issues/4 (development corpus), the reasons under the operator list
REASONS = """NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:
     query       : shape=(8, 3349, 16, 64) (torch.float16)
`fa2F@v2.5.7-pt` is not supported because:
    xFormers wasn't build with CUDA support
`cutlassF-pt` is not supported because:
    xFormers wasn't build with CUDA support
"""
IMPORT_WARNING = """WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.5.1+cu124 with CUDA 1204 (you have 2.6.0+cu124)
"""


def _extension(text: str):
    report = run_checks(read_evidence(text, "paste"), load_matrix())
    return [f for f in report.findings if f.id == "torch-extension-built-for-other-torch"]


def test_the_reasons_alone_are_a_warning_that_says_how_to_tell():
    (f,) = _extension(REASONS)
    assert f.severity == Severity.WARNING
    assert f.title.startswith("xformers runs without its CUDA kernels: most often")
    assert f.evidence[0] == "log: xFormers wasn't build with CUDA support"
    assert f.fix.commands[0].startswith("python -m xformers.info")


def test_with_the_import_warning_the_definite_rule_leads_and_keeps_both_lines():
    (f,) = _extension(IMPORT_WARNING + REASONS)
    assert f.severity == Severity.ERROR
    assert f.title.startswith("A compiled torch extension")
    assert "log: xFormers wasn't build with CUDA support" in f.evidence
    assert any("you have 2.6.0+cu124" in line for line in f.evidence)
