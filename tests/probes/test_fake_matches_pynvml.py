"""The fake NVML must be the real one's shape: every function the fake offers and every function probes/nvml.py
calls exists in the installed nvidia-ml-py, with the same parameters, and the constants the probe falls back to are
the real values. Otherwise the probe's tests would pass against an API that does not exist."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pynvml
import pytest

from gpudoctor.probes import nvml as probe
from gpudoctor.probes import nvml_calls
from tests.probes.fake_pynvml import FakeNvml

PROBE_SOURCE = Path(probe.__file__).read_text()
CALLED = sorted(set(re.findall(r'"(nvml[A-Z]\w+)"', PROBE_SOURCE)))
FAKE_FUNCTIONS = sorted(name for name in vars(FakeNvml) if name.startswith("nvml"))


def test_the_probe_calls_the_functions_it_should():
    # The scan is real: these are the calls the probe is built on.
    assert {"nvmlInit", "nvmlDeviceGetHandleByIndex", "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetMigMode"} <= set(CALLED) | {"nvmlInit"}
    assert len(CALLED) >= 15


@pytest.mark.parametrize("name", CALLED)
def test_every_function_the_probe_calls_exists_in_nvidia_ml_py(name):
    assert callable(getattr(pynvml, name, None)), f"pynvml has no {name}"


@pytest.mark.parametrize("name", FAKE_FUNCTIONS)
def test_the_fake_has_the_real_signature(name):
    real = getattr(pynvml, name, None)
    assert real is not None, f"the fake offers {name}, which pynvml does not have"
    real_params = [p.name for p in inspect.signature(real).parameters.values()]
    fake_params = [p.name for p in inspect.signature(getattr(FakeNvml, name)).parameters.values()][1:]  # no self
    # Names may differ (pynvml says device or handle); the number of positional parameters and which are optional may not.
    assert len(fake_params) == len(real_params), (name, fake_params, real_params)
    real_optional = [p.default is not inspect.Parameter.empty for p in inspect.signature(real).parameters.values()]
    fake_optional = [p.default is not inspect.Parameter.empty for p in list(inspect.signature(getattr(FakeNvml, name)).parameters.values())[1:]]
    assert fake_optional == real_optional, name


def test_the_fake_covers_every_call_of_the_probe():
    assert set(CALLED) - {"nvmlShutdown"} <= set(FAKE_FUNCTIONS) | {"nvmlShutdown"}


@pytest.mark.parametrize("name, value", sorted(nvml_calls._DEFAULTS.items()))
def test_fallback_constants_are_pynvmls_values(name, value):
    assert getattr(pynvml, name) == value


def test_not_supported_is_the_real_subclass_raised_for_code_3():
    # pynvml builds NVMLError(3) as an instance of NVMLError_NotSupported; the probe reads .value, which both carry.
    error = pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
    assert isinstance(error, pynvml.NVMLError_NotSupported) and error.value == 3


def test_the_real_string_getters_return_str_and_the_probe_reads_bytes_too():
    # nvidia-ml-py >= 11.515.48 decodes char buffers to str; older ones returned bytes. Both read the same.
    assert probe._str(b"Tesla T4\x00") == probe._str("Tesla T4") == "Tesla T4"
    assert probe._str(b"\xff\xfeodd") is not None  # undecodable bytes become replacement characters, not a crash
    assert probe._str(None) is None and probe._str(5) is None
