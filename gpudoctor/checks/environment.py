"""Environment: variables, WSL and containers that stand between a working driver and the frameworks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..digits import ascii_int
from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import LIBRARY_NOT_FOUND, env, gpu_presence, symptoms

if TYPE_CHECKING:
    from ..model import Gpu

WSL_CUDA_GUIDE = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"
CONTAINER_TOOLKIT = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html"
SINGULARITY_GPU = "https://apptainer.org/docs/user/main/gpu.html"


def visible_gpu_count(value: str, gpus: tuple[Gpu, ...]) -> int:
    """How many GPUs CUDA exposes under CUDA_VISIBLE_DEVICES=value.

    CUDA reads the list left to right and stops at the first entry that names no device, so "0,7,1" on a
    two-GPU machine exposes one GPU and "-1" or "" exposes none. Entries are indices or (prefixes of) UUIDs."""
    count = 0
    seen: set[object] = set()
    for raw in value.split(","):
        entry = raw.strip()
        match = _match_entry(entry, gpus)
        if match is None or match in seen:
            break
        seen.add(match)
        count += 1
    return count


def _match_entry(entry: str, gpus: tuple[Gpu, ...]) -> object | None:
    """The device an entry names (an index, or the MIG UUID itself), or None when it names none."""
    if entry.isdigit():  # "²" and "٣" too: CUDA reads ASCII digits only, so those name no device
        index = ascii_int(entry, 9)  # longer is beyond any machine's GPU count: names no device
        return index if index is not None and index < len(gpus) else None
    if entry.startswith(("GPU-", "MIG-")):
        if any(gpu.uuid is None for gpu in gpus):
            return entry  # a UUID is a valid way to name a device; without the GPUs' UUIDs it cannot be refuted
        for position, gpu in enumerate(gpus):
            if gpu.uuid and gpu.uuid.startswith(entry):
                return position
        if entry.startswith("MIG-") and any(g.mig_enabled for g in gpus):
            return entry  # a MIG instance of a MIG-enabled GPU (instances are not in the GPU list)
    return None


def cuda_visible_devices_hides_all_gpus(facts: Facts, matrix: object) -> Iterator[Finding]:
    value = env(facts, "CUDA_VISIBLE_DEVICES")
    if value is not None and not facts.gpus:
        yield from _set_and_no_device(facts, value)
        return
    if value is None or not facts.gpus:
        return
    if visible_gpu_count(value, facts.gpus) > 0:
        return
    yield Finding(
        "cuda-visible-devices-hides-all-gpus", Severity.ERROR, Section.ENVIRONMENT,
        "CUDA_VISIBLE_DEVICES hides every GPU from CUDA",
        (f"CUDA_VISIBLE_DEVICES={value!r}",
         f"this machine has {len(facts.gpus)} GPU{'s' if len(facts.gpus) != 1 else ''}: indices 0..{len(facts.gpus) - 1}"),
        Fix("Unset it, or list indices or UUIDs that exist (CUDA stops reading the list at the first invalid entry)",
            ("unset CUDA_VISIBLE_DEVICES", "export CUDA_VISIBLE_DEVICES=0   # or GPU-<uuid> from nvidia-smi -L"),
            "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables"),
    )


def wsl1_no_gpu_support(facts: Facts, matrix: object) -> Iterator[Finding]:
    if not facts.host or facts.host.wsl != 1:
        return
    yield Finding(
        "wsl1-no-gpu-support", Severity.ERROR, Section.ENVIRONMENT,
        "This is WSL 1, which has no GPU support: CUDA needs WSL 2",
        (f"kernel {facts.host.kernel} (WSL 1)",),
        Fix("Convert the distribution to WSL 2 from Windows PowerShell, then reopen it",
            ("wsl --list --verbose", "wsl --set-version <distribution> 2"), WSL_CUDA_GUIDE),
    )


def wsl_libcuda_not_on_loader_path(facts: Facts, matrix: object) -> Iterator[Finding]:
    if not facts.host or facts.host.wsl != 2:
        return
    logged = [s for s in symptoms(facts, "library-not-loadable") if (s.subject or "").startswith("libcuda.so")]
    # On WSL2 the GPU is reached only through /usr/lib/wsl/lib/libcuda.so: "no device" there means another libcuda
    # (a Linux driver's, or a CUDA stub) was loaded instead.
    logged += symptoms(facts, "cuda-no-device")
    if not logged and (not facts.libraries or facts.libraries.libcuda != ()):
        return
    yield Finding(
        "wsl-libcuda-not-on-loader-path", Severity.ERROR, Section.ENVIRONMENT,
        "WSL 2 cannot find the Windows driver's libcuda.so",
        tuple(f"log: {s.text}" for s in logged[:2]) or ("libcuda.so.1 is neither in /usr/lib/wsl/lib nor in the loader cache",),
        Fix(
            "Install or update the NVIDIA driver on Windows (not inside WSL), then make /usr/lib/wsl/lib visible",
            ("echo /usr/lib/wsl/lib | sudo tee /etc/ld.so.conf.d/ld.wsl.conf", "sudo ldconfig",
             "wsl --shutdown   # from PowerShell, then reopen the distribution"),
            WSL_CUDA_GUIDE,
        ),
    )


def container_without_gpu_runtime(facts: Facts, matrix: object) -> Iterator[Finding]:
    host = facts.host
    if not host or not host.container:
        return
    driver = facts.driver
    nvml_missing = driver is not None and driver.nvml_error == LIBRARY_NOT_FOUND
    # Without the NVIDIA runtime nothing of the driver is mounted: no NVML and no libcuda, even if no NVML error
    # was captured.
    no_driver_inside = (driver is None or not driver.version) and facts.libraries is not None and facts.libraries.libcuda == ()
    if not (nvml_missing or no_driver_inside):
        return
    # sysfs inside a container shows the host's PCI bus: a GPU bound to the host's nvidia driver that the
    # container cannot reach means the container was started without the NVIDIA runtime.
    host_gpus = [d for d in facts.pci_devices or () if d.driver == "nvidia"]
    if not host_gpus:
        return
    yield Finding(
        "container-without-gpu-runtime", Severity.ERROR, Section.ENVIRONMENT,
        f"This {host.container} container was started without GPU access",
        (f"the host's GPU {host_gpus[0].bus_id} is bound to the nvidia driver",
         f"inside the container NVML says: {LIBRARY_NOT_FOUND}" if nvml_missing else "inside the container neither NVML nor libcuda is found"),
        Fix("Install the NVIDIA Container Toolkit on the host and start the container with GPUs",
            ("docker run --gpus all ...", "sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker"),
            CONTAINER_TOOLKIT),
    )


# What a framework inside the container prints when no GPU reached it (pasted lines).
_NO_GPU_INSIDE = ("no-driver-found", "nvidia-driver-not-loaded", "driver-module-rejected-by-secure-boot", "cuda-unavailable",
                  "cuda-no-device", "torch-without-cuda")


def container_started_without_gpus(facts: Facts, matrix: object) -> Iterator[Finding]:
    """A pasted `docker run` without --gpus (or the NVIDIA runtime), or a `singularity`/`apptainer` run without --nv,
    and CUDA unavailable inside: the container got no GPU. Either alone says nothing: a CPU container is fine, and
    CUDA fails for many other reasons."""
    started = symptoms(facts, "container-run-without-gpus")
    torch = facts.frameworks.torch if facts.frameworks else None
    failed = [s for kind in _NO_GPU_INSIDE for s in symptoms(facts, kind)]
    # the driver's libcuda is what the NVIDIA runtime mounts into a container: a program that cannot load it got none
    failed += [s for s in symptoms(facts, "library-not-loadable") if (s.subject or "").startswith("libcuda.so")]
    if not started or not (failed or (torch is not None and torch.cuda_available is False)):
        return
    evidence = (f"log: {started[0].text}",
                f"log: {failed[0].text}" if failed else "torch.cuda.is_available() is False inside it")
    if started[0].subject == "singularity":
        yield Finding(
            "container-without-gpu-runtime", Severity.ERROR, Section.ENVIRONMENT,
            "The container was started without GPU access: its `singularity`/`apptainer` command has no --nv",
            evidence + ("without --nv Singularity and Apptainer bind neither the host's driver libraries nor its /dev/nvidia* "
                        "devices into the container",),
            Fix("Start the container with --nv", ("singularity exec --nv IMAGE.sif ...   # or: apptainer exec --nv",
                                                  "singularity exec --nv IMAGE.sif nvidia-smi   # the GPU table shows it worked"),
                SINGULARITY_GPU),
        )
        return
    yield Finding(
        "container-without-gpu-runtime", Severity.ERROR, Section.ENVIRONMENT,
        f"The container was started without GPU access: its `{started[0].subject or 'docker'} run` has no --gpus",
        evidence + ("without --gpus (or --runtime=nvidia) Docker passes no GPU and no driver library into the container",),
        Fix("Start the container with GPUs (the host needs the NVIDIA Container Toolkit)",
            ("docker run --gpus all ...", "sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker"),
            CONTAINER_TOOLKIT),
    )


def cuda_force_ptx_jit(facts: Facts, matrix: object) -> Iterator[Finding]:
    if env(facts, "CUDA_FORCE_PTX_JIT") not in ("1",) or gpu_presence(facts) is not True:
        return
    yield Finding(
        "cuda-force-ptx-jit-set", Severity.WARNING, Section.ENVIRONMENT,
        "CUDA_FORCE_PTX_JIT=1 makes every kernel JIT-compile from PTX: slow start, and failures on builds without PTX",
        ("CUDA_FORCE_PTX_JIT=1",),
        Fix("Unset it unless you are testing PTX compatibility", ("unset CUDA_FORCE_PTX_JIT",),
            "https://www.tensorflow.org/install/source#gpu"),
    )


def gpu_seen_then_hidden(facts: Facts, matrix: object) -> Iterator[Finding]:
    """torch's "No CUDA GPUs are available": its CUDA runtime reached the driver and was told there is no device.
    Without a driver torch says "Found no NVIDIA driver", with an old one "driver ... too old": this message means the
    driver answered and the process sees no GPU, most often through a CUDA_VISIBLE_DEVICES that a script, launcher or
    notebook sets to a GPU the machine does not have (a warning: the value is not in the evidence). When torch found
    the GPU in another process (``torch.cuda.is_available()`` printed True) that is all but certain. CUDA's own "no
    device" (CUDA_ERROR_NO_DEVICE, error 38) counts the same way only where the driver lists a GPU in the evidence. In a container,
    on WSL or in a hosted notebook other causes are as likely, and their own checks speak."""
    torch = facts.frameworks.torch if facts.frameworks else None
    hidden = [s for s in symptoms(facts, "cuda-unavailable") if "No CUDA GPUs are available" in s.text]
    listed = bool(facts.gpus)  # nvidia-smi (or NVML) lists a GPU while CUDA in the run reports no device at all
    hidden += symptoms(facts, "cuda-no-device") if listed else []
    host = facts.host
    elsewhere = host is not None and (host.container is not None or host.wsl is not None or host.notebook is not None)
    if not hidden or env(facts, "CUDA_VISIBLE_DEVICES") is not None or gpu_presence(facts) is False or elsewhere:
        return
    seen = torch is not None and torch.cuda_available is True
    if listed and not seen and "No CUDA GPUs are available" not in hidden[0].text:
        yield Finding(
            "cuda-visible-devices-hides-all-gpus", Severity.WARNING, Section.ENVIRONMENT,
            "The driver lists the GPU but CUDA in the failing run finds no device: the run's environment most likely hides it (CUDA_VISIBLE_DEVICES)",
            (f"the driver lists {len(facts.gpus)} GPU(s)", f"log: {hidden[0].text}",
             "a GPU the driver lists is invisible to CUDA only when the process is told to look elsewhere: "
             "CUDA_VISIBLE_DEVICES naming a GPU this machine does not have hides every GPU"),
            _HIDDEN_FIX)
        return
    yield Finding(
        "cuda-visible-devices-hides-all-gpus", Severity.WARNING, Section.ENVIRONMENT,
        "torch sees the GPU in one process and none in the failing run: the run's environment most likely hides it (CUDA_VISIBLE_DEVICES)"
        if seen else "torch reached the NVIDIA driver but sees no GPU: most often CUDA_VISIBLE_DEVICES hides them (set by a script, launcher or the code)",
        (*(("torch.cuda.is_available() printed True",) if seen else ()), f"log: {hidden[0].text}",
         "the driver works, so what differs is the failing run's environment: a script or launcher that sets "
         "CUDA_VISIBLE_DEVICES to a GPU this machine does not have hides every GPU" if seen else
         "torch says this when the driver answers with no device; without a driver it says \"Found no NVIDIA driver\" instead"),
        _HIDDEN_FIX,
    )


_HIDDEN_FIX = Fix("Find where the run sets CUDA_VISIBLE_DEVICES (its shell script, launcher or code) and unset it or name a GPU that exists",
                  ("grep -rn CUDA_VISIBLE_DEVICES .   # the project's scripts and code", "nvidia-smi -L   # the GPUs that exist"),
                  "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables")


def _set_and_no_device(facts: Facts, value: str) -> Iterator[Finding]:
    """The GPUs are not known, but CUDA said it found none while CUDA_VISIBLE_DEVICES was set: the value is the
    likeliest reason (a warning: whether it names an existing GPU cannot be checked without the GPU list)."""
    found = [f"log: {s.text}" for kind in ("cuda-unavailable", "cuda-no-device") for s in symptoms(facts, kind)]
    if not found and value.split(",")[0].strip() != "0":
        # torch without CUDA has many causes; a value that hides GPU 0 too makes this one likely. (A pasted "0" is
        # as often the reporter's fix as the value that failed, so it is kept for CUDA's own "no device" above.)
        torch = facts.frameworks.torch if facts.frameworks else None
        found = [f"log: {s.text}" for s in symptoms(facts, "torch-without-cuda")]
        found += ["torch.cuda.is_available() is False"] if not found and torch is not None and torch.cuda_available is False else []
    if not found:
        return
    yield Finding(
        "cuda-visible-devices-hides-all-gpus", Severity.WARNING, Section.ENVIRONMENT,
        f"CUDA found no GPU while CUDA_VISIBLE_DEVICES={value!r} was set: it most likely names no GPU of this machine",
        (f"CUDA_VISIBLE_DEVICES={value!r}", found[0],
         "CUDA sees only the GPUs the variable lists, and stops at the first entry that names none"),
        Fix("Unset it, or list indices or UUIDs that exist (nvidia-smi -L lists them)",
            ("unset CUDA_VISIBLE_DEVICES   # or remove os.environ['CUDA_VISIBLE_DEVICES'] = ... from the script", "nvidia-smi -L"),
            "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables"),
    )


def mig_several_instances_visible(facts: Facts, matrix: object) -> Iterator[Finding]:
    listed = [s.text for s in symptoms(facts, "mig-instances") if (ascii_int(s.subject or "") or 0) > 1]
    instances = [(g, i) for g in facts.gpus or () for i in g.mig_instances or ()]
    if len(instances) > 1 and not listed:
        listed.append(f"{len(instances)} MIG instances: " + ", ".join(f"GPU {g.index}: {i}" for g, i in instances[:4])
                      + (" ..." if len(instances) > 4 else ""))
    mig_gpus = [g for g in facts.gpus or () if g.mig_enabled]
    if mig_gpus and len(facts.gpus or ()) > 1:
        # CUDA uses at most one MIG instance per process, so with several GPUs of which one is in MIG mode the
        # devices CUDA enumerates differ from the devices NVML (and frameworks' device counts) report.
        listed.append(f"{len(facts.gpus)} GPUs, in MIG mode: " + ", ".join(f"GPU {g.index}" for g in mig_gpus))
    if not listed:
        return
    visible = env(facts, "CUDA_VISIBLE_DEVICES")
    if visible and visible.strip().startswith("MIG-") and "," not in visible:
        return  # one instance selected: what CUDA supports
    yield Finding(
        "mig-several-instances-visible", Severity.WARNING, Section.ENVIRONMENT,
        "Several MIG instances are visible to one process: CUDA enumerates only one of them",
        tuple(listed) + ((f"CUDA_VISIBLE_DEVICES={visible}",) if visible else ("CUDA_VISIBLE_DEVICES is not set",)),
        Fix("Give each process one MIG instance by its UUID (one process per instance for multi-instance training)",
            ("nvidia-smi -L   # lists the MIG-... UUIDs", "CUDA_VISIBLE_DEVICES=MIG-<uuid> python train.py"),
            "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html#cuda-device-enumeration"),
    )


def nvidia_visible_devices_outside_container(facts: Facts, matrix: object) -> Iterator[Finding]:
    value = env(facts, "NVIDIA_VISIBLE_DEVICES")
    # Only where "not in a container" was observed: in a pasted report an unknown container is no evidence.
    if value is None or facts.provenance is not None or not facts.host or facts.host.container:
        return
    yield Finding(
        "nvidia-visible-devices-outside-container", Severity.WARNING, Section.ENVIRONMENT,
        "NVIDIA_VISIBLE_DEVICES is set outside a container, where it has no effect",
        (f"NVIDIA_VISIBLE_DEVICES={value}", "only the NVIDIA container runtime reads it; CUDA itself reads CUDA_VISIBLE_DEVICES"),
        Fix("Select GPUs with CUDA_VISIBLE_DEVICES instead", (f"export CUDA_VISIBLE_DEVICES={value}", "unset NVIDIA_VISIBLE_DEVICES"),
            "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html"),
    )


CHECKS = (
    cuda_visible_devices_hides_all_gpus,
    gpu_seen_then_hidden,
    mig_several_instances_visible,
    nvidia_visible_devices_outside_container,
    wsl1_no_gpu_support,
    wsl_libcuda_not_on_loader_path,
    container_without_gpu_runtime,
    container_started_without_gpus,
    cuda_force_ptx_jit,
)
