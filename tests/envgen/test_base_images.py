"""Every Dockerfile `gpudoctor env` writes starts FROM a base image that still exists: each nvidia/cuda, conda and ROCm
base image row in matrices/ carries a status with its source, and no route renders FROM one that is not "available"
(NVIDIA deletes end-of-life nvidia/cuda tags: gitlab.com/nvidia/container-images/cuda doc/support-policy.md).
The grid of described machines (test_grid.py) checks the same through tests/envgen/parsing.assert_files_mean."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.envgen.describe import target_from_description
from gpudoctor.envgen.plan import make_plan
from gpudoctor.envgen.render import FileSet, render_files
from gpudoctor.errors import MatrixError
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.platforms import load_platforms
from gpudoctor.matrix.tables.rocm import load_rocm

from . import parsing
from .parsing import MATRICES, toml_reader


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def _dockerfile(plan) -> str:
    fileset = FileSet(plan.choice, "t", "t", docker_choice=plan.docker_choice, docker_image=plan.docker_image,
                      docker_pip_upgrade=plan.docker_pip_upgrade, docker_conda_prefix=plan.docker_conda_prefix)
    return render_files(fileset, ("docker",))["Dockerfile"]


def test_every_base_image_row_has_a_status_and_its_source():
    platforms = toml_reader.loads((MATRICES / "platforms.toml").read_text())
    rocm = toml_reader.loads((MATRICES / "rocm.toml").read_text())
    rows = [*platforms["cuda_image"], platforms["conda_image"]]
    for row in rows:
        assert row["status"] in ("available", "deleted", "unconfirmed"), row["image"]
        assert row["status_sources"] and all(s.startswith("https://") for s in row["status_sources"]), row["image"]
        assert row["status_seen"][:4].isdigit(), row["image"]
    for row in rocm["image"]:
        assert row["status"] in ("available", "deleted", "unconfirmed") and row["status_seen"], row["image"]
    # the tags NVIDIA deleted in July 2023 (NVIDIA/cudf-spark-examples#311) are never "available"
    for row in platforms["cuda_image"]:
        if row["image"].split(":")[1].split("-")[0] in ("9.0", "10.0", "10.1", "10.2"):
            assert row["status"] == "deleted", row["image"]


def _tf_series(matrix):
    return [r.series for r in matrix.tensorflow]


@pytest.mark.parametrize("driver", ["418.87.00", "580.65.06"])
def test_no_tensorflow_release_gets_a_dockerfile_from_a_missing_image(matrix, driver):
    """Every TensorFlow series on a Linux GPU machine: the Dockerfile starts FROM an available image, or is not written
    and says why (the series whose CUDA has neither a live nvidia/cuda image nor a conda-forge build)."""
    seen = set()
    for series in _tf_series(matrix):
        target = target_from_description(matrix, ("GeForce GTX 1080 Ti",), driver, "linux", None, None)
        try:
            plan = make_plan(matrix, target, "tensorflow", series)
        except Exception as exc:  # this driver runs no build of the series: nothing is written
            assert type(exc).__name__ == "NoFit", exc
            continue
        if "docker" in plan.formats:
            _, _, image = parsing.dockerfile_pip(_dockerfile(plan))
            assert parsing.base_image_status(image) == "available", (series, image)
            seen.add(image.split(":")[0])
        else:
            (why,) = [w for fmt, w in plan.skipped if fmt == "docker"]
            assert "deleted" in why or "no build fits" in why, (series, why)
    assert "mambaorg/micromamba" in seen  # TF 1.13-2.3 (CUDA 10.0/10.1)
    assert ("nvidia/cuda" in seen) == (driver == "580.65.06")  # TF 2.4-2.13 need a CUDA 11 driver


def test_cuda_9_builds_get_no_dockerfile_and_say_why(matrix, tmp_path):
    target = target_from_description(matrix, ("GeForce GTX 1080 Ti",), "418.87.00", "linux", None, None)
    plan = make_plan(matrix, target, "tensorflow", "1.12")
    assert "docker" not in plan.formats and "conda" in plan.formats
    (why,) = [w for fmt, w in plan.skipped if fmt == "docker"]
    assert "NVIDIA deleted nvidia/cuda:9.0-cudnn7-runtime-ubuntu16.04" in why and "conda-forge has no CUDA 9.0 build" in why


def test_a_tag_marked_deleted_moves_the_build_to_the_conda_image(matrix):
    """The class fix: the day NVIDIA deletes 11.2.2 and the row says so, TF 2.10 moves to conda-forge's CUDA 11.2."""
    target = target_from_description(matrix, ("A100",), "535.104.05", "linux", None, None)
    before = make_plan(matrix, target, "tensorflow", "2.10")
    assert before.docker_image == "nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04" and before.docker_conda_prefix is None
    images = tuple(dataclasses.replace(i, status="deleted") if i.cuda == "11.2" else i for i in matrix.platforms.cuda_images)
    gone = dataclasses.replace(matrix, platforms=dataclasses.replace(matrix.platforms, cuda_images=images))
    after = make_plan(gone, target, "tensorflow", "2.10")
    assert after.docker_image == matrix.platforms.conda_image.image and after.docker_conda_prefix == "/opt/conda"
    assert after.docker_choice.conda_packages == before.choice.conda_packages  # environment.yml's CUDA and cuDNN
    assert dict(after.docker_choice.env) == {"LD_LIBRARY_PATH": "/opt/conda/lib/"}
    text = _dockerfile(after)
    assert parsing.conda_packages(text) == [f"python={after.docker_choice.python}", "pip", "cudatoolkit=11.2", "cudnn=8.1.0"]
    assert "docker run --gpus all" in text and "nvidia/cuda" not in text.split("FROM ", 1)[1]
    no_conda = dataclasses.replace(gone, platforms=dataclasses.replace(gone.platforms, conda_image=dataclasses.replace(gone.platforms.conda_image, status="unconfirmed")))
    plan = make_plan(no_conda, target, "tensorflow", "2.10")
    assert "docker" not in plan.formats and "no available conda base image" in dict(plan.skipped)["docker"]


