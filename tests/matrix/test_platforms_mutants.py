"""platforms.toml loader: each field it reads is kept, optional tables default to empty, and a bad image status is
refused naming the file and the image (issue 11: mutants of gpudoctor/matrix/platforms.py that the suite let live)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix.tables.platforms import CudaImage, load_platforms
from gpudoctor.resources import matrices_dir

if sys.version_info >= (3, 11):
    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


# The three tables platforms.toml must have; everything else in it is optional.
REQUIRED = """
[torch]
macos_x86_64_last = "2.2"
linux_aarch64_cuda_since = "2.11"
linux_aarch64_arch = ["sm_80"]

[tensorflow]
macos_x86_64_last = "2.16"
macos_arm64_since = "2.13"
linux_aarch64_gpu = false

[jetson]
cc = ["8.7"]
wheels_url = "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html"
torch_container = "nvcr.io/nvidia/l4t-pytorch"
tensorflow_container = "nvcr.io/nvidia/l4t-tensorflow"
"""
IMAGE = """
[[cuda_image]]
cuda = "11.8"
cudnn = "8"
image = "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"
python = "3.10"
apt_pythons = ["3.10"]
status = "{status}"
status_seen = "2025-12-15"
status_sources = {sources}
"""


@pytest.fixture
def shipped():
    # Read with the loader itself: load_matrix() caches its result (in memory and on disk), so under a mutant of
    # load_platforms it would still hand back the table the unmutated loader built.
    return load_platforms(matrices_dir(), tomllib)


def _load(tmp_path: Path, text: str):
    (tmp_path / "platforms.toml").write_text(text, encoding="utf-8")
    return load_platforms(tmp_path, tomllib)


def test_a_deleted_image_keeps_its_pip_upgrade_and_status(shipped):
    assert shipped.cuda_image("9.0") == CudaImage(
        cuda="9.0", cudnn="7", image="nvidia/cuda:9.0-cudnn7-runtime-ubuntu16.04", python="3.5", apt_pythons=("3.5",),
        pip_upgrade="pip<21", status="deleted", status_seen="2023-07",
        status_sources=("https://github.com/NVIDIA/cudf-spark-examples/pull/311", "https://github.com/NVIDIA/nvidia-docker/issues/1790"),
    )
    assert shipped.cuda_image("11.8").pip_upgrade is None  # the row names none: the image's pip is new enough


def test_each_jetson_container_is_kept_under_its_framework(shipped):
    assert shipped.jetson_container("torch") == "nvcr.io/nvidia/l4t-pytorch"
    assert shipped.jetson_container("tensorflow") == "nvcr.io/nvidia/l4t-tensorflow"
    assert shipped.jetson_container("jax") is None


def test_the_shipped_reason_tensorflow_1_x_has_no_gpu_route(shipped):
    assert shipped.tf_unavailable_why("1.2", "5.1") == (
        "its GPU build needs CUDA 8.0 with exactly cuDNN 5 (libcudnn.so.5), and no source gpudoctor writes still has them: "
        "conda-forge starts at CUDA 9.2 / cuDNN 7.6, and NVIDIA deleted the nvidia/cuda:8.0 images from Docker Hub and NGC in 2023")
    assert shipped.tf_unavailable_why("1.5", "7.0") is None


def test_a_file_with_only_the_required_tables_loads_with_empty_optional_ones(tmp_path):
    p = _load(tmp_path, REQUIRED)
    assert (p.cuda_images, p.tf_linux_conda, p.tf_linux_system, p.tf_linux_unavailable) == ((), (), (), ())
    assert p.tf_linux_unavailable_why == "" and p.tf_unavailable_why("1.0", "5.1") is None
    assert (p.aarch64_gpu_prefixes, p.sources, p.conda_image) == ((), (), None)
    assert p.jetson_containers == (("torch", "nvcr.io/nvidia/l4t-pytorch"), ("tensorflow", "nvcr.io/nvidia/l4t-tensorflow"))


def test_unavailable_series_without_a_why_read_as_an_empty_reason(tmp_path):
    p = _load(tmp_path, REQUIRED + '\n[tf_linux_unavailable]\nseries = ["1.0"]\n')
    assert p.tf_linux_unavailable == ("1.0",) and p.tf_linux_unavailable_why == ""


def test_an_image_status_outside_the_known_ones_names_the_file_and_image(tmp_path):
    with pytest.raises(MatrixError) as caught:
        _load(tmp_path, REQUIRED + IMAGE.format(status="gone", sources='["https://hub.docker.com/r/nvidia/cuda"]'))
    assert str(caught.value) == ("matrices/platforms.toml: image 'nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04': "
                                 "status 'gone' is not one of available, deleted, unconfirmed")


def test_an_image_status_without_sources_names_the_file_and_image(tmp_path):
    with pytest.raises(MatrixError) as caught:
        _load(tmp_path, REQUIRED + IMAGE.format(status="available", sources="[]"))
    assert str(caught.value) == ("matrices/platforms.toml: image 'nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04': "
                                 "status_sources is empty")
