"""GPU and driver rules, finding by finding (issue 11: mutation score of checks/gpu.py): no GPU, a GPU without a
driver, nouveau, the NVML version mismatch, the GPU list, busy memory at the 50 % line, ECC, MIG and PCIe width."""

from __future__ import annotations

from gpudoctor.checks import gpu as g
from gpudoctor.model import Driver, Facts, Fix, Gpu, GpuProcess, Libraries, Library, Pcie, PciDevice, Section, Severity, Symptom

R535 = Driver(version="535.104.05", cuda_version="12.2", kernel_module="nvidia", kernel_module_version="535.104.05")
A100 = Gpu(index=0, name="NVIDIA A100-SXM4-40GB", compute_capability="8.0", memory_total_mib=40960, memory_used_mib=4)
UBUNTU = "https://ubuntu.com/server/docs/nvidia-drivers-installation"


def run(rule, facts):
    return list(rule(facts, None))


def one(rule, facts):
    (finding,) = run(rule, facts)
    return finding


def test_no_gpu_pinned():
    f = one(g.no_nvidia_gpu, Facts(gpus=(), pci_devices=()))
    assert (f.id, f.severity, f.section) == ("no-nvidia-gpu", Severity.INFO, Section.GPU)
    assert f.title == "No NVIDIA GPU found: GPU checks are skipped, frameworks will run on the CPU"
    assert f.evidence == ("no NVIDIA device (vendor 10de) on the PCI bus",)
    f = one(g.no_nvidia_gpu, Facts(gpus=(), driver=Driver(nvml_error="NVML Shared Library Not Found")))
    assert f.evidence == ("no GPU reported by the driver", "NVML: NVML Shared Library Not Found")
    assert run(g.no_nvidia_gpu, Facts()) == [] and run(g.no_nvidia_gpu, Facts(gpus=(A100,))) == []


def test_gpu_without_driver_pinned():
    facts = Facts(pci_devices=(PciDevice(bus_id="0000:01:00.0", vendor_id="10de", device_id="2204"), PciDevice()),
                  driver=Driver(nvml_error="Driver Not Loaded"))
    f = one(g.gpu_without_driver, facts)
    assert (f.id, f.severity, f.section) == ("gpu-without-driver", Severity.ERROR, Section.GPU)
    assert f.title == "An NVIDIA GPU is on the PCI bus but no NVIDIA driver is loaded"
    assert f.evidence == ("PCI 0000:01:00.0: NVIDIA device 2204, no kernel driver bound",
                          "PCI (bus id unknown): NVIDIA device (id unknown), no kernel driver bound", "NVML: Driver Not Loaded")
    assert f.fix.commands == ("sudo ubuntu-drivers install   # Ubuntu; other distributions: use the vendor's package", "sudo reboot")
    assert f.fix.url == UBUNTU
    assert run(g.gpu_without_driver, Facts(pci_devices=(PciDevice(bus_id="0000:01:00.0"),), driver=R535)) == []
    assert run(g.gpu_without_driver, Facts(pci_devices=(PciDevice(bus_id="0000:01:00.0", driver="nvidia"),))) == []
    assert one(g.gpu_without_driver, Facts(pci_devices=(PciDevice(bus_id="0000:01:00.0"),))).evidence == (
        "PCI 0000:01:00.0: NVIDIA device (id unknown), no kernel driver bound",)


def test_nouveau_pinned():
    f = one(g.nouveau_loaded, Facts(pci_devices=(PciDevice(bus_id="0000:01:00.0", driver="nouveau"), PciDevice(driver="nouveau"))))
    assert (f.id, f.severity, f.section) == ("nouveau-loaded", Severity.ERROR, Section.GPU)
    assert f.title == "The open-source nouveau driver holds the GPU: CUDA needs the NVIDIA driver"
    assert f.evidence == ("PCI 0000:01:00.0: bound to nouveau", "PCI (bus id unknown): bound to nouveau")
    assert f.fix.commands[0] == "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf"
    assert len(f.fix.commands) == 4 and f.fix.url == UBUNTU
    assert one(g.nouveau_loaded, Facts(driver=Driver(kernel_module="nouveau"))).evidence == ("kernel module nouveau is loaded",)
    assert run(g.nouveau_loaded, Facts(driver=R535, pci_devices=(PciDevice(driver="nvidia"),))) == []


