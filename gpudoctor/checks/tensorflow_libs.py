"""Libraries a framework build loads at run time: TensorFlow's CUDA/cuDNN libraries, the cuDNN version that will
be loaded, LD_LIBRARY_PATH shadowing the framework's own libraries, and TensorFlow on native Windows.

Linux (and WSL2) only for the loader rules: the Windows DLL search is another story. Pure: reads Facts and Matrix."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..model import Facts, Finding, Fix, Library, Section, Severity
from . import _builds as b

if TYPE_CHECKING:
    from ..matrix.tables.model import Matrix

_SONAME_VERSION = re.compile(r"\.so\.(\d+(?:\.\d+)*)")


def lib_version(lib: Library) -> tuple[int, ...] | None:
    """The library's version, or what its file name says (libcudnn.so.8 -> (8,); libcudart.so.10.0 -> (10, 0))."""
    v = b.vt(lib.version)
    if v:
        return v
    m = _SONAME_VERSION.search(lib.path or "")
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def cudart_need(cuda: str) -> tuple[int, ...]:
    """Before CUDA 11 the runtime soname carries major.minor (libcudart.so.10.0: 10.1 does not provide it); then the major."""
    v = b.vt(cuda) or (0,)
    return v[:2] if v[0] < 11 else v[:1]


def _dir(path: str) -> str:
    return path.rsplit("/", 1)[0].rstrip("/") if "/" in path else ""


def ld_dirs(facts: Facts) -> list[str]:
    value = facts.host.env.get("LD_LIBRARY_PATH") if facts.host and facts.host.env else None
    return [d.rstrip("/") for d in (value or "").split(":") if d]


def _linux(facts: Facts) -> bool:
    os = b.host_os(facts)
    return os == "linux"


def _older(have: tuple[int, ...], need: tuple[int, ...]) -> bool | None:
    """have < need compared on the components both know (None when only the major is known and it is equal)."""
    n = min(len(have), len(need), 2)
    if have[0] != need[0]:
        return have[0] < need[0]
    if n < 2:
        return None
    return have[:n] < need[:n]


def _vstr(v: tuple[int, ...]) -> str:
    return ".".join(map(str, v))


# -- tf-missing-gpu-libs ------------------------------------------------------------------------------------------


