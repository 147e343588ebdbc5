"""The matrix row readers keep every field they read (issue 11, mutation testing of gpudoctor/matrix/).

Each row is read from a small hand-written TOML document and compared whole with the row it must give, so a reader
that drops or misreads one key fails here. These call the readers directly (no load_matrix(): its cache would hand
back a matrix loaded before the code under test ran)."""

from __future__ import annotations

import dataclasses
try:
    import tomllib  # novermin: tomli stands in below 3.11
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix.tables import row_readers
from gpudoctor.matrix.tables.broken import BrokenRule, parse_rules
from gpudoctor.matrix.tables.gpu_specs import GpuSpec, GpuSpecTable
from gpudoctor.matrix.tables.keras import KerasForTf, load_keras_table
from gpudoctor.matrix.tables.loader import parse_and_validate
from gpudoctor.matrix.tables.reader import Reader
from gpudoctor.matrix.tables.rows import CudaTargets, GpuModel
from gpudoctor.matrix.tables.wheels import WheelRelease, parse_overlay
from gpudoctor.resources import matrices_dir


def _table(file: str, text: str) -> Reader:
    return Reader(file, tomllib.loads(text), "")


def test_cuda_targets_row_keeps_its_note():
    t = _table("cuda.toml", 'since = "13.0"\nmin_cc = "7.5"\nmax_cc = "12.1"\nnote = "Maxwell, Pascal and Volta removed"\n')
    assert row_readers.cuda_targets(t) == CudaTargets("13.0", "7.5", "12.1", "Maxwell, Pascal and Volta removed")


def test_cuda_targets_row_without_a_note_has_none():
    t = _table("cuda.toml", 'since = "12.9"\nmin_cc = "5.0"\nmax_cc = "12.1"\n')
    assert row_readers.cuda_targets(t) == CudaTargets("12.9", "5.0", "12.1", None)


def test_gpu_row_keeps_its_compute_capability():
    t = _table("gpus.toml", 'cc = "8.9"\narchitecture = "Ada Lovelace"\nnames = ["GeForce RTX 4090", "L4"]\n')
    assert row_readers.gpu(t) == GpuModel("8.9", "Ada Lovelace", ("GeForce RTX 4090", "L4"))


def test_gpu_row_with_a_malformed_cc_names_the_file_and_key():
    t = Reader("gpus.toml", {"cc": "8.x", "architecture": "Ada", "names": ["L4"]}, "cc[2]")
    with pytest.raises(MatrixError) as exc:
        row_readers.gpu(t)
    assert str(exc.value) == "matrices/gpus.toml: key 'cc[2].cc': not a plain version: '8.x'"


def test_a_spec_name_in_no_compute_capability_row_is_refused_with_its_names():
    matrix = parse_and_validate(matrices_dir())
    bad = GpuSpecTable(specs=(GpuSpec(name="Imaginary X1 80GB", names=("NVIDIA Imaginary X1",)),))
    with pytest.raises(MatrixError) as exc:
        row_readers.cross_check(dataclasses.replace(matrix, gpu_specs=bad))
    assert str(exc.value) == "matrices/gpus.toml: spec 'Imaginary X1 80GB': 'NVIDIA Imaginary X1' is in no compute-capability row"


KERAS = """
bundled_until = "2.5"
keras3_since = "2.16"
legacy_env = "TF_USE_LEGACY_KERAS"
legacy_values = ["1"]
legacy_sources = ["https://keras.io/getting_started/"]

[[standalone]]
series = "2.4"
kind = "tf.keras redirect"
tensorflow = ">=2.2"
sources = ["https://github.com/keras-team/keras/releases/tag/2.4.0"]

[[tensorflow]]
series = "2.15"
wheel = "2.15.0"
keras = ">=2.15.0,<2.16"
tf_keras = "2.15"
note = "Keras 3 can be reinstalled over it"
sources = ["https://pypi.org/project/tensorflow/2.15.0/"]

[[tensorflow]]
series = "2.16"
wheel = "2.16.1"
keras = ">=3.0.0"
sources = ["https://pypi.org/project/tensorflow/2.16.1/", "https://pypi.org/project/tf-keras/2.16.0/"]
"""


def test_keras_rows_keep_tf_keras_note_and_sources():
    table = load_keras_table(_table("keras.toml", KERAS))
    assert table.tensorflow == (
        KerasForTf("2.15", "2.15.0", ">=2.15.0,<2.16", "2.15", "Keras 3 can be reinstalled over it", ("https://pypi.org/project/tensorflow/2.15.0/",)),
        KerasForTf("2.16", "2.16.1", ">=3.0.0", None, None, ("https://pypi.org/project/tensorflow/2.16.1/", "https://pypi.org/project/tf-keras/2.16.0/")),
    )
    assert table.tensorflow[0].tf_keras_pin == "tf-keras==2.15.*"


