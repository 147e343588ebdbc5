"""gpudoctor.matrix.queries and every `gpudoctor matrix` subcommand: the text answer, the --json answer (the same
dataclass), and an unknown release (one line naming the known ones, exit 2)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gpudoctor.cli import main
from gpudoctor.errors import UnknownRelease
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix import queries as q
from gpudoctor.matrix.solver.solve import driver_verdict

M = load_matrix()


def invoke(*args: str):
    return CliRunner().invoke(main, ["matrix", *args])


def as_json(*args: str) -> dict:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["schema"] == "gpudoctor.matrix/1" and data["matrix_reviewed"] == M.reviewed
    return data


@pytest.mark.parametrize(
    ("args", "lines"),
    [
        (("torch", "2.7.1+cu128"), ["    cu128  CUDA 12.8  driver >= 525.60.13 Linux / 528.33 Windows",
                                    "           pip install torch==2.7.1 torchvision==0.22.1 --index-url https://download.pytorch.org/whl/cu128"]),
        (("tf", "2.15"), ["  Keras           keras==2.15.* (tf.keras is the keras package)"]),
        (("tf", "2.16"), ["  Keras           keras>=3.0.0 (tf.keras is Keras 3); Keras 2 code: tf-keras==2.16.* and TF_USE_LEGACY_KERAS=1"]),
        (("cuda", "12.8"), ["  12.8 GA            driver >= 570.26 Linux / 570.65 Windows"]),
        (("cuda", "10.2"), ["  no minor-version compatibility before CUDA 11: the driver must be at least the release's own"]),
        (("cudnn", "9.11"), ["  compute capability 7.5 … newest"]),
        (("gpu", "RTX 4090"), ["RTX 4090: compute capability 8.9 (Ada Lovelace)"]),
        (("driver", "470.82.01"), ["driver 470.82.01 (linux): supports CUDA 11.4"]),
        (("driver", "R535"), ["driver branch R535 (linux): supports CUDA 12.2 from 535.54.03 on"]),
        (("keras", "2.3.1"), ["keras 2.3.1: multi-backend", "  TensorFlow      >=1.13,<2.1 (in the matrix: 1.13, 1.14, 1.15, 2.0)"]),
        (("keras", "2.13.1"), ["keras 2.13.1: tf.keras of TensorFlow 2.13", "  TensorFlow      2.13"]),
        (("keras", "3.3.3"), ["keras 3.3.3: keras 3", "  TensorFlow      2.16, 2.17"]),
        (("keras", "--tf", "2.13.1"), ["Keras for tensorflow 2.13", "  install         pip install 'keras==2.13.*'"]),
        (("keras", "--tf", "1.15"), ["  Keras           tf.keras is part of TensorFlow 1.15: install no separate keras"]),
    ],
)
def test_text_answers(args, lines):
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    for line in lines:
        assert line in out
    assert f"Matrix reviewed {M.reviewed}. Sources: gpudoctor matrix --sources" in out


def test_summary_lists_the_keras_table():
    assert "Keras       standalone 2.2, 2.3, 2.4; the Keras of TensorFlow 2.6–2.21 (tf.keras inside TensorFlow up to 2.5, Keras 3 from 2.16)" \
        in invoke().output.splitlines()
    data = as_json()
    assert data["keras"]["keras3_since"] == "2.16" and "keras.toml" in data["files"]


def test_json_is_the_query_answer():
    assert as_json("tf", "2.16")["keras"] == {
        "tensorflow": "2.16", "tf_keras_is": "keras 3", "requirements": ["keras>=3.0.0"], "legacy_requirements": ["tf-keras==2.16.*"],
        "legacy_env": [["TF_USE_LEGACY_KERAS", "1"]], "note": None, "sources": list(M.keras.for_tf("2.16").sources)}
    assert as_json("keras", "2.2.5")["tensorflow"] == "<2.0"
    assert as_json("keras", "--tf", "2.15")["requirements"] == ["keras==2.15.*"]
    assert as_json("driver", "535")["branch"] == 535
    assert as_json("driver", "535.104.05")["minor_version_compatible"] == ["11.x", "12.x"]
    assert as_json("cudnn", "8.9.7")["row"] == q.cudnn_info(M, "8.9.7").row
    assert as_json("cuda", "12.8")["minor_version_floor"] == {"linux": "525.60.13", "windows": "528.33"}
    gpu = as_json("gpu", "8.9")
    assert gpu["compute_capability"] == "8.9" and gpu["cuda_toolkits"] == "11.8+" and gpu["cuda_toolkits_until"] is None


def test_every_release_in_the_tables_is_answered():
    for r in M.torch:
        assert q.torch_info(M, r.latest).series == r.series
    for r in M.tensorflow:
        info = q.tf_info(M, r.latest)
        assert info.keras is not None and info.keras.tensorflow == r.series
    for minor in {r.minor for r in M.cuda_releases}:
        assert q.cuda_info(M, minor).cuda == minor
    for r in M.cudnn:
        assert q.cudnn_info(M, r.version).row == r.version
    for g in M.gpus:
        assert q.gpu_info(M, g.names[0]).compute_capability == g.cc
    for row in M.keras.tensorflow:
        assert q.keras_for_tf(M, row.wheel).tensorflow == row.series


def test_driver_floors_are_the_solvers_rule():
    for r in M.torch:
        for v in q.torch_info(M, r.latest).variants:
            if v.cuda:
                assert v.min_driver_linux == driver_verdict(M, v.cuda, None, None, "linux").need
    old = q.tf_info(M, "1.15")  # CUDA 10.0: no minor-version compatibility, the toolkit's own driver
    assert old.min_driver_linux == M.min_driver("10.0", "linux")


def test_exact_release_and_pre_release_parse_with_packaging():
    assert q.torch_info(M, "2.7.1").variants[0].install.startswith("pip install torch==2.7.1 ")
    assert q.torch_info(M, "2.7").variants[0].install.startswith(f"pip install torch=={M.torch_release('2.7').latest} ")
    assert q.keras_info(M, "2.7.0rc0").kind == "tf.keras of TensorFlow 2.7"


def test_driver_branch_below_every_floor():
    info = q.driver_info(M, "R418")
    assert info.minor_version_compatible == () and info.cuda == "10.1"
    assert "runs no build through minor-version compatibility" in invoke("driver", "418").output


@pytest.mark.parametrize(
    ("args", "known"),
    [
        (("torch", "9.9"), "(it knows 1."),
        (("tf", "9.9"), "2.21"),
        (("cuda", "99.1"), "13."),
        (("cudnn", "1.0"), "rows 5.1.10, 6.0.21"),
        (("gpu", "Voodoo 5"), "compute capability 3.0, 3.5"),
        (("driver", "abc"), "a branch such as 535"),
        (("keras", "2.5"), "standalone 2.2, 2.3, 2.4; 2.6–2.15"),
        (("keras", "4.0"), "3.x"),
        (("keras", "--tf", "2.99"), "2.6–2.21"),
        (("torch", "2.7.1+cu999"), "cu126"),
    ],
)
def test_unknown_release_names_the_known_ones(args, known):
    result = invoke(*args)
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert result.output.startswith("gpudoctor: ") and "is not in the matrix (it knows" in result.output
    assert known in result.output


def test_keras_takes_a_release_or_tf_not_both():
    assert invoke("keras").exit_code == 2
    assert invoke("keras", "2.3.1", "--tf", "2.16").exit_code == 2


def test_unknown_release_is_a_typed_error():
    with pytest.raises(UnknownRelease) as exc:
        q.keras_for_tf(M, "2.99")
    assert exc.value.what == "tensorflow" and exc.value.query == "2.99"
