"""JAX: jaxlib without a CUDA plugin on a GPU machine, a plugin the driver or the GPU cannot run, jax / jaxlib /
plugin versions that do not go together, a plugin whose CUDA major differs from the nvidia-* wheels beside it, and
a Python without a jaxlib wheel. Pure: Facts and the matrix (matrices/jax.toml) in, findings out."""

from __future__ import annotations

from typing import Iterator

from ..matrix.solver._solve_jax import INSTALL_URL, choose_jax, plugin_ok
from ..matrix.tables.versions import try_vtuple
from ..model import Facts, Finding, Fix, JaxBuild, Section, Severity
from ._facts import gpu_implied_but_unlisted, gpu_presence, gpus, package, symptoms


def _jax(facts: Facts) -> JaxBuild | None:
    return facts.frameworks.jax if facts.frameworks else None


def _table(matrix: object):
    return getattr(matrix, "jax", None)


def _label(jax: JaxBuild) -> str:
    return f"jax {jax.version or '(version unknown)'} / jaxlib {jax.jaxlib or '(version unknown)'}"


def _python(facts: Facts) -> str | None:
    version = facts.host.python if facts.host else None
    return ".".join(version.split(".")[:2]) if version else None


def _ccs(facts: Facts) -> tuple[str, ...]:
    return tuple(g.compute_capability for g in gpus(facts) if g.compute_capability)


def _gpu_fix(facts: Facts, matrix: object, jax: JaxBuild, summary: str) -> Fix:
    """The jax[cudaNN] this machine's driver and GPUs run: the installed release where it has such a plugin."""
    table, driver = _table(matrix), facts.driver
    choice = None
    if table is not None:
        args = dict(gpu=True, driver=driver.version if driver else None, driver_cuda=driver.cuda_version if driver else None,
                    ccs=_ccs(facts), python=_python(facts))
        installed = (jax.version or "").split("+")[0]
        choice = (choose_jax(table, version=installed, **args) if table.release(installed) else None) or choose_jax(table, **args)
    if choice is None and table is not None:
        return _no_cuda_wheel_fix(facts, table)
    requirement = choice.requirement if choice else "jax[cuda12]"
    return Fix(summary, ("pip uninstall -y jax jaxlib", f'pip install -U "{requirement}"'), INSTALL_URL)


def _no_cuda_wheel_fix(facts: Facts, table) -> Fix:
    """No jax[cudaNN] release fits: say which of the GPU, the driver and the Python rules every plugin out. The GPU
    first: a newer driver does not help a GPU older than every plugin's compute capability floor."""
    if all(plugin_ok(table, m.name, None, None, _ccs(facts)) for m in table.majors):
        floor = min((m.cc_min for m in table.majors), key=try_vtuple)
        return Fix(f"No JAX CUDA wheel supports this GPU (they need compute capability {floor} or newer): JAX runs on the CPU here",
                   (), INSTALL_URL)
    driver = facts.driver
    version, cuda = (driver.version, driver.cuda_version) if driver else (None, None)
    if all(plugin_ok(table, m.name, version, cuda, ()) for m in table.majors):
        floor = min((m.driver_min for m in table.majors), key=try_vtuple)
        return Fix(f"Upgrade the NVIDIA driver to {floor} or newer: no JAX CUDA wheel runs on this driver and GPU", (), INSTALL_URL)
    pythons = sorted({p for r in table.releases if r.plugins for p in r.python}, key=try_vtuple)
    return Fix(f"Use a Python that JAX publishes CUDA wheels for ({pythons[0]} to {pythons[-1]}; this is Python {_python(facts)})",
               (), INSTALL_URL)