def test_nouveau_from_the_kernel_log():
    log = Symptom("nvidia-probe-not-called", "NVRM: The NVIDIA probe routine was not called for 1 device(s).")
    f = one(g.nouveau_loaded, Facts(symptoms=(log, log)))
    assert f.evidence == (f"log: {log.text}",
                          "the kernel log says another driver (nouveau, nvidiafb, rivafb) took the GPU before nvidia could probe it")
    f = one(g.nouveau_loaded, Facts(driver=Driver(kernel_module="nouveau"), symptoms=(log,)))
    assert f.evidence == ("kernel module nouveau is loaded", f"log: {log.text}")  # the module explains it: no guess line


def test_nvml_mismatch_pinned():
    driver = Driver(nvml_error="Driver/library version mismatch", kernel_module="nvidia", kernel_module_version="535.104.05")
    libs = Libraries(libcuda=(Library("/lib/x86_64-linux-gnu/libcuda.so.1", None), Library("/lib/x86_64-linux-gnu/libcuda.so.1", "550.54.15")))
    f = one(g.nvml_driver_library_mismatch, Facts(driver=driver, libraries=libs))
    assert (f.id, f.severity, f.section) == ("nvml-driver-library-mismatch", Severity.ERROR, Section.GPU)
    assert f.title == "The NVIDIA driver was upgraded but the old kernel module is still loaded"
    assert f.evidence == ("NVML: Driver/library version mismatch", "loaded kernel module: 535.104.05", "user-space driver library (libcuda): 550.54.15")
    assert f.fix.commands[0] == "sudo reboot"
    assert one(g.nvml_driver_library_mismatch, Facts(driver=Driver(nvml_error="Driver/library version MISMATCH"))).evidence == (
        "NVML: Driver/library version MISMATCH",)
    assert run(g.nvml_driver_library_mismatch, Facts(driver=Driver(nvml_error="Driver Not Loaded"))) == []
    assert run(g.nvml_driver_library_mismatch, Facts(driver=R535)) == []
    # https://github.com/NVIDIA/nvidia-docker/issues/584: nvidia-smi said "Function Not Found", nvidia-docker the mismatch
    said = Symptom("nvml-version-mismatch", "nvidia-docker | 2017/12/21 05:04:46 Error: nvml: Driver/library version mismatch")
    f = one(g.nvml_driver_library_mismatch, Facts(driver=Driver(nvml_error="Function Not Found"), symptoms=(said,)))
    assert f.evidence == ("NVML: Function Not Found", f"log: {said.text}")
    assert one(g.nvml_driver_library_mismatch, Facts(symptoms=(said,))).evidence == (f"log: {said.text}",)
    assert run(g.nvml_driver_library_mismatch, Facts(symptoms=(Symptom("cuda-no-device", "x"),))) == []


def test_gpus_found_pinned():
    two = (A100, Gpu(index=1, name=None))
    f = one(g.gpus_found, Facts(gpus=two, driver=R535))
    assert (f.id, f.severity, f.section) == ("gpus-found", Severity.OK, Section.GPU)
    assert f.title == "2 NVIDIA GPUs, driver 535.104.05 (supports CUDA up to 12.2)"
    assert f.evidence == ("GPU 0: NVIDIA A100-SXM4-40GB, compute capability 8.0, 40960 MiB", "GPU 1: unknown model")
    assert one(g.gpus_found, Facts(gpus=(A100,), driver=Driver(kernel_module="nvidia"))).title == "1 NVIDIA GPU, driver (version unknown)"
    assert run(g.gpus_found, Facts(gpus=(A100,))) == []


def _busy(used: int, *processes: GpuProcess) -> Facts:
    return Facts(gpus=(Gpu(index=3, name="NVIDIA A100-SXM4-40GB", memory_total_mib=40000, memory_used_mib=used, processes=processes),))


def test_gpu_memory_in_use_from_half_pinned():
    f = one(g.gpu_memory_in_use, _busy(20000, GpuProcess(pid=4242, name="python", used_mib=19000), GpuProcess(pid=7, used_mib=1000),
                                        GpuProcess(pid=8, name="idle", used_mib=0)))
    assert (f.id, f.severity, f.section) == ("gpu-memory-in-use", Severity.WARNING, Section.GPU)
    assert f.title == "GPU 3: NVIDIA A100-SXM4-40GB has 50% of its memory in use by other processes"
    assert f.evidence == ("20000 of 40000 MiB used", "pid 4242 python: 19000 MiB", "pid 7 ?: 1000 MiB")
    assert f.fix.commands == ("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
                              "CUDA_VISIBLE_DEVICES=<another index> python train.py   # GPU 3 is busy")
    assert f.fix.summary == "Stop the processes holding the memory, or train on another GPU"
    assert run(g.gpu_memory_in_use, _busy(19999)) == []
    assert run(g.gpu_memory_in_use, Facts(gpus=(Gpu(index=0, memory_total_mib=40000),))) == []
    assert run(g.gpu_memory_in_use, Facts(gpus=(Gpu(index=0, memory_total_mib=0, memory_used_mib=10),))) == []
    assert len(run(g.gpu_memory_in_use, Facts(gpus=(Gpu(index=0, memory_total_mib=100, memory_used_mib=0),) + _busy(39000).gpus))) == 1


