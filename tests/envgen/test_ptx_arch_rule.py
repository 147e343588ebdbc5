"""The solver's PTX rule: a build whose CUDA is older than the first CUDA that compiles for a GPU's architecture
(cuda.toml [[targets]]) cannot run on that GPU, PTX or not: the CUDA libraries it loads have no code for it."""

from __future__ import annotations

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.model import arch_support, cc_tuple
from gpudoctor.matrix.solver.solve import NoFit, Target, solve

MATRIX = load_matrix()


def h100(python):
    return Target(os="linux", python=python, driver_version="550.54.15", driver_cuda=None, compute_capabilities=("9.0",))


def test_python_36_on_an_h100_no_longer_gets_torch_151_cu102_through_ptx():
    with pytest.raises(NoFit) as exc:
        solve(MATRIX, h100("3.6"), "torch", "1.5")
    assert any("CUDA 10.2 predates that architecture" in r and "CUDA >= 11.8" in r for r in exc.value.reasons), exc.value.reasons
    choice = solve(MATRIX, h100("3.6"), "torch")  # nothing for Python 3.6: another Python, said so
    assert choice.python != "3.6" and choice.reasons[0].startswith("Python 3.6 has no wheel")
    assert all("PTX" not in n for n in choice.notes) or choice.cuda >= "11.8"


@pytest.mark.parametrize("framework", ["torch", "tensorflow"])
@pytest.mark.parametrize("python", ["3.6", "3.7", "3.8", None])
def test_no_choice_reaches_a_gpu_through_ptx_older_than_its_architecture(framework, python):
    try:
        choice = solve(MATRIX, h100(python), framework)
    except NoFit:
        return
    known = MATRIX.cuda_targets_for(choice.cuda)
    assert known is not None and cc_tuple(known.max_cc) >= cc_tuple("9.0"), choice.label


def test_same_major_sass_is_not_affected():
    """sm_80 SASS runs on an 8.6 GPU (binary compatible): the rule is about PTX only."""
    rtx3090 = Target(os="linux", python="3.8", driver_version="470.82.01", driver_cuda=None, compute_capabilities=("8.6",))
    choice = solve(MATRIX, rtx3090, "tensorflow", "2.4")
    assert choice.cuda == "11.0" and arch_support(MATRIX.tf_release("2.4.0").arch, "8.6") == "sass"