def jax_cpu_only_install(facts: Facts, matrix: object) -> Iterator[Finding]:
    jax = _jax(facts)
    said = symptoms(facts, "jax-cpu-fallback")  # "a CUDA-enabled jaxlib is not installed": JAX itself says so
    # "No GPU/TPU found" and a jaxlib without a CUDA platform: the CPU jaxlib, unless a CUDA backend failed for a
    # reason of its own (then that failure is the finding)
    logged = said + ([] if symptoms(facts, "jax-cuda-backend-failed") else symptoms(facts, "jax-no-accelerator"))
    if jax is None and not logged:
        return
    if jax is not None and jax.build not in ("cpu", None):
        return
    if jax is not None and jax.build is None and not logged:
        return  # unknown build: never read as CPU-only
    if facts.host and facts.host.os in ("darwin", "windows") and not logged:
        return  # JAX has no CUDA wheels there: the CPU build is the right one
    jax = jax or JaxBuild()
    evidence = [f"{_label(jax)}: no jax-cuda12-plugin or jax-cuda13-plugin installed"] if jax.build == "cpu" else []
    evidence += [f"log: {s.text}" for s in logged[:1]]
    presence = True if said else gpu_presence(facts)
    if presence is False:
        yield Finding("jax-cpu-only-install", Severity.INFO, Section.JAX,
                      f"{_label(jax)} is the CPU build (fine on this machine without an NVIDIA GPU)", tuple(evidence))
        return
    implied = gpu_implied_but_unlisted(facts)
    if implied:
        evidence.append(implied)
    fix = _gpu_fix(facts, matrix, jax, "Install JAX with its CUDA plugin")
    if presence is None or (jax.version is None and jax.jaxlib is None and jax.build is None):
        # only JAX's fallback line, no jax version or build known: the program that printed it may do its work in another framework
        # (a torch trainer in Colab prints it from a preinstalled jax), so it is said, not raised as an error
        yield Finding("jax-cpu-only-install", Severity.WARNING, Section.JAX,
                      f"{_label(jax)} has no CUDA plugin: it cannot use an NVIDIA GPU (whether this machine has one is not known)",
                      tuple(evidence), fix)
        return
    yield Finding("jax-cpu-only-install", Severity.ERROR, Section.JAX,
                  f"{_label(jax)} has no CUDA plugin on a machine with an NVIDIA GPU: JAX falls back to the CPU",
                  tuple(evidence), fix)


def jax_plugin_driver_too_old(facts: Facts, matrix: object) -> Iterator[Finding]:
    jax, table = _jax(facts), _table(matrix)
    if jax is None or table is None or jax.build not in ("cuda12", "cuda13") or facts.driver is None:
        return
    why = plugin_ok(table, jax.build, facts.driver.version, facts.driver.cuda_version, _ccs(facts))
    if why is None:
        return
    major = table.major(jax.build)
    evidence = (f"jax-{jax.build}-plugin {jax.plugin or jax.pjrt or jax.jaxlib}: {why}",
                f"NVIDIA driver {facts.driver.version or 'version unknown'} (CUDA {facts.driver.cuda_version or 'unknown'})")
    if "compute capability" in why:  # a driver upgrade cannot help: only another plugin can
        fix = _gpu_fix(facts, matrix, jax, f"Install the JAX plugin this GPU runs (jax[{jax.build}] needs compute capability {major.cc_min} or newer)")
        yield Finding("gpu-arch-not-in-build", Severity.ERROR, Section.JAX, f"jax[{jax.build}] does not support this GPU: {why}", evidence, fix)
        return
    fix = _gpu_fix(facts, matrix, jax, f"Install the JAX plugin this driver runs, or upgrade the driver to {major.driver_min} or newer")
    yield Finding("driver-too-old-for-cuda-build", Severity.ERROR, Section.JAX,
                  f"jax[{jax.build}] needs NVIDIA driver {major.driver_min} or newer", evidence, fix)


def jax_version_mismatch(facts: Facts, matrix: object) -> Iterator[Finding]:
    jax, table = _jax(facts), _table(matrix)
    if jax is None:
        return
    have, lib = try_vtuple((jax.version or "").split("+")[0]), try_vtuple((jax.jaxlib or "").split("+")[0])
    fix_all = Fix("Install jax, jaxlib and the plugin of one release", (f'pip install -U "jax[{jax.build}]"' if jax.build in ("cuda12", "cuda13") else "pip install -U jax jaxlib",), INSTALL_URL)
    if have and lib and lib > have:
        yield Finding("jax-version-mismatch", Severity.ERROR, Section.JAX,
                      f"jaxlib {jax.jaxlib} is newer than jax {jax.version}: importing jax fails",
                      ("jax raises: \"jaxlib version X is newer than and incompatible with jax version Y\"",), fix_all)
    elif have and lib and lib < have and table is not None:
        row = table.release(jax.version or "")
        floor = row.jaxlib_min.get(jax.version.split("+")[0]) if row else None
        if floor and lib < try_vtuple(floor):
            yield Finding("jax-version-mismatch", Severity.ERROR, Section.JAX,
                          f"jax {jax.version} needs jaxlib {floor} or newer (installed: {jax.jaxlib})",
                          (f"jax {jax.version} requires jaxlib >= {floor} (its METADATA)",), fix_all)
    plugin = try_vtuple(jax.plugin)
    if plugin and lib and plugin != lib:
        yield Finding("jax-version-mismatch", Severity.ERROR, Section.JAX,
                      f"jax-{jax.build}-plugin {jax.plugin} differs from jaxlib {jax.jaxlib}: the plugin is not loaded",
                      (f'jax[{jax.build}]=={jax.jaxlib} pins jaxlib and the plugin to the same version',), fix_all)


