"""TF 1.x (to 2.2) wrote build_info.py as module-level names, not a build_info dict: the probe reads both."""

from __future__ import annotations

from gpudoctor.probes.frameworks import probe_tensorflow

# The tail of tensorflow/python/platform/build_info.py in tensorflow_gpu-1.14.0-cp37-cp37m-manylinux1_x86_64.whl
# (PyPI, opened 2026-11-24); the CPU-only tensorflow-1.14.0 wheel has is_cuda_build = False.
TF114_GPU = '''"""Generates a Python module containing information about the build."""
from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

is_cuda_build = True

cuda_version_number = '10.0'
cudnn_version_number = '7'
'''


def _write(tmp_path, text):
    platform = tmp_path / "tensorflow" / "python" / "platform"
    platform.mkdir(parents=True)
    (platform / "build_info.py").write_text(text)
    return tmp_path / "tensorflow"


def test_tf114_module_level_build_info(tmp_path):
    build = probe_tensorflow(_write(tmp_path, TF114_GPU), version="1.14.0")
    assert (build.version, build.is_cuda_build, build.cuda, build.cudnn) == ("1.14.0", True, "10.0", "7")


def test_tf114_cpu_wheel(tmp_path):
    build = probe_tensorflow(_write(tmp_path, "is_cuda_build = False\n"), version="1.14.0")
    assert build.is_cuda_build is False and build.cuda is None
