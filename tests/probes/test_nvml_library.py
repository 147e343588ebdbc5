"""The dlopen check that spares `check` the pynvml import on machines without an NVIDIA driver."""

from __future__ import annotations

import ctypes
import sys

import pytest

from gpudoctor.errors import ProbeFailed
from gpudoctor.probes import nvml as nvml_probe


def _no_library(name, *args, **kwargs):
    raise OSError(f"{name}: cannot open shared object file: No such file or directory")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check is Linux-only; elsewhere pynvml decides")
def test_without_the_library_the_probe_fails_as_pynvml_would_and_never_imports_it(monkeypatch):
    import pynvml

    real_text = str(pynvml.NVMLError(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND))
    monkeypatch.setattr(ctypes, "CDLL", _no_library)
    monkeypatch.delitem(sys.modules, "pynvml")
    with pytest.raises(ProbeFailed) as failure:
        nvml_probe.probe_nvml()
    assert str(failure.value) == real_text == nvml_probe.LIBRARY_NOT_FOUND
    assert "pynvml" not in sys.modules


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check is Linux-only; elsewhere pynvml decides")
def test_with_the_library_loadable_the_real_binding_is_used(monkeypatch):
    loaded: list[str] = []
    monkeypatch.setattr(ctypes, "CDLL", lambda name, *a, **k: loaded.append(name))
    binding = nvml_probe._import_pynvml()
    assert loaded == ["libnvidia-ml.so.1"]
    assert hasattr(binding, "nvmlInit") and hasattr(binding, "NVMLError")
