"""TensorFlow: the newest release a target runs. Linux/WSL2 x86_64: the `and-cuda` extra (2.14+) or, before it,
TensorFlow's documented conda recipe (CUDA and cuDNN in the environment, the loader path pointed at them); native
Windows: the 2.10 conda route; macOS: the CPU build (arm64 from 2.13, x86_64 up to 2.16)."""

from __future__ import annotations

from ..tables.model import Matrix, TfRelease, cc_tuple, try_vtuple, vtuple
from ._solve_core import Choice, NoFit, Target, gpu_fit, pick_python, py_range, select


def solve_tf(matrix: Matrix, target: Target, version: str | None, cpu: bool) -> tuple[Choice | None, list[str]]:
    use_gpu = target.wants_gpu_build(cpu)
    if use_gpu and target.os == "windows" and not target.wsl:
        return tf_windows(matrix, target, version), []
    rejects: list[str] = []
    for release, exact in select(matrix.tensorflow, version, "tensorflow", matrix):
        assert isinstance(release, TfRelease)
        blocked = _platform_block(matrix, target, release, exact)
        if blocked:
            rejects.append(blocked)
            continue
        # The published wheels decide (matrices/wheels.toml): their Pythons, and on the GPU route only those the
        # and-cuda extra's pins install on (TF 2.14's tensorrt==8.5.3.1 has no wheel past 3.10).
        wheel_pythons = matrix.python_for("tensorflow", exact) or release.python
        pythons = wheel_pythons
        if use_gpu and release.has_and_cuda:
            pythons = matrix.python_for("tensorflow", exact, and_cuda=True) or wheel_pythons
        cap = pythons[-1] if pythons and pythons != wheel_pythons else None
        py = pick_python(pythons, target.python)
        if py is None:
            why = f"; its `and-cuda` set installs on Python <= {cap} only ({release.and_cuda_pin('tensorrt') or 'a pinned package'} has no newer wheels)" if cap else ""
            rejects.append(f"tensorflow {exact} has no wheel for Python {target.python} (it has {py_range(wheel_pythons)}){why}")
            continue
        py_reason = f"Python {py}: tensorflow {exact} has wheels for Python {py_range(wheel_pythons)}"
        if cap:
            py_reason += f"; its `and-cuda` set needs Python <= {cap} ({release.and_cuda_pin('tensorrt')} has no newer wheels)"
        skipped = tuple(dict.fromkeys(r for r in rejects if f" {exact}" not in r))
        if not use_gpu:
            if cpu:
                why = "a CPU build was asked for"
            elif target.os == "darwin":
                why = f"macOS {target.arch}: TensorFlow has no CUDA build there (the CPU build; Metal through the separate tensorflow-metal plugin)"
            else:
                why = "no NVIDIA GPU: runs on the CPU"
            packages, notes = (f"tensorflow=={exact}",), ()
            if not cpu and target.os == "darwin" and target.arch != "x86_64":
                packages, why, notes = _with_metal(matrix, exact, py, packages, why)
            mps = "mps" if any(p.startswith("tensorflow-metal") for p in packages) else None
            return Choice("tensorflow", exact, "cpu", None, packages, py, None, reasons=(py_reason, why), notes=notes, skipped=skipped,
                          accelerator=mps), rejects
        choice = _gpu_choice(matrix, target, release, exact, py, py_reason, rejects)
        if choice is not None:
            return choice, rejects
    return None, rejects


def _platform_block(matrix: Matrix, target: Target, release: TfRelease, exact: str) -> str | None:
    plat = matrix.platforms
    if target.os != "darwin" or plat is None:
        return None
    if target.arch == "x86_64" and vtuple(release.series) > vtuple(plat.tf_macos_x86_64_last):
        return f"tensorflow {exact} has no macOS x86_64 wheel (Intel Macs stop at tensorflow {plat.tf_macos_x86_64_last}; newer releases are arm64 only)"
    if target.arch != "x86_64" and vtuple(release.series) < vtuple(plat.tf_macos_arm64_since):
        return f"tensorflow {exact} has no macOS arm64 wheel (`tensorflow` has them from {plat.tf_macos_arm64_since}; older ones were the separate tensorflow-macos)"
    return None


