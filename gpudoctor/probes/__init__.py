"""Probes observe, never judge. ``collect`` runs them in a fixed order and returns one Facts snapshot; a probe that
cannot tell records a ProbeError and the rest still run ("unknown" is not "absent")."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Mapping, TypeVar

from ..errors import ProbeFailed
from ..model import Driver, Facts, Frameworks, ProbeError
from ..runner import Runner, SubprocessRunner

if TYPE_CHECKING:
    from ..model import Gpu

T = TypeVar("T")

# NVML errors that mean "there is no NVIDIA driver here": the GPU list is then known to be empty, not unknown.
_NO_DRIVER_ERRORS = ("NVML Shared Library Not Found", "Driver Not Loaded", "nvidia-ml-py (pynvml) is not installed")


class _Recorder:
    def __init__(self) -> None:
        self.errors: list[ProbeError] = []

    def attempt(self, name: str, probe: Callable[[], T], default: Any = None) -> T:
        try:
            return probe()
        except ProbeFailed as exc:
            self.errors.append(ProbeError(name, str(exc)))
        except Exception as exc:  # noqa: BLE001 - a probe bug must cost one fact, never the report
            self.errors.append(ProbeError(name, f"probe crashed: {type(exc).__name__}: {exc}"))
        return default


def collect(runner: Runner | None = None, deep: bool = False, environ: Mapping[str, str] | None = None) -> Facts:
    from .cuda import probe_cuda_toolkits
    from .frameworks import probe_tensorflow, probe_torch
    from .host import probe_host
    from .libraries import probe_libraries
    from .packages import probe_python_packages

    runner = runner or SubprocessRunner()
    environ = os.environ if environ is None else environ
    rec = _Recorder()
    linux = sys.platform.startswith("linux")
    # The probes that mostly wait on a command (nvcc --version, ldconfig -p: ~15 ms together) run on threads beside
    # the in-process ones; their results and errors join the snapshot in the order below, whatever finishes first.
    toolkits_job = _Background("cuda-toolkits", lambda: probe_cuda_toolkits(runner, environ))
    libraries_job = _Background("libraries", lambda: probe_libraries(runner, environ)) if linux else None

    host = rec.attempt("host", lambda: probe_host(environ))
    host, jetson = _platforms(rec, runner, environ, host)
    pci_devices = module = module_version = None
    if linux:
        from .pci import probe_kernel_module, probe_pci

        pci_devices = rec.attempt("pci", probe_pci)
        module, module_version = rec.attempt("kernel-module", probe_kernel_module, (None, None))
    kernel_log = _Background("kernel-log", lambda: _kernel_log(runner)) if linux and pci_devices else None
    driver, gpus = _driver_and_gpus(rec, runner)
    driver = Driver(
        version=driver.version or (module_version if module == "nvidia" else None),
        cuda_version=driver.cuda_version,
        kernel_module=module,
        kernel_module_version=module_version,
        nvml_error=driver.nvml_error,
    ) if linux else driver

    amd_gpus, rocm = rec.attempt("amd", lambda: _amd(runner), (None, None)) if linux else (None, None)
    toolkits = toolkits_job.result(rec)
    libraries = libraries_job.result(rec) if libraries_job else None
    packages = rec.attempt("python-packages", probe_python_packages)
    torch = rec.attempt("torch", probe_torch)
    tf_version = _first_installed(packages, ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-intel", "tensorflow-macos"))
    tensorflow = rec.attempt("tensorflow", lambda: probe_tensorflow(version=tf_version))
    from ..jax_builds import jax_build

    jax = rec.attempt("jax", lambda: jax_build(packages))
    if deep:
        torch, tensorflow, jax = _deepen(rec, runner, torch, tensorflow, jax)

    kernel_log_result = kernel_log.result(rec) if kernel_log else None
    return Facts(
        host=host,
        driver=driver,
        gpus=gpus,
        pci_devices=pci_devices,
        cuda_toolkits=toolkits,
        libraries=libraries,
        python_packages=packages,
        frameworks=Frameworks(torch=torch, tensorflow=tensorflow, jax=jax) if packages is not None else None,
        probe_errors=tuple(rec.errors),
        amd_gpus=amd_gpus,
        rocm=rocm,
        jetson=jetson,
        kernel_log=kernel_log_result,
    )


class _Background:
    """One probe run on a thread: a probe that waits on a subprocess costs its wait only where nothing else could
    run. Its errors are kept apart and handed over at ``result``, so the snapshot's order never depends on timing."""

    def __init__(self, name: str, probe: Callable[[], Any], join_timeout: float = 30.0) -> None:
        import threading

        self._name, self._join_timeout = name, join_timeout
        self._rec = _Recorder()
        self._value: Any = None
        self._thread = threading.Thread(target=self._run, args=(name, probe), daemon=True)
        self._thread.start()

    def _run(self, name: str, probe: Callable[[], Any]) -> None:
        self._value = self._rec.attempt(name, probe)

    def result(self, rec: _Recorder) -> Any:
        # Every command a background probe runs has its own timeout (nvcc 10 s, ldconfig 5 s, dmesg 3 s, journalctl
        # 5 s); the join's bound is only the last word should a probe wait on something else.
        self._thread.join(timeout=self._join_timeout)
        if self._thread.is_alive():
            rec.errors.append(ProbeError(self._name, f"did not finish within {self._join_timeout:g} s"))
            return None
        rec.errors.extend(self._rec.errors)
        return self._value