def jax_plugin_cuda_wheels_mismatch(facts: Facts, matrix: object) -> Iterator[Finding]:
    jax = _jax(facts)
    if jax is None or jax.build not in ("cuda12", "cuda13") or facts.python_packages is None:
        return
    other = "cuda13" if jax.build == "cuda12" else "cuda12"
    mine, theirs = f"nvidia-cudnn-cu{jax.build[4:]}", f"nvidia-cudnn-cu{other[4:]}"
    if mine in facts.python_packages and not package(facts, mine) and package(facts, theirs):
        yield Finding("jax-plugin-cuda-wheels-mismatch", Severity.WARNING, Section.JAX,
                      f"jax-{jax.build}-plugin needs the CUDA {jax.build[4:]} libraries, but the nvidia-* wheels are for CUDA {other[4:]}",
                      (f"{theirs} {package(facts, theirs)} installed, {mine} not installed",),
                      Fix("Install the plugin with the CUDA wheels it was built for",
                          (f'pip install -U "jax[{jax.build}]=={jax.jaxlib or jax.version}"',), INSTALL_URL))


def jax_python_no_wheel(facts: Facts, matrix: object) -> Iterator[Finding]:
    jax, table, python = _jax(facts), _table(matrix), _python(facts)
    if jax is None or table is None or python is None or not jax.jaxlib:
        return
    row = table.release(jax.jaxlib)
    if row is None or python in row.python:
        return
    # Warning, not error: jaxlib IS installed, so it came from somewhere (conda-forge, a source build)
    yield Finding("python-version-no-wheel", Severity.WARNING, Section.JAX,
                  f"jaxlib {jax.jaxlib} has no PyPI wheel for Python {python} (wheels: {', '.join(row.python)})",
                  (f"Python {facts.host.python}",), Fix("Use a Python the release has wheels for", (), INSTALL_URL))


_NO_GPU_SEEN = "No visible GPU devices"  # the plugin's reason when CUDA enumerates no device


def jax_cuda_backend_failed(facts: Facts, matrix: object) -> Iterator[Finding]:
    """A log line, or --deep: the plugin is installed but JAX still runs on the CPU."""
    jax = _jax(facts)
    logged = symptoms(facts, "jax-cuda-backend-failed")
    deep_cpu = jax is not None and jax.build in ("cuda12", "cuda13") and jax.gpu_devices == 0 and gpu_presence(facts) is True
    if not logged and not deep_cpu:
        return
    evidence = tuple(f"log: {s.text}" for s in logged[:2])
    presence = gpu_presence(facts)
    if not deep_cpu and presence is not True and all(_NO_GPU_SEEN in s.text for s in logged):
        # the plugin's own reason is that it sees no GPU: right on a machine without one (a CPU node with
        # jax[cuda12] installed), a problem only where a GPU is there; whether it is, this evidence does not say
        if presence is False:
            return
        yield Finding("jax-cuda-backend-failed", Severity.WARNING, Section.JAX,
                      "JAX's CUDA plugin sees no GPU (fine on a machine without one; where there is one, something hides it)",
                      evidence + ("whether this machine has an NVIDIA GPU is not known",),
                      Fix("On a machine without a GPU set JAX_PLATFORMS=cpu before importing jax; where there is one, check "
                          "CUDA_VISIBLE_DEVICES and that the process (or container) is given the GPU",
                          ("nvidia-smi -L", "echo \"$CUDA_VISIBLE_DEVICES\""), INSTALL_URL))
        return
    if deep_cpu:
        evidence += (f"jax.devices() = {', '.join(jax.devices or ())}; jax.default_backend() = {jax.backend}",)
    yield Finding("jax-cuda-backend-failed", Severity.ERROR, Section.JAX,
                  "JAX's CUDA backend failed to initialise: it runs on the CPU", evidence,
                  Fix("Check the driver, the plugin's CUDA libraries, and that LD_LIBRARY_PATH does not shadow them",
                      ("unset LD_LIBRARY_PATH", "python -c \"import jax; jax.print_environment_info()\""), INSTALL_URL))


CHECKS = (jax_cpu_only_install, jax_plugin_driver_too_old, jax_version_mismatch, jax_plugin_cuda_wheels_mismatch,
          jax_python_no_wheel, jax_cuda_backend_failed)