def _gpu_choice(matrix: Matrix, target: Target, release: TfRelease, exact: str, py: str, py_reason: str, rejects: list[str]) -> Choice | None:
    label = f"tensorflow {exact}"
    runtime = _resolved_cuda(matrix, release)
    fit = gpu_fit(matrix, target, release.arch, release.arch_confirmed, runtime, label, rejects, ptx_cuda=release.cuda)
    if fit is None:
        return None
    skipped = tuple(dict.fromkeys(r for r in rejects if f" {exact}" not in r))
    reasons = [py_reason, *fit.reasons]
    notes = list(fit.notes)
    if release.has_and_cuda:
        packages = [f"tensorflow[and-cuda]=={exact}"]
        cudnn = f"cuDNN {release.cudnn}"
        pin = release.cudnn_pin_below_cc
        low = [cc for cc in target.compute_capabilities if pin and cc_tuple(cc) < cc_tuple(pin[0])]
        if pin and low:
            packages.append(pin[1])
            cudnn = f"cuDNN {pin[1].split('==')[-1]} (pinned)"
            notes.append(
                f"{pin[1]} pinned: `and-cuda` lets pip take the newest cuDNN 9, and cuDNN >= 9.11 no longer supports compute capability < {pin[0]} ({', '.join(low)})"
            )
        elif runtime != release.cuda:
            cudnn = f"the newest cuDNN {vtuple(release.cudnn)[0]}.x"
        if runtime != release.cuda:
            reasons.append(
                f"tensorflow {release.series} was built with CUDA {release.cuda} / cuDNN {release.cudnn}; its `and-cuda` extra takes version ranges, "
                f"so pip installs CUDA {runtime} and {cudnn} as nvidia-* wheels"
            )
        else:
            reasons.append(f"tensorflow {release.series} installs its CUDA {release.cuda} / cuDNN {release.cudnn} libraries as nvidia-* wheels (`and-cuda` extra)")
        return Choice("tensorflow", exact, "and-cuda", None, tuple(packages), py, runtime, reasons=tuple(reasons), notes=tuple(notes), skipped=skipped)
    plat = matrix.platforms
    recipe = plat.tf_recipe(release.series) if plat else None
    linux = target.os == "linux" and target.arch == "x86_64"
    package = f"{release.package}=={exact}"
    if linux and recipe is None and plat is not None and plat.tf_system_route(release.series):
        return _system_choice(matrix, release, exact, py, package, reasons, notes, skipped)
    unavailable = plat.tf_unavailable_why(release.series, release.cudnn) if plat and linux else None
    if unavailable:
        rejects.append(f"{label}: {unavailable}")
        return None
    if recipe is None or not linux:
        rejects.append(f"{label} has no `and-cuda` extra and gpudoctor knows no recipe for its CUDA {release.cuda} / cuDNN {release.cudnn} here")
        return None
    ld = recipe.ld_library_path.replace("{python}", py)
    where = recipe.origin or "TensorFlow's Linux recipe"
    reasons.append(
        f"tensorflow {exact} has no `and-cuda` extra (it came with 2.14): CUDA {release.cuda} and cuDNN {release.cudnn} go into the conda "
        f"environment ({', '.join(recipe.conda + recipe.pip)}) and the loader is pointed at them; {where}"
    )
    if release.package != "tensorflow":
        reasons.append(f"tensorflow {release.series}'s CUDA build is the `{release.package}` distribution (its plain `tensorflow` wheel has no GPU code)")
    notes.append(f"tensorflow {exact} finds CUDA and cuDNN only with LD_LIBRARY_PATH={ld} set in the activated environment")
    for pin in recipe.pins:
        notes.append(f"{pin} pinned: tensorflow {exact} does not cap it, and its generated protocol-buffer code fails to import with protobuf >= 4.21")
    return Choice(
        "tensorflow", exact, f"cuda-{release.cuda}-conda", None, (package, *recipe.pip), py, release.cuda,
        conda_packages=recipe.conda, reasons=tuple(reasons), notes=tuple(notes), skipped=skipped, env=(("LD_LIBRARY_PATH", ld),),
        pins=recipe.pins,
    )


def _system_choice(matrix: Matrix, release: TfRelease, exact: str, py: str, package: str, reasons: list[str], notes: list[str], skipped: tuple[str, ...]) -> Choice:
    """A release whose CUDA has no conda-forge build: the GPU wheel, and CUDA / cuDNN from the system (or the Dockerfile's
    nvidia/cuda image)."""
    plat = matrix.platforms
    image = plat.live_cuda_image(release.cuda) if plat else None  # a deleted image is never suggested
    cudnn_major = vtuple(release.cudnn)[0]
    reasons.append(
        f"tensorflow {exact} has no `and-cuda` extra and conda-forge has no CUDA {release.cuda} build: `{release.package}` loads CUDA {release.cuda} "
        f"(libcudart.so.{release.cuda}) and cuDNN {cudnn_major} from the system"
    )
    needs = f"CUDA {release.cuda} and cuDNN {release.cudnn}.x for CUDA {release.cuda} (NVIDIA's packages)"
    if image is not None:
        needs += f", or the {image.image} image the Dockerfile starts from"
    notes.append(f"needs from the system: {needs}; pip installs only the Python package")
    return Choice(
        "tensorflow", exact, f"cuda-{release.cuda}-system", None, (package,), py, release.cuda,
        reasons=tuple(reasons), notes=tuple(notes), skipped=skipped,
    )