def test_ecc_pinned():
    f = one(g.gpu_ecc_errors, Facts(gpus=(Gpu(index=0, name="NVIDIA A100-SXM4-40GB"), Gpu(index=2, name="NVIDIA A100-SXM4-40GB", ecc_uncorrected_errors=3))))
    assert (f.id, f.severity, f.section) == ("gpu-ecc-uncorrected-errors", Severity.WARNING, Section.GPU)
    assert f.title == "GPU 2: NVIDIA A100-SXM4-40GB reports uncorrected ECC memory errors"
    assert f.evidence == ("3 uncorrected ECC errors (volatile, since the last driver load)",)
    assert f.fix.commands == ("nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER", "sudo nvidia-smi --gpu-reset -i 2")
    assert f.fix.summary == "Check the error detail and retired pages; reset the GPU; if errors return, the card needs service"
    assert f.fix.url == "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html"


def test_mig_pinned():
    f = one(g.gpu_mig_enabled, Facts(gpus=(Gpu(index=0, mig_enabled=False), Gpu(index=1, name="NVIDIA A100-SXM4-40GB", mig_enabled=True))))
    assert (f.id, f.severity, f.section) == ("gpu-mig-enabled", Severity.INFO, Section.GPU)
    assert f.title == "GPU 1: NVIDIA A100-SXM4-40GB is in MIG mode: frameworks see its MIG instances, not the whole GPU"
    assert f.evidence == ("MIG mode: enabled",)
    assert f.fix.summary == "Select an instance by its UUID, or disable MIG to use the whole GPU"
    assert f.fix.commands == ("nvidia-smi -L   # lists MIG-... UUIDs", "CUDA_VISIBLE_DEVICES=MIG-<uuid> python train.py",
                              "sudo nvidia-smi -i 1 -mig 0   # disable (needs a GPU reset)")


def test_pcie_width_pinned():
    narrow = Gpu(index=0, name="NVIDIA GeForce RTX 3090", pcie=Pcie(gen_current=1, gen_max=4, width_current=8, width_max=16))
    f = one(g.gpu_pcie_link_narrowed, Facts(gpus=(narrow,)))
    assert (f.id, f.severity, f.section) == ("gpu-pcie-link-narrowed", Severity.INFO, Section.GPU)
    assert f.title == "GPU 0: NVIDIA GeForce RTX 3090 runs its PCIe link at x8 of x16"
    assert f.evidence == ("PCIe width x8 (max x16), generation 1 (max 4)",)
    assert f.fix.commands == ("nvidia-smi -q -d PCIE",)
    for link in (Pcie(gen_current=1, gen_max=4, width_current=16, width_max=16), Pcie(width_current=8), Pcie(width_max=16), None):
        assert run(g.gpu_pcie_link_narrowed, Facts(gpus=(Gpu(index=0, pcie=link),))) == []


def test_nvml_mismatch_fix_pinned_and_one_log_line():
    # https://github.com/NVIDIA/nvidia-docker/issues/584: the mismatch said by nvidia-docker (here twice, as a log repeats it)
    said = Symptom("nvml-version-mismatch", "nvidia-docker | 2017/12/21 05:04:46 Error: nvml: Driver/library version mismatch")
    again = Symptom("nvml-version-mismatch", "nvidia-docker | 2017/12/21 05:05:02 Error: nvml: Driver/library version mismatch")
    f = one(g.nvml_driver_library_mismatch, Facts(symptoms=(said, again)))
    assert f.evidence == (f"log: {said.text}",)
    assert f.fix == Fix(
        "Reboot to load the new kernel module (or unload and reload it when no process uses the GPU)",
        ("sudo reboot", "# or: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia"),
        "https://docs.nvidia.com/deploy/nvml-api/group__nvmlReturn.html")