def tf_missing_gpu_libs(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    from ._facts import gpu_presence

    presence = gpu_presence(facts)
    if matrix is None or presence is False or facts.gpus == () or not _linux(facts):
        return  # with the GPU unknown the libraries are still judged: a build that cannot load them cannot use any GPU
    build = next((x for x in b.builds(facts, matrix) if x.framework == "tensorflow"), None)
    if build is None or not build.cuda or build.cuda_major is None:
        return
    libs = facts.libraries
    packages = facts.python_packages
    missing = []
    evidence = [f"{build.label} is a CUDA {build.cuda} build" + (f" (cuDNN {build.cudnn})" if build.cudnn else "")]
    cuda_major = build.cuda_major
    wheels = cuda_major >= 11  # nvidia-*-cu11 / -cu12 wheels exist from CUDA 11 on; older builds need system libraries
    from_pip = build.tf_release is not None and build.tf_release.has_and_cuda  # 2.14+: pip is the documented way
    uncertain = False  # a wheel known absent, the loader path unknown: a system copy could still serve
    for kind, wheel, need in (
        ("libcudart", f"nvidia-cuda-runtime-cu{cuda_major}", cudart_need(build.cuda)),
        ("libcudnn", f"nvidia-cudnn-cu{cuda_major}", b.vt(build.cudnn)[:1] if build.cudnn and b.vt(build.cudnn) else None),
    ):
        found = getattr(libs, kind) if libs else None
        installed = packages.get(wheel) if packages is not None and wheels else None
        if installed:
            continue
        if found is None and from_pip and packages is not None and wheel in packages:
            # "absent" is a value: a whole package list without the wheel (issue 20, class 2)
            uncertain = True
            missing.append((kind, wheel, None))
            evidence.append(f"no {wheel} wheel in the whole package list (whether a system {kind} is on the loader path is not known)")
            continue
        if found is None or (packages is None and wheels):
            continue  # cannot tell for this library: unknown never raises an error (another may still be proven missing)
        versions = [lib_version(lib) for lib in found]
        if need is None:
            if found:
                continue
        elif any(v and v[: len(need)] == need for v in versions):
            continue
        elif any(v and len(v) < len(need) and v[0] == need[0] for v in versions):
            continue  # only the major is known (libcudart.so.10): cannot tell whether it is 10.0
        elif kind == "libcudnn" and found:
            continue  # a cuDNN of another major: cudnn-version-mismatch says so
        soname = f"{kind}.so.{_vstr(need) if need else '*'}"
        missing.append((kind, wheel, need))
        evidence.append(f"no {soname} found by the loader" + (f" and no {wheel} wheel installed" if wheels else ""))
        if kind == "libcudart" and len(need) == 2:
            others = sorted({_vstr(v[:2]) for v in versions if v and v[0] == need[0] and len(v) >= 2 and v[:2] != need})
            if others:
                evidence.append(f"the loader finds CUDA runtime {', '.join(others)}: before CUDA 11 each minor has its own soname, so it does not stand in for {_vstr(need)}")
    if not missing:
        return
    release = build.tf_release
    if release is not None and release.has_and_cuda:
        summary = "Install TensorFlow with its CUDA libraries (the `and-cuda` extra)"
        prefer = build.version if b.vt(build.version) and len(b.vt(build.version)) >= 3 else None
        if presence:
            fix = b.install_fix(facts, matrix, "tensorflow", summary, prefer_version=prefer)
        else:  # the GPU unknown: the solver would pick the CPU build for a machine without one, which installs no library
            fix = Fix(summary, (f"pip install 'tensorflow[and-cuda]{'==' + prefer if prefer else ''}'",), b.TF_PIP_URL)
    elif release is not None and not wheels:
        cudnn_major = release.cudnn.split(".")[0]
        fix = Fix(
            f"{build.label} loads the CUDA {release.cuda} runtime (libcudart.so.{_vstr(cudart_need(release.cuda))}) and cuDNN {cudnn_major}.x >= {release.cudnn} "
            f"(libcudnn.so.{cudnn_major}) from the system: install the CUDA {release.cuda} toolkit (no other {cuda_major}.x provides that runtime) and "
            f"cuDNN {release.cudnn} or a newer {cudnn_major}.x for CUDA {release.cuda}, then put their lib64 on LD_LIBRARY_PATH; "
            "or upgrade to a TensorFlow 2.14+ with `pip install 'tensorflow[and-cuda]'`",
            (f"export LD_LIBRARY_PATH=/usr/local/cuda-{release.cuda}/lib64:$LD_LIBRARY_PATH",),
            "https://www.tensorflow.org/install/source#gpu",
        )
    elif release is not None:
        fix = Fix(
            f"tensorflow {release.series} has no `and-cuda` extra: install CUDA {release.cuda} and cuDNN {release.cudnn} and put their lib64 on LD_LIBRARY_PATH, "
            "or upgrade to a TensorFlow 2.14+ with `pip install 'tensorflow[and-cuda]'`",
            b.install_fix(facts, matrix, "tensorflow", "upgrade").commands,
            "https://www.tensorflow.org/install/source#gpu",
        )
    else:
        fix = Fix("Install the CUDA libraries with `pip install 'tensorflow[and-cuda]'`", ("pip install 'tensorflow[and-cuda]'",), b.TF_PIP_URL)
    if uncertain:
        yield Finding(
            "tf-missing-gpu-libs", Severity.WARNING, Section.TENSORFLOW,
            f"{build.label} has no CUDA libraries from pip (`tensorflow[and-cuda]`): unless a system CUDA {build.cuda} and "
            f"cuDNN are on the loader path, it runs on the CPU", tuple(evidence), fix)
        return
    if not presence:
        yield Finding(
            "tf-missing-gpu-libs", Severity.WARNING, Section.TENSORFLOW,
            f"{build.label} cannot use a GPU: the CUDA libraries it was built for are not installed (if this machine has an NVIDIA GPU)",
            tuple(evidence), fix)
        return
    yield Finding(
        "tf-missing-gpu-libs", Severity.ERROR, Section.TENSORFLOW,
        f"{build.label} cannot use the GPU: its CUDA {'and cuDNN ' if len(missing) > 1 else ''}libraries are not installed"
        if len(missing) > 1 or missing[0][0] == "libcudart" else f"{build.label} cannot use the GPU: cuDNN {build.cudnn} is not installed",
        tuple(evidence),
        fix,
    )


# -- cudnn-version-mismatch and ld-library-path-wrong-cuda-libs ---------------------------------------------------


def cudnn_version_mismatch(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    if matrix is None or not _linux(facts):
        return
    dirs = set(ld_dirs(facts))
    for build in b.builds(facts, matrix):
        need = b.vt(build.cudnn)
        if not build.cuda or need is None or build.cuda_major is None:
            continue
        wheel = f"nvidia-cudnn-cu{build.cuda_major}"
        own = (facts.python_packages or {}).get(wheel)
        libs = facts.libraries.libcudnn if facts.libraries else None
        shadowing = _first_same_major(libs or (), need[0])
        if shadowing is not None and _dir(shadowing.path or "") in dirs:
            continue  # the loader takes the LD_LIBRARY_PATH copy first: ld-library-path-wrong-cuda-libs judges it
        if own:
            have = b.vt(own)
            if have and (have[0] != need[0] or _older(have, need)):
                yield _cudnn_finding(facts, matrix, build, f"{wheel} {own} is installed", have, need, wheel)
            continue
        if build.framework == "torch" or libs is None or not libs:
            continue  # torch without a cuDNN wheel bundles its own; no library facts: cannot tell
        if shadowing is not None:
            have = lib_version(shadowing)
            if have and _older(have, need):
                yield _cudnn_finding(facts, matrix, build, f"the loader finds cuDNN {_vstr(have)} first ({shadowing.path})", have, need, wheel)
            elif have and _exact_minor_era(matrix, build) and len(have) >= 2 and len(need) >= 2 and have[:2] != need[:2]:
                yield _cudnn_finding(facts, matrix, build, f"the loader finds cuDNN {_vstr(have)} first ({shadowing.path}); tensorflow up to "
                                     f"{matrix.tf_cudnn_same_minor_through} accepts only the cuDNN {_vstr(need[:2])} it was built with", have, need, wheel)
            continue
        have = lib_version(libs[0])
        if have and have[0] != need[0]:
            yield _cudnn_finding(facts, matrix, build, f"the loader finds only cuDNN {_vstr(have)} ({libs[0].path}), no cuDNN {need[0]}", have, need, wheel)
        elif have and _exact_minor_era(matrix, build) and len(have) >= 2 and len(need) >= 2 and have[:2] != need[:2]:
            yield _cudnn_finding(facts, matrix, build, f"the loader finds cuDNN {_vstr(have)} ({libs[0].path}); tensorflow up to "
                                 f"{matrix.tf_cudnn_same_minor_through} accepts only the cuDNN {_vstr(need[:2])} it was built with", have, need, wheel)


def _exact_minor_era(matrix: "Matrix", build: b.Build) -> bool:
    """TensorFlow releases whose cuDNN check demanded the exact major.minor (matrices/tensorflow.toml)."""
    through = b.vt(matrix.tf_cudnn_same_minor_through)
    have = b.vt(build.version)
    return build.framework == "tensorflow" and through is not None and have is not None and have[:2] <= through[:2]


def _first_same_major(libs: tuple[Library, ...], major: int) -> Library | None:
    for lib in libs:
        v = lib_version(lib)
        if v and v[0] == major:
            return lib
    return None


def _cudnn_finding(facts: Facts, matrix: "Matrix", build: b.Build, found: str, have: tuple[int, ...], need: tuple[int, ...], wheel: str) -> Finding:
    kind = "of another major" if have[0] != need[0] else "older" if have < need else "of another minor"
    need_text = _vstr(need)
    if build.framework == "tensorflow" and build.tf_release is not None and build.tf_release.has_and_cuda:
        pin = build.tf_release.and_cuda_pin(wheel)
        if pin and "==" in pin:
            fix = Fix(f"Install the cuDNN {build.label} was built with", (f"pip install '{pin}'",), b.TF_PIP_URL)
        else:
            fix = Fix(f"Install a cuDNN {need[0]}.x at least {need_text}", (f"pip install '{wheel}>={need_text},<{need[0] + 1}'",), b.TF_PIP_URL)
    elif build.framework == "torch":
        fix = Fix(
            f"Reinstall {build.label} so that pip puts back the cuDNN it pins (another package replaced it)",
            (f"pip install --force-reinstall 'torch=={build.version.split('+')[0]}'" + (f" --index-url {matrix.torch_index(build.torch_variant.tag)}" if build.torch_variant else ""),),
            b.TORCH_PREVIOUS_URL,
        )
    else:
        fix = Fix(
            f"Install cuDNN {need_text} for CUDA {build.cuda} and put it first on the loader path, or move to a TensorFlow 2.14+ with `and-cuda`",
            b.install_fix(facts, matrix, "tensorflow", "upgrade").commands,
            "https://docs.nvidia.com/deeplearning/cudnn/latest/support-matrix/index.html",
        )
    return Finding(
        "cudnn-version-mismatch", Severity.ERROR, Section.CUDNN,
        f"cuDNN {_vstr(have)} is {kind} than the cuDNN {need_text} {build.label} was built with",
        (found, f"{build.label} needs cuDNN {_vstr(need[:2])} exactly (this release checks the major.minor)" if kind == "of another minor" else
         f"{build.label} needs cuDNN {need[0]}.x >= {need_text} (same major, equal or newer minor)" if need[0] >= 7 else f"{build.label} needs cuDNN {need_text} (libcudnn.so.{need[0]}): before cuDNN 7, TensorFlow loads only the major.minor it was built with"),
        fix,
    )


def ld_library_path_wrong_cuda_libs(facts: Facts, matrix: "Matrix | None") -> Iterator[Finding]:
    if matrix is None or not _linux(facts) or facts.libraries is None:
        return
    dirs = ld_dirs(facts)
    if not dirs:
        return
    for build in b.builds(facts, matrix):
        if not build.cuda or build.cuda_major is None:
            continue
        checks = [("libcudart", "CUDA runtime", b.vt(build.cuda)[:2]), ("libcudnn", "cuDNN", b.vt(build.cudnn))]
        for kind, what, need in checks:
            libs = getattr(facts.libraries, kind)
            if not libs or not need:
                continue
            first = _first_same_major(libs, need[0])
            if first is None or _dir(first.path or "") not in dirs:
                continue
            have = lib_version(first)
            if not have or not _older(have, need):
                continue
            directory = _dir(first.path)
            rest = [d for d in dirs if d != directory]
            export = f"export LD_LIBRARY_PATH={':'.join(rest)}" if rest else "unset LD_LIBRARY_PATH"
            yield Finding(
                "ld-library-path-wrong-cuda-libs", Severity.ERROR, Section.ENVIRONMENT,
                f"LD_LIBRARY_PATH puts {what} {_vstr(have)} before the {what} {_vstr(need)}+ that {build.label} needs",
                (
                    f"LD_LIBRARY_PATH={':'.join(dirs)}",
                    f"the loader finds {first.path} ({what} {_vstr(have)}) first: LD_LIBRARY_PATH wins over the framework's own libraries",
                    f"{build.label} needs {what} {need[0]}.x >= {_vstr(need)}",
                ),
                Fix(
                    f"Remove {directory} from LD_LIBRARY_PATH (the framework brings its own {what}; also check ~/.bashrc and module files)",
                    (export,),
                    "https://docs.nvidia.com/deeplearning/cudnn/latest/installation/linux.html",
                ),
            )


CHECKS = (
    tf_missing_gpu_libs,
    cudnn_version_mismatch,
    ld_library_path_wrong_cuda_libs,
)
