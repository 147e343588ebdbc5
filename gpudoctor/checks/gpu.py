"""GPU and driver: is there a GPU, does a working NVIDIA driver hold it, and is the card itself healthy."""

from __future__ import annotations

from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import driver_loaded, gpu_label, gpu_presence, gpus, jetson, on_mac, symptoms

DRIVER_DOWNLOAD = "https://www.nvidia.com/en-us/drivers/"
UBUNTU_DRIVERS = "https://ubuntu.com/server/docs/nvidia-drivers-installation"
# Share of a GPU's memory held by other processes above which a training run will likely hit out-of-memory.
BUSY_MEMORY_SHARE = 0.5


def no_nvidia_gpu(facts: Facts, matrix: object) -> Iterator[Finding]:
    if gpu_presence(facts) is not False or facts.amd_gpus or jetson(facts) or on_mac(facts):
        return  # not missing anything: amd-gpus-found lists AMD GPUs; a Jetson's GPU is integrated, a Mac's is Apple's
    stated = (facts.provenance or {}).get("gpus", "").startswith("reporter's words")
    evidence = ["no NVIDIA device (vendor 10de) on the PCI bus" if facts.pci_devices == () else
                "the reporter says this machine has no NVIDIA GPU" if stated else "no GPU reported by the driver"]
    if facts.driver and facts.driver.nvml_error:
        evidence.append(f"NVML: {facts.driver.nvml_error}")
    yield Finding(
        "no-nvidia-gpu", Severity.INFO, Section.GPU,
        "No NVIDIA GPU found: GPU checks are skipped, frameworks will run on the CPU",
        tuple(evidence),
    )


def gpu_without_driver(facts: Facts, matrix: object) -> Iterator[Finding]:
    unbound = [d for d in facts.pci_devices or () if d.driver is None]
    if not unbound or driver_loaded(facts):
        return
    yield Finding(
        "gpu-without-driver", Severity.ERROR, Section.GPU,
        "An NVIDIA GPU is on the PCI bus but no NVIDIA driver is loaded",
        tuple(f"PCI {d.bus_id or '(bus id unknown)'}: NVIDIA device {d.device_id or '(id unknown)'}, no kernel driver bound" for d in unbound)
        + ((f"NVML: {facts.driver.nvml_error}",) if facts.driver and facts.driver.nvml_error else ()),
        Fix(
            "Install the NVIDIA driver (580 or newer runs every current PyTorch and TensorFlow build), then reboot",
            ("sudo ubuntu-drivers install   # Ubuntu; other distributions: use the vendor's package", "sudo reboot"),
            UBUNTU_DRIVERS,
        ),
    )


def nouveau_loaded(facts: Facts, matrix: object) -> Iterator[Finding]:
    on_bus = [d for d in facts.pci_devices or () if d.driver == "nouveau"]
    module = facts.driver.kernel_module if facts.driver else None
    logged = [s for s in facts.symptoms or () if s.kind == "nvidia-probe-not-called"]
    if not on_bus and module != "nouveau" and not logged:
        return
    evidence = [f"PCI {d.bus_id or '(bus id unknown)'}: bound to nouveau" for d in on_bus] or (["kernel module nouveau is loaded"] if module == "nouveau" else [])
    evidence += [f"log: {s.text}" for s in logged[:1]]
    if logged and not on_bus and module != "nouveau":
        evidence.append("the kernel log says another driver (nouveau, nvidiafb, rivafb) took the GPU before nvidia could probe it")
    yield Finding(
        "nouveau-loaded", Severity.ERROR, Section.GPU,
        "The open-source nouveau driver holds the GPU: CUDA needs the NVIDIA driver",
        tuple(evidence),
        Fix(
            "Blacklist nouveau, rebuild the initramfs, reboot, then install the NVIDIA driver",
            (
                "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf",
                "sudo update-initramfs -u   # Fedora/RHEL: sudo dracut --force",
                "sudo reboot",
                "sudo ubuntu-drivers install",
            ),
            UBUNTU_DRIVERS,
        ),
    )


def nvml_driver_library_mismatch(facts: Facts, matrix: object) -> Iterator[Finding]:
    driver = facts.driver
    said = symptoms(facts, "nvml-version-mismatch")  # the same error in the words of a tool that calls NVML
    if not said and (not driver or not driver.nvml_error or "mismatch" not in driver.nvml_error.lower()):
        return
    evidence = [f"NVML: {driver.nvml_error}"] if driver and driver.nvml_error else []
    evidence += [f"log: {s.text}" for s in said[:1]]
    if driver and driver.kernel_module_version:
        evidence.append(f"loaded kernel module: {driver.kernel_module_version}")
    libcuda = [lib.version for lib in (facts.libraries.libcuda or ()) if lib.version] if facts.libraries else []
    if libcuda:
        evidence.append(f"user-space driver library (libcuda): {libcuda[0]}")
    yield Finding(
        "nvml-driver-library-mismatch", Severity.ERROR, Section.GPU,
        "The NVIDIA driver was upgraded but the old kernel module is still loaded",
        tuple(evidence),
        Fix(
            "Reboot to load the new kernel module (or unload and reload it when no process uses the GPU)",
            ("sudo reboot", "# or: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia"),
            "https://docs.nvidia.com/deploy/nvml-api/group__nvmlReturn.html",
        ),
    )