def test_a_rocm_image_that_is_not_available_is_never_a_base(matrix):
    rocm = matrix.rocm
    assert rocm.image_for("6.4").image == "rocm/dev-ubuntu-22.04:6.4.4"
    images = tuple(dataclasses.replace(i, status="deleted") if i.rocm == "6.4" else i for i in rocm.images)
    assert dataclasses.replace(rocm, images=images).image_for("6.4") is None


@pytest.mark.parametrize("bad, message", [('status = "gone"', "is not one of"), ("status_sources = []", "status_sources is empty")])
def test_a_base_image_row_without_a_valid_status_is_a_matrix_error(tmp_path, bad, message):
    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    text = (MATRICES / "platforms.toml").read_text()
    key = bad.split(" = ")[0]
    start = text.index("[conda_image]")
    line_start = text.index(f"\n{key} = ", start) + 1
    line_end = text.index("\n", line_start)
    (tmp_path / "platforms.toml").write_text(text[:line_start] + bad + text[line_end:])
    with pytest.raises(MatrixError, match=message):
        load_platforms(tmp_path, tomllib)


def test_a_rocm_image_row_without_a_status_is_a_matrix_error(tmp_path):
    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    for name in ("rocm.toml", "amd_gpus.toml"):
        (tmp_path / name).write_text((MATRICES / name).read_text())
    text = (tmp_path / "rocm.toml").read_text()
    (tmp_path / "rocm.toml").write_text(text.replace('status = "available"', 'status = "maybe"', 1))
    with pytest.raises(MatrixError, match="maybe"):
        load_rocm(tmp_path, tomllib)