def _kernel_log(runner: Runner) -> Any:
    """The kernel log (dmesg, a few ms), read only where an NVIDIA device is on the PCI bus: a machine without one
    has no Xid to read and pays nothing."""
    from .kernel_log import probe_kernel_log

    return probe_kernel_log(runner)


def _amd(runner: Runner) -> Any:
    from .amd import probe_amd

    return probe_amd(runner)


def _platforms(rec: _Recorder, runner: Runner, environ: Mapping[str, str], host: Any) -> tuple[Any, Any]:
    """A Mac's MPS facts and a notebook's runtime into the host facts; a Jetson's L4T release (aarch64 Linux only,
    so a PC pays nothing for it)."""
    import dataclasses

    from .platforms import probe_apple, probe_jetson, probe_notebook

    jetson = None
    if sys.platform.startswith("linux") and host is not None and host.arch == "aarch64":
        jetson = rec.attempt("jetson", lambda: probe_jetson(runner))
    if host is None:
        return host, jetson
    apple = rec.attempt("apple", lambda: probe_apple(runner)) if sys.platform == "darwin" else None
    notebook = rec.attempt("notebook", lambda: probe_notebook(environ))
    return dataclasses.replace(host, apple=apple, notebook=notebook), jetson


def _driver_and_gpus(rec: _Recorder, runner: Runner) -> tuple[Driver, tuple[Gpu, ...] | None]:
    """NVML first (fast, in-process); ``nvidia-smi -q -x`` when NVML is unusable."""
    from .nvml import probe_nvml

    try:
        return probe_nvml()
    except ProbeFailed as exc:
        nvml_error = str(exc)
        rec.errors.append(ProbeError("nvml", nvml_error))
    except Exception as exc:  # noqa: BLE001
        nvml_error = f"probe crashed: {type(exc).__name__}: {exc}"
        rec.errors.append(ProbeError("nvml", nvml_error))

    from .smi import probe_smi

    try:
        driver, gpus = probe_smi(runner)
        return Driver(version=driver.version, cuda_version=driver.cuda_version, nvml_error=nvml_error), gpus
    except ProbeFailed as exc:
        smi_error = str(exc)
    except Exception as exc:  # noqa: BLE001
        smi_error = f"probe crashed: {type(exc).__name__}: {exc}"
    if smi_error == "No devices were found":  # a driver without GPUs (e.g. all passed through to VMs)
        return Driver(nvml_error=nvml_error), ()
    no_driver = nvml_error in _NO_DRIVER_ERRORS and "not found" in smi_error
    if not no_driver:
        rec.errors.append(ProbeError("nvidia-smi", smi_error))
    return Driver(nvml_error=nvml_error), (() if no_driver else None)


def _deepen(rec: _Recorder, runner: Runner, torch: Any, tensorflow: Any, jax: Any) -> tuple[Any, Any, Any]:
    from concurrent.futures import ThreadPoolExecutor  # imported here: it pulls in logging, which check never needs

    from .deep import deepen_jax, deepen_tensorflow, deepen_torch, run_child

    jobs = {name: build for name, build in (("torch", torch), ("tensorflow", tensorflow), ("jax", jax)) if build is not None}
    with ThreadPoolExecutor(max_workers=2) as pool:  # the imports take seconds; run two side by side
        futures = {name: pool.submit(rec.attempt, f"deep-{name}", lambda n=name: run_child(runner, n)) for name in jobs}
    seen = {name: future.result() for name, future in futures.items()}
    if seen.get("torch"):
        torch = deepen_torch(torch, seen["torch"])
    if seen.get("tensorflow"):
        tensorflow = deepen_tensorflow(tensorflow, seen["tensorflow"])
    if seen.get("jax"):
        jax = deepen_jax(jax, seen["jax"])
    return torch, tensorflow, jax


def _first_installed(packages: Mapping[str, str | None] | None, names: tuple[str, ...]) -> str | None:
    for name in names:
        if packages and packages.get(name):
            return packages[name]
    return None
