"""Version rules: the driver against each framework build's CUDA, the Python against the wheels, the local nvcc
against the framework's CUDA for extension builds, and versions the matrix does not know.

Every rule is pure (Facts, Matrix) -> findings. Unknown facts never raise an error; a version the matrix does not
know gives matrix-unknown-version (info) and the general rules (CUDA's minor-version compatibility, which needs
no framework data)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from . import _builds as b
from ._facts import extension_toolkit

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix


def matrix_unknown_version(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    if matrix is None:
        return
    for build in b.builds(facts, matrix):
        releases = matrix.torch if build.framework == "torch" else matrix.tensorflow
        newest, oldest = releases[-1], releases[0]
        v = b.vt(build.version)
        if build.torch_release is None and build.tf_release is None:
            if v[:2] > b.vt(newest.latest)[:2]:
                where = f"newer than the compatibility matrix knows (it knows up to {newest.latest}, reviewed {matrix.reviewed})"
            else:
                where = f"not in the compatibility matrix (it covers {oldest.latest} to {newest.latest})"
            yield Finding(
                "matrix-unknown-version", Severity.INFO, build.section,
                f"{build.label} is {where}: only the general rules were applied",
                (f"{build.label} installed", f"matrix reviewed {matrix.reviewed}"),
                Fix("Update gpudoctor for a newer matrix; the CUDA driver rules still apply", ("pip install -U gpudoctor",)),
            )
        elif build.framework == "torch" and build.cuda and build.torch_variant is None:
            yield Finding(
                "matrix-unknown-version", Severity.INFO, build.section,
                f"{build.label}: the matrix does not know a CUDA {build.cuda} variant of torch {build.torch_release.series}: only the general rules were applied",
                (f"known variants of torch {build.torch_release.series}: {', '.join(v.tag for v in build.torch_release.variants)}",),
            )
        if build.cuda and b.vt(build.cuda) and matrix.mvc_floor(build.cuda_major) is None and build.cuda_major >= 11:
            yield Finding(
                "matrix-unknown-version", Severity.INFO, Section.CUDA,
                f"CUDA {build.cuda} (of {build.label}) is newer than the matrix knows: its driver requirement was not checked",
                (f"the matrix knows CUDA up to {matrix.newest_cuda()} (reviewed {matrix.reviewed})",),
            )


def driver_too_old_for_cuda_build(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    from ..matrix.tables.model import arch_support
    from ..matrix.solver.driver import driver_os, driver_verdict

    driver = facts.driver
    # A driver that reports a version implies a GPU, so the GPU list itself need not be known.
    if matrix is None or driver is None or not (driver.version or driver.cuda_version):
        return
    os = driver_os(b.host_os(facts), b.is_wsl(facts))
    have = driver.version or f"with CUDA {driver.cuda_version}"
    for build in b.builds(facts, matrix):
        if not build.cuda or b.vt(build.cuda) is None:
            continue
        dv = driver_verdict(matrix, build.cuda, driver.version, driver.cuda_version, os)
        supports = f"driver {have} supports CUDA {dv.driver_cuda or 'unknown'}"
        if dv.ok is False:
            major = build.cuda_major
            rule = (
                f"minor-version compatibility floor of CUDA {major}.x" if major >= 11 else f"CUDA {build.cuda} has no minor-version compatibility"
            )
            evidence = (supports, f"{build.label} is built with CUDA {build.cuda}: it needs driver >= {dv.need} ({rule})")
            upgrade = f"or upgrade the NVIDIA driver to >= {dv.need} to keep {build.label}"
            if dv.full and dv.full != dv.need:
                upgrade += f" (>= {dv.full} for CUDA {build.cuda}'s full feature set)"
            yield Finding(
                "driver-too-old-for-cuda-build", Severity.ERROR, build.section,
                f"NVIDIA driver {have} is too old for {build.label} (CUDA {build.cuda})", evidence,
                _with_url(b.install_fix(facts, matrix, build.framework, f"{build.name} cannot start CUDA with this driver", upgrade), b.DRIVER_URL),
            )
            continue
        # Minor-version compatibility does not cover JIT of PTX newer than the driver: a GPU that this build serves
        # only through PTX needs a driver whose CUDA is at least the build's.
        if dv.ok and not dv.native and build.arch and b.older_cuda(dv.driver_cuda, build.cuda):
            for gpu in facts.gpus or ():
                cc = b.gpu_cc(gpu, matrix)
                if cc and arch_support(build.arch, cc) == "ptx":
                    yield Finding(
                        "driver-too-old-for-cuda-build", Severity.ERROR, build.section,
                        f"{b.gpu_name(gpu)} needs PTX JIT for {build.label}, and driver {have} is too old to compile CUDA {build.cuda} PTX",
                        (
                            supports,
                            f"{b.gpu_name(gpu)} has compute capability {cc}; {build.label} has no SASS for it, only PTX ({' '.join(a for a in build.arch if a.startswith('compute_'))})",
                            "minor-version compatibility does not cover JIT of PTX made by a newer CUDA than the driver's",
                        ),
                        _with_url(
                            b.install_fix(facts, matrix, build.framework, "Install a build with native code for this GPU", f"or upgrade the driver to >= {dv.full or dv.need}"),
                            b.MVC_URL,
                        ),
                    )
                    break


def python_version_no_wheel(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    py = b.python_minor(facts)
    if matrix is None or py is None:
        return
    native_windows = b.host_os(facts) == "windows" and not b.is_wsl(facts)
    from ..matrix.tables.model import python_span

    for build in b.builds(facts, matrix):
        release = build.torch_release or build.tf_release
        if release is None:
            continue
        tf = build.tf_release
        pythons = matrix.python_for(build.framework, build.version) or release.python  # the wheels' where known
        if py in pythons:
            continue
        if native_windows and tf is not None and tf.windows_python and py in tf.windows_python:
            continue
        exact = pythons is not release.python  # the published wheels of this exact release said it
        what = f"{build.framework} {build.version.split('+', 1)[0]}" if exact else f"{build.framework} {release.series}"
        span = python_span(pythons)
        evidence, documented = [f"this Python is {facts.host.python}", f"{what} has wheels for Python {span}"], tf.python_documented if tf else ()
        if documented and py in documented:
            evidence.append(f"TensorFlow's tested-build table lists Python {python_span(documented)}, but no {py} wheel of it was published")
        yield Finding(
            "python-version-no-wheel", Severity.ERROR, build.section,
            f"Python {py} has no wheel of {what}",
            tuple(evidence),
            b.install_fix(
                facts, matrix, build.framework, f"Use a {build.framework} release with wheels for Python {py}",
                f"or use Python {span} for {what}",
            ),
        )


def cuda_toolkit_major_mismatch_for_extensions(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    fw = facts.frameworks.torch if facts.frameworks else None
    if fw is None or not fw.cuda or fw.hip or b.vt(fw.cuda) is None:
        return
    found = extension_toolkit(facts)
    if found is None or b.vt(found[0].version) is None:
        return
    (used, where), toolkits = found, facts.cuda_toolkits or ()
    want = b.vt(fw.cuda)[0]
    if b.vt(used.version)[0] == want:
        return
    label = f"torch {fw.version or ''}".strip()
    right = [t for t in toolkits if t.version and b.vt(t.version) and b.vt(t.version)[0] == want and t.path]
    if right:
        path = right[0].path
        fix = Fix(
            f"Point the extension build at the installed CUDA {right[0].version} toolkit",
            (f"export CUDA_HOME={path}", f"export PATH={path}/bin:$PATH"),
            "https://pytorch.org/docs/stable/cpp_extension.html",
        )
    else:
        fix = Fix(
            f"Install a CUDA {fw.cuda} toolkit (any {want}.x works for extensions) and set CUDA_HOME to it before building extensions",
            (f"export CUDA_HOME=/usr/local/cuda-{fw.cuda}",),
            "https://developer.nvidia.com/cuda-toolkit-archive",
        )
    yield Finding(
        "cuda-toolkit-major-mismatch-for-extensions", Severity.WARNING, Section.CUDA,
        f"The local CUDA toolkit is {used.version} but {label} is built with CUDA {fw.cuda}: building CUDA extensions will fail",
        (
            f"{where}: CUDA {used.version} ({used.path or 'path unknown'})",
            f"{label} is built with CUDA {fw.cuda}; torch.utils.cpp_extension refuses a toolkit of another major",
            "running the framework itself needs no local toolkit: this matters only for compiling extensions",
        ),
        fix,
    )


def cuda_toolkit_newer_than_driver(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    from ..matrix.solver.driver import driver_os, driver_verdict

    driver = facts.driver
    toolkits = facts.cuda_toolkits or ()
    toolkit = next((t for t in toolkits if t.on_path), toolkits[0] if toolkits else None)
    if matrix is None or toolkit is None or b.vt(toolkit.version) is None or driver is None or not (driver.version or driver.cuda_version):
        return
    dv = driver_verdict(matrix, toolkit.version, driver.version, driver.cuda_version, driver_os(b.host_os(facts), b.is_wsl(facts)))
    if dv.ok and dv.mode == "minor-version compatibility":
        yield _ptx_newer_than_driver(toolkit.version, driver, dv)
        return
    if dv.ok is not False:
        return
    insufficient = [s for s in (facts.symptoms or ()) if s.kind == "driver-insufficient"]
    have = f"driver {driver.version}" if driver.version else f"the driver (CUDA {driver.cuda_version})"
    yield Finding(
        "cuda-toolkit-newer-than-driver", Severity.ERROR if insufficient else Severity.WARNING, Section.CUDA,
        f"The CUDA {toolkit.version} toolkit is newer than {have} supports: what nvcc builds will not run",
        (f"nvcc: CUDA {toolkit.version}" + (f" ({toolkit.path})" if toolkit.path else ""),
         (f"{have} supports CUDA {dv.driver_cuda}" if dv.driver_cuda else f"{have} is older than any CUDA release the matrix lists")
         + f"; CUDA {toolkit.version} needs driver >= {dv.need}",
         *(f"log: {s.text}" for s in insufficient[:1]),
         "pip wheels of PyTorch and TensorFlow bring their own CUDA; this matters for extensions, nvcc builds and JIT"),
        Fix(f"Upgrade the NVIDIA driver to >= {dv.need}" + (f", or use a CUDA toolkit no newer than CUDA {dv.driver_cuda}" if dv.driver_cuda else ""),
            ("nvidia-smi   # 'CUDA Version' is the newest CUDA the driver runs",), b.DRIVER_URL),
    )


def _ptx_newer_than_driver(toolkit: str, driver, dv) -> Finding:
    """A toolkit of the driver's CUDA major but a newer minor: what it builds to machine code runs (CUDA's minor-version
    compatibility, "with limited feature-set"), the PTX it writes does not (the driver's JIT is older than its PTX)."""
    have = f"driver {driver.version}" if driver.version else "the driver"
    return Finding(
        "cuda-toolkit-newer-than-driver", Severity.WARNING, Section.CUDA,
        f"The CUDA {toolkit} toolkit is newer than {have} (CUDA {dv.driver_cuda}): its programs run, but PTX it writes cannot be JIT-compiled by this driver",
        (f"nvcc: CUDA {toolkit}", f"{have} supports CUDA {dv.driver_cuda}; minor-version compatibility runs CUDA {toolkit} programs "
         "with a limited feature set: PTX from a newer compiler fails ('the provided PTX was compiled with an unsupported toolchain')",
         f"the driver of CUDA {toolkit} itself is {dv.full}"),
        Fix(f"Upgrade the driver to >= {dv.full}, or build for the GPU's own architecture (-arch=sm_XX, machine code) rather than PTX only",
            ("nvidia-smi   # 'CUDA Version': the newest CUDA whose PTX this driver compiles", "nvcc --version"),
            "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"),
    )


def numpy2_abi_mismatch(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    # "multiarray failed to import" follows any C-API refusal: where NumPy said it is the older one, that is the finding
    older = any(s.kind == "numpy-older-than-module" for s in facts.symptoms or ())
    logged = [] if older else [s for s in (facts.symptoms or ()) if s.kind == "numpy-abi"]
    numpy = b.vt((facts.python_packages or {}).get("numpy"))
    too_old = []
    if matrix is not None and numpy and numpy[0] >= 2:
        for build in b.builds(facts, matrix):
            since = matrix.torch_numpy2_since if build.framework == "torch" else matrix.tf_numpy2_since
            if b.vt(build.version)[:3] < b.vt(since):
                too_old.append((build, since))
    if not logged and not too_old:
        return
    section = too_old[0][0].section if too_old else Section.ENVIRONMENT
    evidence = [f"log: {s.text}" for s in logged[:2]]
    if numpy:
        evidence.append(f"numpy {'.'.join(map(str, numpy))} is installed")
    evidence += [f"{build.label} is built against NumPy 1.x (NumPy 2 builds start at {build.framework} {since})" for build, since in too_old]
    upgrades = [f"pip install '{'torch' if build.framework == 'torch' else 'tensorflow'}>={since}'" for build, since in too_old]
    yield Finding(
        "numpy2-abi-mismatch", Severity.ERROR, section,
        "NumPy 2 is installed with a package compiled against NumPy 1.x: it fails to import or to convert arrays",
        tuple(evidence),
        Fix("Install a NumPy 1.x, or upgrade the package built against NumPy 1.x", ("pip install 'numpy<2'", *upgrades),
            "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"),
    )


def _with_url(fix: Fix, url: str) -> Fix:
    return Fix(fix.summary, fix.commands, fix.url or url)


CHECKS = (
    matrix_unknown_version,
    driver_too_old_for_cuda_build,
    python_version_no_wheel,
    cuda_toolkit_major_mismatch_for_extensions,
    cuda_toolkit_newer_than_driver,
    numpy2_abi_mismatch,
)