def test_keras_row_with_a_bad_source_url_names_the_key():
    text = KERAS.replace('sources = ["https://pypi.org/project/tensorflow/2.15.0/"]', 'sources = ["pypi.org/project/tensorflow"]')
    with pytest.raises(MatrixError) as exc:
        load_keras_table(_table("keras.toml", text))
    assert str(exc.value) == "matrices/keras.toml: key 'tensorflow[0].sources': not a URL: 'pypi.org/project/tensorflow'"


BROKEN = """
reviewed = "2026-11-24"
sources = ["https://github.com/tensorflow/tensorflow/issues/61986"]

[[broken]]
key = "tf214-and-cuda-python311"
framework = "tensorflow"
python = ">=3.11"
symptom = "no-matching-distribution"
subject = "^tensorrt"
title = "no tensorrt wheel for Python {python}"
why = "tensorrt==8.5.3.1 has wheels for CPython 3.6-3.10 only"
fix = "use Python 3.10"
url = "https://github.com/tensorflow/tensorflow/issues/61986"
sources = ["https://github.com/tensorflow/tensorflow/issues/61986"]
"""


def _broken_reader(data, where):
    return Reader("known_broken.toml", data, where)


def test_known_broken_rule_keeps_its_python_range():
    (rule,) = parse_rules(tomllib.loads(BROKEN), _broken_reader)
    assert rule == BrokenRule(
        key="tf214-and-cuda-python311", title="no tensorrt wheel for Python {python}",
        why="tensorrt==8.5.3.1 has wheels for CPython 3.6-3.10 only", fix="use Python 3.10",
        url="https://github.com/tensorflow/tensorflow/issues/61986", sources=("https://github.com/tensorflow/tensorflow/issues/61986",),
        framework="tensorflow", python=">=3.11", symptom="no-matching-distribution", subject="^tensorrt",
    )


def test_known_broken_rule_with_a_bad_python_range_names_the_key():
    with pytest.raises(MatrixError) as exc:
        parse_rules(tomllib.loads(BROKEN.replace('python = ">=3.11"', 'python = "3.11+"')), _broken_reader)
    assert str(exc.value) == "matrices/known_broken.toml: key 'broken[0].python': not a version range clause: '3.11+'"


WHEELS = """
reviewed = "2026-11-24"
sources = ["https://pypi.org/project/tensorflow/#history"]

[[wheel]]
package = "tensorflow"
version = "2.20.0"
requires_python = ">=3.9"
and_cuda_cuda = "12.9"
and_cuda_cudnn = "9.28.0.42"
source = "https://pypi.org/project/tensorflow/2.20.0/#files"
"""


def test_wheel_overlay_keeps_the_cudnn_of_the_and_cuda_extra():
    overlay = parse_overlay(tomllib.loads(WHEELS), lambda data, where: Reader("wheels.toml", data, where))
    assert overlay.get("tensorflow", "2.20.0") == WheelRelease(
        package="tensorflow", version="2.20.0", source="https://pypi.org/project/tensorflow/2.20.0/#files",
        requires_python=">=3.9", and_cuda_cuda="12.9", and_cuda_cudnn="9.28.0.42",
    )


def test_wheel_overlay_refuses_a_malformed_and_cuda_cudnn():
    with pytest.raises(MatrixError) as exc:
        parse_overlay(tomllib.loads(WHEELS.replace('"9.28.0.42"', '"9.x"')), lambda data, where: Reader("wheels.toml", data, where))
    assert str(exc.value) == "matrices/wheels.toml: key 'wheel[0].and_cuda_cudnn': not a plain version: '9.x'"


def test_and_cuda_pythons_leave_out_those_whose_pin_has_no_wheel():
    # tensorflow 2.14's and-cuda extra pins tensorrt==8.5.3.1, which has no CPython 3.11 wheel (wheels.toml)
    wheel = WheelRelease("tensorflow", "2.14.1", "https://pypi.org/project/tensorflow/2.14.1/#files",
                         python=("3.9", "3.10", "3.11"), and_cuda_no_wheel={"3.11": "tensorrt==8.5.3.1"})
    assert wheel.and_cuda_python() == ("3.9", "3.10")


def test_and_cuda_pythons_are_unknown_where_the_wheels_python_is():
    wheel = WheelRelease("tensorflow", "2.14.1", "https://pypi.org/project/tensorflow/2.14.1/#files",
                         and_cuda_no_wheel={"3.11": "tensorrt==8.5.3.1"})
    assert wheel.and_cuda_python() is None


# Survivors of `tools/mutation.sh matrix` in these modules that no test can kill (equivalent mutants, 2026 run):
#   loader.parse_and_validate_13, broken.parse_rules_3: Reader(..., None) for "": Reader._path tests `where` for truth
#   row_readers.tf_release_97: t.str("package", None): `required` is only tested for truth
#   wheels.WheelOverlay.get_8: version.split("+", 2)[0] is split("+", 1)[0]
#   arch.arch_support_5: ptx = None for False: only its truth is read, and `None or x` is x
#   model.Matrix.torch_build_17: the guard is redundant (a None variant returns None on the next line either way)
