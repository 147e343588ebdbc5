"""torch cannot load a CUDA library it needs: the library is not on the loader path (cuda-library-not-on-loader-path,
messages.py), including the CUDA libraries newer torch wheels link (cuDSS, nvJitLink, cuSPARSELt, NCCL)."""

from __future__ import annotations

import pytest

from tests.checks.pasted import severities as _ids



def test_torch_2_8_on_a_jetson_without_cudss():
    # NVIDIA/Isaac-GR00T#343: JetPack 6.2 has no cuDSS, which the torch 2.8 Jetson wheel links
    text = ("When I download torch 2.8 and try to import torch, i get the following error\n"
            "ImportError: libcudss.so.0: cannot open shared object file: No such file or directory\n")
    assert _ids(text).get("cuda-library-not-on-loader-path") == "error"


@pytest.mark.parametrize("soname", ["libnvJitLink.so.12", "libcusparseLt.so.0", "libnccl.so.2", "libcufile.so.0"])
def test_the_same_class_with_the_other_libraries_torch_wheels_link(soname):
    text = ('  File "/home/u/venv/lib/python3.10/site-packages/torch/__init__.py", line 245, in _load_global_deps\n'
            "    ctypes.CDLL(lib_path)\n"
            f"OSError: {soname}: cannot open shared object file: No such file or directory\n")
    assert _ids(text).get("cuda-library-not-on-loader-path") == "error"


def test_a_library_that_is_no_cuda_library_is_not_this_finding():
    text = ('  File "/home/u/venv/lib/python3.10/site-packages/torch/__init__.py", line 245, in _load_global_deps\n'
            "OSError: libgomp.so.1: cannot open shared object file: No such file or directory\n")
    assert "cuda-library-not-on-loader-path" not in _ids(text)
