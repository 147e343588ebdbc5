"""One name set for the frameworks (gpudoctor.matrix.tables.framework): every spelling the CLI, envgen, the solver and
the matrix accept goes through Framework.parse, and the split matrix modules keep their old import paths."""

from __future__ import annotations

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.framework import Framework


@pytest.mark.parametrize("alias, expected", [
    ("torch", Framework.TORCH), ("PyTorch", Framework.TORCH), (" pytorch ", Framework.TORCH),
    ("tensorflow", Framework.TENSORFLOW), ("TF", Framework.TENSORFLOW), (Framework.TORCH, Framework.TORCH),
])
def test_every_spelling_parses_to_one_member(alias, expected):
    assert Framework.parse(alias) is expected


@pytest.mark.parametrize("alias", ["mxnet", "", "torchvision", None])
def test_an_unknown_framework_is_a_value_error(alias):
    with pytest.raises(ValueError, match="unknown framework"):
        Framework.parse(alias)


def test_members_are_their_canonical_strings_everywhere():
    assert Framework.TORCH == "torch" and Framework("tensorflow") is Framework.TENSORFLOW
    assert f"{Framework.TENSORFLOW}" == str(Framework.TENSORFLOW) == "tensorflow"
    assert (Framework.TORCH.label, Framework.TENSORFLOW.label) == ("PyTorch", "TensorFlow")
    assert (Framework.TORCH.short, Framework.TENSORFLOW.short) == ("torch", "tf")
    assert set(Framework.all_aliases()) == {a for fw in Framework for a in fw.aliases} == {"torch", "pytorch", "tensorflow", "tf", "jax"}


def test_the_matrix_answers_for_any_spelling():
    m = load_matrix()
    assert m.python_for("tf", "2.14.1") == m.python_for("tensorflow", "2.14.1") == m.python_for(Framework.TENSORFLOW, "2.14.1")
    assert m.framework_release("pytorch", "2.7.1") is m.torch_release("2.7.1")


def test_the_split_modules_keep_the_old_import_paths():
    from gpudoctor.matrix import MATRIX_FILES, Matrix, MatrixError, _parse_and_validate, _Reader  # noqa: F401
    from gpudoctor.matrix.tables.model import (  # noqa: F401
        TEGRA_CCS, ArchEntry, CudaMajor, CudaRelease, CudaTargets, CudnnRelease, GpuModel, TfRelease, TorchRelease,
        TorchVariant, arch_support, cc_tuple, local_tag, name_tokens, parse_arch, python_span, series, try_vtuple,
        version_ge, vtuple,
    )
    from gpudoctor.matrix.tables.rows import TorchRelease as Row
    assert Row is TorchRelease and Matrix.__module__ == "gpudoctor.matrix.tables.model"
    assert "keras.toml" in MATRIX_FILES