def _resolved_cuda(matrix: Matrix, release: TfRelease) -> str:
    """The CUDA an `and-cuda` install really runs: the release's own where the extra pins it, else (ranges such as
    `nvidia-cuda-runtime-cu12>=12.5.82,<13.0`) the newest minor of that major in the CUDA table."""
    runtime = release.and_cuda_pin("nvidia-cuda-runtime-cu")
    if not runtime or "==" in runtime:
        return release.cuda
    major = vtuple(release.cuda)[0]
    minors = [r.minor for r in matrix.cuda_releases if vtuple(r.version)[0] == major]
    return max(minors, key=vtuple) if minors else release.cuda


def tf_windows(matrix: Matrix, target: Target, version: str | None) -> Choice:
    last = matrix.tf_release(matrix.tf_windows_gpu_last)
    assert last is not None
    wsl = (
        f"TensorFlow newer than {last.series} has no GPU support on native Windows: for a current release use WSL2 "
        f"({matrix.tf_wsl_min_windows} or later) and `pip install 'tensorflow[and-cuda]'` there"
    )
    if version is not None:
        pinned = matrix.tf_release(version)
        if pinned is None or not pinned.windows_gpu:
            raise NoFit(
                f"tensorflow {version} has no GPU support on native Windows (the last release with it is {last.latest})",
                reasons=(wsl,),
                suggestion=f"use WSL2, or tensorflow=={last.latest} with Python {py_range(last.windows_python)}",
            )
        release, exact = pinned, (version if len(vtuple(version)) >= 3 else pinned.latest)
    else:
        release, exact = last, last.latest
    pythons = release.windows_python or release.python
    reasons = []
    if target.python and target.python in pythons:
        py = target.python
    else:
        py = pick_python(pythons, None)
        if target.python:
            reasons.append(
                f"Python {target.python} has no tensorflow {exact} wheel: the native-Windows GPU route needs Python {py_range(pythons)} (a separate environment with Python {py})"
            )
    reasons.append(f"native Windows: tensorflow {exact} is the last release with GPU support there (CUDA {release.windows_cuda}, cuDNN {release.windows_cudnn})")
    cuda = release.windows_cuda or release.cuda
    rejects: list[str] = []
    fit = gpu_fit(matrix, target, release.arch, release.arch_confirmed, cuda, f"tensorflow {exact}", rejects)
    if fit is None:
        raise NoFit(f"tensorflow {exact} cannot use this GPU on native Windows", reasons=tuple(rejects) + (wsl,), suggestion="use WSL2 with a current TensorFlow")
    conda = matrix.tf_windows_gpu_conda if release.series == last.series else (f"cudatoolkit={release.windows_cuda}", f"cudnn={release.windows_cudnn}")
    venv = (
        "requirements.txt / pyproject-uv.toml: a plain venv finds conda's CUDA DLLs only while that conda environment is "
        "activated (its Library\\bin is on PATH then); environment.yml keeps both in one environment"
    )
    pkg = release.package if try_vtuple(exact) and vtuple(exact)[0] < 2 else "tensorflow"
    return Choice(
        framework="tensorflow",
        version=exact,
        variant=f"cuda-{cuda}-conda",
        index_url=None,
        packages=(f"{pkg}=={exact}",),
        python=py,
        cuda=cuda,
        conda_packages=tuple(conda),
        reasons=tuple(reasons) + fit.reasons,
        notes=fit.notes + (wsl, venv),
    )


def _with_metal(matrix: Matrix, exact: str, py: str, packages: tuple[str, ...], why: str) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """Apple silicon: tensorflow-metal of this TensorFlow (matrices/apple.toml), where it has a wheel for this Python."""
    tables = matrix.platform_tables
    pairing = tables.apple.metal_for_tf(exact) if tables and tables.apple else None
    if pairing is None:
        return packages, why, (f"no tensorflow-metal is known for tensorflow {exact}: it trains on the CPU",)
    if pairing.python and py not in pairing.python:
        return packages, why, (f"tensorflow-metal {pairing.plugin} has no wheel for Python {py} (it has {', '.join(pairing.python)}): "
                               f"ask for --python {pairing.python[-1]} to train on the Apple GPU",)
    return (*packages, f"tensorflow-metal=={pairing.plugin}.*"), (
        f"macOS arm64: tensorflow-metal {pairing.plugin} (the plug-in for TensorFlow {pairing.tensorflow}) trains on the Apple GPU"), ()
