"""parse_nvidia_smi_xml against eight real `nvidia-smi -q -x` outputs (tests/data/nvidia-smi, see its README), and
probe_smi through a FakeRunner."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.errors import ProbeFailed
from gpudoctor.model import Driver, Gpu, GpuProcess, Pcie
from gpudoctor.probes.smi import probe_smi
from gpudoctor.smi_xml import parse_nvidia_smi_xml
from gpudoctor.runner import CommandResult
from tests.fakes import FakeRunner

DATA = Path(__file__).resolve().parent.parent / "data" / "nvidia-smi"
REAL_SAMPLES = sorted(p.name for p in DATA.glob("*.xml") if not p.name.startswith("garbled-"))


def parse(name: str) -> tuple[Driver, tuple[Gpu, ...]]:
    return parse_nvidia_smi_xml((DATA / name).read_text(encoding="utf-8"))


def test_all_eight_real_samples_are_present() -> None:
    assert len(REAL_SAMPLES) == 8


@pytest.mark.parametrize("name", REAL_SAMPLES)
def test_every_real_sample_gives_every_gpu_its_identity(name: str) -> None:
    driver, gpus = parse(name)
    assert driver.version and driver.cuda_version
    assert gpus and [gpu.index for gpu in gpus] == list(range(len(gpus)))
    for gpu in gpus:
        assert gpu.name and gpu.uuid.startswith("GPU-") and gpu.pci_bus_id.startswith("0000")
        assert gpu.memory_total_mib > 0 and 0 <= gpu.memory_used_mib <= gpu.memory_total_mib
        assert gpu.pcie.gen_max >= gpu.pcie.gen_current >= 1 and gpu.pcie.width_max == 16
        assert gpu.compute_capability is None  # -q -x does not print it; never guessed from the name
        assert gpu.processes is not None


def test_a100_with_mig_enabled() -> None:
    driver, gpus = parse("a100-sxm4-v12.xml")
    assert driver == Driver(version="535.54.03", cuda_version="12.2")
    # attached_gpus says 4, but the published file lists one <gpu>: the count comes from the elements.
    assert gpus == (
        Gpu(
            index=0,
            name="NVIDIA A100-SXM4-80GB",
            uuid="GPU-513536b6-7d19-9063-b049-1e69664bb298",
            pci_bus_id="00000000:01:00.0",
            compute_capability=None,
            memory_total_mib=81920,  # the whole GPU, not a MIG instance's 19968 MiB nested under mig_devices
            memory_used_mib=50,
            pcie=Pcie(gen_current=4, gen_max=4, width_current=16, width_max=16),
            mig_enabled=True,
            ecc_uncorrected_errors=0,
            processes=(),  # <processes />
        ),
    )


def test_dual_a5000_two_gpus_with_the_same_process() -> None:
    driver, gpus = parse("dual_a5000-v13.xml")
    assert driver == Driver(version="590.44.01", cuda_version="13.1")
    assert [(g.index, g.name, g.pci_bus_id, g.memory_total_mib, g.memory_used_mib) for g in gpus] == [
        (0, "NVIDIA RTX A5000", "00000000:81:00.0", 24564, 22437),
        (1, "NVIDIA RTX A5000", "00000000:C1:00.0", 24564, 17253),
    ]
    assert gpus[0].uuid == "GPU-12345678-aaaa-bbbb-cccc-0123456789ab"
    assert gpus[1].uuid == "GPU-12345678-aaaa-bbbb-cccc-0123456789cd"
    server = "/root/src/llama.cpp/build/bin/llama-server"
    assert gpus[0].processes == (GpuProcess(pid=100477, name=server, used_mib=22430),)
    assert gpus[1].processes == (GpuProcess(pid=100477, name=server, used_mib=17246),)
    # Idle link trained down to gen 1; ECC is off on these workstation boards, so counts are N/A -> unknown.
    assert all(g.pcie == Pcie(1, 4, 16, 16) and g.ecc_uncorrected_errors is None for g in gpus)
    assert all(g.mig_enabled is False for g in gpus)


def test_gtx_1660_ti_old_driver_names_it_graphics_device() -> None:
    driver, gpus = parse("gtx-1660-ti.xml")
    assert driver == Driver(version="418.43", cuda_version="10.1")
    (gpu,) = gpus
    assert gpu.name == "Graphics Device"
    assert gpu.uuid == "GPU-304a277d-3545-63b8-3a36-dfde3c992989"
    assert (gpu.memory_total_mib, gpu.memory_used_mib) == (5912, 0)
    assert gpu.pcie == Pcie(gen_current=1, gen_max=3, width_current=16, width_max=16)
    assert gpu.mig_enabled is None  # the 418 schema has no mig_mode element at all
    assert gpu.ecc_uncorrected_errors is None
    assert gpu.processes == ()


def test_quadro_p400_old_ecc_schema_all_na() -> None:
    driver, gpus = parse("quadro-p400.xml")
    assert driver == Driver(version="418.43", cuda_version="10.1")
    (gpu,) = gpus
    assert (gpu.name, gpu.memory_total_mib, gpu.memory_used_mib) == ("Quadro P400", 1998, 0)
    assert gpu.ecc_uncorrected_errors is None  # volatile/double_bit/total is N/A


def test_tesla_t4_ecc_enabled_and_x8_link() -> None:
    driver, gpus = parse("tesla-t4.xml")
    assert driver == Driver(version="515.105.01", cuda_version="11.7")
    (gpu,) = gpus
    assert (gpu.name, gpu.pci_bus_id) == ("Tesla T4", "00000000:00:1E.0")
    assert (gpu.memory_total_mib, gpu.memory_used_mib) == (15360, 1032)
    assert gpu.pcie == Pcie(gen_current=3, gen_max=3, width_current=8, width_max=16)
    assert gpu.ecc_uncorrected_errors == 0
    assert gpu.mig_enabled is False
    assert gpu.processes == (
        GpuProcess(pid=675, name="/usr/lib/xorg/Xorg", used_mib=22),
        GpuProcess(pid=5762, name="python", used_mib=1005),
    )


def test_rtx_3080_on_schema_v12_and_v13() -> None:
    driver12, (gpu12,) = parse("rtx-3080-v12.xml")
    driver13, (gpu13,) = parse("rtx-3080-v13.xml")
    assert driver12 == Driver(version="536.40", cuda_version="12.2")
    assert driver13 == Driver(version="595.58.03", cuda_version="13.2")
    for gpu in (gpu12, gpu13):
        assert gpu.name == "NVIDIA GeForce RTX 3080"
        assert gpu.memory_total_mib == 10240
        assert gpu.ecc_uncorrected_errors is None  # GeForce: N/A
        assert gpu.mig_enabled is False  # current_mig N/A: no MIG on this GPU
    assert (gpu12.memory_used_mib, gpu13.memory_used_mib) == (1128, 9184)
    assert [p.pid for p in gpu12.processes] == [835, 1481, 2214, 4044, 42416]
    assert gpu12.processes[0] == GpuProcess(pid=835, name="/usr/lib/Xorg", used_mib=550)
    assert gpu13.processes == ()  # 9 GiB used, but by processes nvidia-smi could not see (another PID namespace)


def test_blackwell_pro_6000() -> None:
    driver, (gpu,) = parse("pro-6000-maxq-blackwell-v13.xml")
    assert driver == Driver(version="590.44.01", cuda_version="13.1")
    assert gpu.name == "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"
    assert (gpu.memory_total_mib, gpu.memory_used_mib) == (97887, 65720)
    assert gpu.processes == (GpuProcess(116860, "/root/src/llama.cpp/build/bin/llama-server", 65710),)


def test_truncated_output_is_a_probe_failure_not_a_traceback() -> None:
    with pytest.raises(ProbeFailed, match=r"^nvidia-smi -q -x output is not valid XML: no element found"):
        parse("garbled-truncated.xml")


@pytest.mark.parametrize("text", ["", "Failed to initialize NVML: Unknown Error", "\x00\x01\x02", "<a><b></a>"])
def test_garbage_is_a_probe_failure(text: str) -> None:
    with pytest.raises(ProbeFailed, match=r"^nvidia-smi -q -x output is not valid XML: "):
        parse_nvidia_smi_xml(text)


def test_other_xml_document_is_a_probe_failure() -> None:
    with pytest.raises(ProbeFailed) as caught:
        parse_nvidia_smi_xml("<html><body>502 Bad Gateway</body></html>")
    assert str(caught.value) == "nvidia-smi -q -x output is not an nvidia-smi log: its root element is <html>"


def test_placeholders_and_nonsense_values_become_unknown() -> None:
    driver, (first, second) = parse("garbled-values.xml")
    assert driver == Driver(version=None, cuda_version=None)
    assert first == Gpu(
        index=0,
        name=None,
        uuid=None,
        pci_bus_id="00000000:65:00.0",  # from the gpu element's id attribute
        memory_total_mib=None,
        memory_used_mib=None,
        pcie=Pcie(gen_current=None, gen_max=None, width_current=None, width_max=16),
        mig_enabled=False,
        ecc_uncorrected_errors=3,  # the readable counts are summed; N/A ones are skipped
        processes=None,  # "N/A": could not list, which is not "none running"
    )
    assert second.index == 1 and second.pcie is None and second.mig_enabled is None
    # A pid repeated (one entry per MIG instance) is one process with the memory of both.
    assert second.processes == (
        GpuProcess(pid=4242, name="python", used_mib=1500),
        GpuProcess(pid=None, name=None, used_mib=None),
    )


def test_probe_smi_runs_nvidia_smi_and_parses_it() -> None:
    runner = FakeRunner({"nvidia-smi": (DATA / "tesla-t4.xml").read_text(encoding="utf-8")})
    driver, gpus = probe_smi(runner)
    assert runner.calls == [("nvidia-smi", "-q", "-x")]
    assert driver.version == "515.105.01" and [g.name for g in gpus] == ["Tesla T4"]




def test_probe_smi_not_installed() -> None:
    with pytest.raises(ProbeFailed, match=r"^nvidia-smi not found$"):
        probe_smi(FakeRunner())


def test_probe_smi_version_mismatch_reports_its_first_line() -> None:
    stdout = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 570.133\n"
    failed = CommandResult(("nvidia-smi",), 18, stdout)
    with pytest.raises(ProbeFailed) as caught:
        probe_smi(FakeRunner({"nvidia-smi": failed}))
    assert str(caught.value) == "Failed to initialize NVML: Driver/library version mismatch"


def test_probe_smi_failure_message_from_stderr_or_exit_status() -> None:
    with pytest.raises(ProbeFailed, match=r"^No devices were found$"):
        probe_smi(FakeRunner({"nvidia-smi": CommandResult(("nvidia-smi",), 6, "", "\nNo devices were found\n")}))
    with pytest.raises(ProbeFailed, match=r"^nvidia-smi exited with status 255$"):
        probe_smi(FakeRunner({"nvidia-smi": CommandResult(("nvidia-smi",), 255, "", "")}))


def test_probe_smi_timeout_is_reported() -> None:
    hung = CommandResult(("nvidia-smi",), None, error="nvidia-smi: timed out after 10s")
    with pytest.raises(ProbeFailed, match=r"^nvidia-smi: timed out after 10s$"):
        probe_smi(FakeRunner({"nvidia-smi": hung}))


def test_probe_smi_garbage_on_success_is_a_probe_failure() -> None:
    with pytest.raises(ProbeFailed, match="not valid XML"):
        probe_smi(FakeRunner({"nvidia-smi": "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-1)\n"}))


def _t4_as(edit) -> str:
    return edit((DATA / "tesla-t4.xml").read_text(encoding="utf-8"))


def test_drivers_610_and_later_name_the_versions_kmd_and_cuda_umd() -> None:
    # Drivers >= 610 print "KMD Version" and "CUDA UMD Version" where older ones printed "Driver Version" and
    # "CUDA Version"; the real T4 capture with the elements renamed the same way.
    text = _t4_as(lambda t: t.replace("<driver_version>515.105.01</driver_version>", "<kmd_version>610.43.02</kmd_version>")
                  .replace("<cuda_version>11.7</cuda_version>", "<cuda_umd_version>13.3</cuda_umd_version>"))
    assert "<driver_version>" not in text and "<cuda_version>" not in text
    driver, (gpu,) = parse_nvidia_smi_xml(text)
    assert driver == Driver(version="610.43.02", cuda_version="13.3")
    assert gpu.name == "Tesla T4"


@pytest.mark.parametrize("placeholder", ["[N/A]", "[Not Supported]", "[Insufficient Permissions]", "[Unknown Error]",
                                         "[GPU requires reset]", "N/A", "Not Supported"])
def test_bracketed_notes_are_unknown_never_values(placeholder: str) -> None:
    text = _t4_as(lambda t: t.replace("<product_name>Tesla T4</product_name>", f"<product_name>{placeholder}</product_name>")
                  .replace("<uuid>GPU-d37e67a5-91dd-3774-a5cb-99096249601a</uuid>", f"<uuid>{placeholder}</uuid>")
                  .replace("<driver_version>515.105.01</driver_version>", f"<driver_version>{placeholder}</driver_version>"))
    driver, (gpu,) = parse_nvidia_smi_xml(text)
    assert gpu.name is None and gpu.uuid is None and driver.version is None
    assert gpu.memory_total_mib == 15360 and gpu.pci_bus_id  # the rest of the GPU is still read