def gpus_found(facts: Facts, matrix: object) -> Iterator[Finding]:
    if not facts.gpus or not driver_loaded(facts):
        return
    driver = facts.driver
    cuda = f" (supports CUDA up to {driver.cuda_version})" if driver and driver.cuda_version else ""
    yield Finding(
        "gpus-found", Severity.OK, Section.GPU,
        f"{len(facts.gpus)} NVIDIA GPU{'s' if len(facts.gpus) != 1 else ''}, driver {driver.version if driver and driver.version else '(version unknown)'}{cuda}",
        tuple(gpu_label(g) + (f", {g.memory_total_mib} MiB" if g.memory_total_mib else "") for g in facts.gpus),
    )


def gpu_memory_in_use(facts: Facts, matrix: object) -> Iterator[Finding]:
    for gpu in gpus(facts):
        if not gpu.memory_total_mib or gpu.memory_used_mib is None:
            continue
        share = gpu.memory_used_mib / gpu.memory_total_mib
        if share < BUSY_MEMORY_SHARE:
            continue
        holders = [f"pid {p.pid} {p.name or '?'}: {p.used_mib} MiB" for p in gpu.processes or () if p.used_mib]
        yield Finding(
            "gpu-memory-in-use", Severity.WARNING, Section.GPU,
            f"{gpu_label(gpu)} has {share:.0%} of its memory in use by other processes",
            (f"{gpu.memory_used_mib} of {gpu.memory_total_mib} MiB used", *holders),
            Fix(
                "Stop the processes holding the memory, or train on another GPU",
                ("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
                 f"CUDA_VISIBLE_DEVICES=<another index> python train.py   # GPU {gpu.index} is busy"),
            ),
        )


def gpu_ecc_errors(facts: Facts, matrix: object) -> Iterator[Finding]:
    for gpu in gpus(facts):
        if not gpu.ecc_uncorrected_errors:
            continue
        yield Finding(
            "gpu-ecc-uncorrected-errors", Severity.WARNING, Section.GPU,
            f"{gpu_label(gpu)} reports uncorrected ECC memory errors",
            (f"{gpu.ecc_uncorrected_errors} uncorrected ECC errors (volatile, since the last driver load)",),
            Fix(
                "Check the error detail and retired pages; reset the GPU; if errors return, the card needs service",
                ("nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER", f"sudo nvidia-smi --gpu-reset -i {gpu.index}"),
                "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html",
            ),
        )


def gpu_mig_enabled(facts: Facts, matrix: object) -> Iterator[Finding]:
    for gpu in gpus(facts):
        if gpu.mig_enabled:
            yield Finding(
                "gpu-mig-enabled", Severity.INFO, Section.GPU,
                f"{gpu_label(gpu)} is in MIG mode: frameworks see its MIG instances, not the whole GPU",
                ("MIG mode: enabled",),
                Fix("Select an instance by its UUID, or disable MIG to use the whole GPU",
                    ("nvidia-smi -L   # lists MIG-... UUIDs", "CUDA_VISIBLE_DEVICES=MIG-<uuid> python train.py",
                     f"sudo nvidia-smi -i {gpu.index} -mig 0   # disable (needs a GPU reset)")),
            )


def gpu_pcie_link_narrowed(facts: Facts, matrix: object) -> Iterator[Finding]:
    for gpu in gpus(facts):
        link = gpu.pcie
        if not link or not link.width_current or not link.width_max or link.width_current >= link.width_max:
            continue
        # Link *generation* drops at idle to save power; a narrower *width* usually means a slot or riser problem.
        yield Finding(
            "gpu-pcie-link-narrowed", Severity.INFO, Section.GPU,
            f"{gpu_label(gpu)} runs its PCIe link at x{link.width_current} of x{link.width_max}",
            (f"PCIe width x{link.width_current} (max x{link.width_max}), generation {link.gen_current} (max {link.gen_max})",),
            Fix("Check again under load; if it stays narrow, reseat the card or move it to a full-width slot",
                ("nvidia-smi -q -d PCIE",)),
        )


CHECKS = (
    no_nvidia_gpu,
    gpu_without_driver,
    nouveau_loaded,
    nvml_driver_library_mismatch,
    gpus_found,
    gpu_memory_in_use,
    gpu_ecc_errors,
    gpu_mig_enabled,
    gpu_pcie_link_narrowed,
)
