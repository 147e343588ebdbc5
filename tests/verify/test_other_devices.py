"""verify --device mps / xpu / directml: device selection and reporting, with fakes that have the real APIs' names
(torch.backends.mps: is_built/is_available; torch.xpu: is_available/device_count/get_device_name; torch_directml:
is_available/device/device_name/default_device). Nothing here has that hardware; the agreement and placement checks
run on the resolved device as they do for CUDA (gpudoctor/verify/torch_cases/case.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

torch = pytest.importorskip("torch")

from gpudoctor.verify import DEVICE_PATTERN, _place  # noqa: E402
from gpudoctor.verify.model import NoDevice, SmokeResult, SmokeStatus  # noqa: E402
from gpudoctor.workloads import torch_device as dev  # noqa: E402
from tests.verify.fake_cuda import FakeTf, FakeTorchCuda, Gpu  # noqa: E402


@dataclass
class FakeMps:
    built: bool = True
    available: bool = True

    def is_built(self) -> bool:
        return self.built

    def is_available(self) -> bool:
        return self.available


@dataclass
class FakeXpu:
    names: tuple[str, ...] = ("Intel(R) Arc(TM) A770 Graphics",)

    def is_available(self) -> bool:
        return bool(self.names)

    def device_count(self) -> int:
        return len(self.names)

    def get_device_name(self, index: int = 0) -> str:
        return self.names[index]


class FakeDirectml:
    def __init__(self, available: bool = True):
        self.available = available

    def is_available(self) -> bool:
        return self.available

    def default_device(self) -> int:
        return 0

    def device(self, index: int = 0):
        return torch.device("cpu")  # the real one is privateuseone:0; a CPU tensor device keeps the fake runnable

    def device_name(self, index: int) -> str:
        return "AMD Radeon RX 6600"


NO_CUDA = FakeTorchCuda()


@pytest.mark.parametrize("value", ["mps", "xpu", "xpu:1", "directml"])
def test_device_pattern_takes_the_new_devices(value):
    assert DEVICE_PATTERN.match(value)


def test_mps_is_chosen_and_named():
    device, name, note = dev.resolve_device("mps", NO_CUDA, mps=FakeMps())
    assert (device.type, name, note) == ("mps", "Apple GPU (MPS)", None)


def test_mps_missing_says_why():
    with pytest.raises(NoDevice, match="not built with MPS"):
        dev.resolve_device("mps", NO_CUDA, mps=FakeMps(built=False, available=False))
    with pytest.raises(NoDevice, match="macOS 12.3"):
        dev.resolve_device("mps", NO_CUDA, mps=FakeMps(built=True, available=False))


def test_xpu_by_index_and_missing():
    device, name, _ = dev.resolve_device("xpu:1", NO_CUDA, xpu=FakeXpu(("Arc A770", "Arc B580")))
    assert (str(device), name) == ("xpu:1", "Arc B580")
    with pytest.raises(NoDevice, match="sees 1"):
        dev.resolve_device("xpu:3", NO_CUDA, xpu=FakeXpu())
    with pytest.raises(NoDevice, match="whl/xpu"):
        dev.resolve_device("xpu", NO_CUDA, xpu=FakeXpu(()))


def test_auto_prefers_cuda_then_mps_then_xpu_then_cpu():
    cuda = FakeTorchCuda([Gpu("NVIDIA L4", (8, 9))])
    assert str(dev.resolve_device("auto", cuda, mps=FakeMps(), xpu=FakeXpu())[0]) == "cuda:0"
    assert str(dev.resolve_device("auto", NO_CUDA, mps=FakeMps(), xpu=FakeXpu())[0]) == "mps"
    assert str(dev.resolve_device("auto", NO_CUDA, mps=FakeMps(available=False), xpu=FakeXpu())[0]) == "xpu:0"
    device, _, note = dev.resolve_device("auto", NO_CUDA, mps=FakeMps(built=False, available=False), xpu=FakeXpu(()))
    assert device.type == "cpu" and note.startswith("no CUDA device is visible")


def test_directml_resolves_through_torch_directml():
    _, name, _ = dev.resolve_device("directml", NO_CUDA, directml=FakeDirectml())
    assert name == "AMD Radeon RX 6600"
    with pytest.raises(NoDevice, match="is_available"):
        dev.resolve_device("directml", NO_CUDA, directml=FakeDirectml(available=False))


def test_directml_not_installed_on_this_machine():
    import importlib.util

    if importlib.util.find_spec("torch_directml") is not None:
        pytest.skip("torch-directml is installed here")
    with pytest.raises(NoDevice, match="pip install torch-directml"):
        dev.resolve_device("directml", NO_CUDA)


def test_same_device_compares_xpu_indices():
    assert dev.same_device(torch.device("xpu:1"), torch.device("xpu:1"))
    assert not dev.same_device(torch.device("xpu:0"), torch.device("xpu:1"))
    assert dev.same_device(torch.device("mps"), torch.device("mps:0"))


@pytest.mark.parametrize(("device", "name", "place"), [
    ("mps", "Apple GPU (MPS)", "on Apple GPU (MPS) (mps)"),
    ("xpu:0", "Arc A770", "on Arc A770 (xpu:0)"),
    ("privateuseone:0", "AMD Radeon RX 6600", "on AMD Radeon RX 6600 (privateuseone:0)"),
])
def test_the_report_says_which_accelerator_ran(device, name, place):
    result = SmokeResult("torch", "cnn", SmokeStatus.PASSED, device=device, device_name=name)
    assert _place(result) == place


def test_tensorflow_metal_device_is_named_mps():
    from gpudoctor.verify.tf_cases import device as tf_dev

    tf = FakeTf([Gpu("METAL", (0, 0))])
    chosen, note = tf_dev.resolve_device("mps", tf)
    assert (chosen.tf_name, chosen.name, note) == ("/GPU:0", "mps", None)
    with pytest.raises(NoDevice, match="tensorflow-metal"):
        tf_dev.resolve_device("mps", FakeTf([], cuda_build=False))


# -- why a CUDA build of torch ran on the CPU: torch's own reason, which is_available() swallows -------------------

TOO_OLD = ("The NVIDIA driver on your system is too old (found version 11070). Please update your GPU driver by "
           "downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx")


def test_the_reason_is_the_first_sentence_torch_raises(monkeypatch):
    def init():
        raise RuntimeError(TOO_OLD)

    monkeypatch.setattr(torch.cuda, "init", init)
    assert dev.cuda_init_error() == "torch says: The NVIDIA driver on your system is too old (found version 11070)"
    if torch.version.cuda and not getattr(torch.version, "hip", None):
        assert dev.why_no_cuda() == (f" (torch {torch.__version__} is a CUDA {torch.version.cuda} build; "
                                     "torch says: The NVIDIA driver on your system is too old (found version 11070))")


def test_without_a_raised_reason_the_general_one_stays(monkeypatch):
    monkeypatch.setattr(torch.cuda, "init", lambda: None)
    assert dev.cuda_init_error() is None
    if torch.version.cuda and not getattr(torch.version, "hip", None):
        assert dev.why_no_cuda().endswith("build; no driver or GPU is visible)")
    monkeypatch.setattr(torch.cuda, "init", lambda: (_ for _ in ()).throw(RuntimeError("  ")))
    assert dev.cuda_init_error() is None
