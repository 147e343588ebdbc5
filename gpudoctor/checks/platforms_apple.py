"""Apple silicon: can PyTorch's MPS device and TensorFlow's tensorflow-metal plug-in use the Mac's GPU? An x86_64
Python under Rosetta, a macOS older than MPS needs, and a tensorflow-metal of another TensorFlow are the failure
modes. NVIDIA checks do not apply on a Mac (checks/gpu.py leaves it to this module)."""

from __future__ import annotations

from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import on_mac, package

MPS_URL = "https://developer.apple.com/metal/pytorch/"
METAL_URL = "https://developer.apple.com/metal/tensorflow-plugin/"


def _apple(facts: Facts):
    return facts.host.apple if facts.host else None


def _apple_silicon(facts: Facts) -> bool | None:
    """True: an Apple-silicon Mac (arm64 Python, a translated one, or an "Apple M…" chip). None: cannot tell."""
    apple = _apple(facts)
    if apple is None:
        return None
    if apple.rosetta or apple.python_arch == "arm64" or (apple.chip or "").startswith("Apple"):
        return True
    if apple.rosetta is False and apple.python_arch == "x86_64":
        return False  # an Intel Mac: nothing is translated there
    return None


def _tables(matrix: object):
    tables = getattr(matrix, "platform_tables", None)
    return tables.apple if tables else None


def apple_gpu(facts: Facts, matrix: object) -> Iterator[Finding]:
    apple = _apple(facts)
    if not on_mac(facts) or apple is None or not _apple_silicon(facts) or apple.rosetta:
        return
    yield Finding(
        "apple-silicon-gpu", Severity.OK, Section.GPU,
        "Apple silicon GPU: PyTorch uses it as the `mps` device, TensorFlow through tensorflow-metal (NVIDIA checks do not apply)",
        tuple(x for x in (f"chip: {apple.chip}" if apple.chip else None, f"macOS {apple.macos}" if apple.macos else None,
                          f"Python architecture: {apple.python_arch}" if apple.python_arch else None) if x),
    )


def apple_python_under_rosetta(facts: Facts, matrix: object) -> Iterator[Finding]:
    apple = _apple(facts)
    if apple is None or not apple.rosetta:
        return
    yield Finding(
        "apple-python-under-rosetta", Severity.ERROR, Section.GPU,
        "This Python is an x86_64 build running under Rosetta on an Apple-silicon Mac: no MPS, no tensorflow-metal",
        ("sysctl.proc_translated = 1 (the process is translated)" if not (facts.provenance or {}).get("host.apple.rosetta")
         else f"translated by Rosetta: {facts.provenance['host.apple.rosetta']}", f"Python architecture: {apple.python_arch or 'unknown'}")
        + ((f"chip: {apple.chip}",) if apple.chip else ()),
        Fix(
            "Install a native arm64 Python (python.org's universal2 installer, Homebrew in /opt/homebrew, or Miniforge's "
            "arm64 installer), recreate the environment with it, then reinstall the frameworks",
            ('python3 -c "import platform; print(platform.machine())"   # must print arm64',
             "curl -LO https://github.com/conda-forge/miniforge/releases/latest/download/Miniforge3-MacOSX-arm64.sh",
             "bash Miniforge3-MacOSX-arm64.sh"),
            MPS_URL,
        ),
    )


def apple_macos_too_old_for_mps(facts: Facts, matrix: object) -> Iterator[Finding]:
    apple = _apple(facts)
    if apple is None or not apple.macos or not _apple_silicon(facts) or apple.rosetta:
        return
    tables = _tables(matrix)  # each check reads the table only when the facts call for it (unpickled on first use)
    if tables is None:
        return
    if apple.macos == "10.16":
        return  # what macOS 11+ reports to a Python built with an old SDK (SYSTEM_VERSION_COMPAT): not the real version
    from ..matrix.tables.model import try_vtuple

    have, need = try_vtuple(apple.macos), try_vtuple(tables.mps_min_macos)
    if not have or not need or have >= need:
        return
    torch = package(facts, "torch")
    yield Finding(
        "apple-macos-too-old-for-mps", Severity.ERROR if torch else Severity.WARNING, Section.GPU,
        f"macOS {apple.macos} is older than the {tables.mps_min_macos} PyTorch's MPS device needs: training runs on the CPU",
        (f"macOS {apple.macos}", f"MPS needs macOS {tables.mps_min_macos} or later (PyTorch's MPS notes)")
        + ((f"torch {torch} is installed",) if torch else ()),
        Fix("Update macOS (System Settings → General → Software Update)", (), MPS_URL),
    )


def torch_mps_runtime(facts: Facts, matrix: object) -> Iterator[Finding]:
    """With --deep: what torch.backends.mps said in a child process."""
    torch = facts.frameworks.torch if facts.frameworks else None
    if not torch or torch.mps_available is None or not on_mac(facts):
        return
    label = f"torch {torch.version or '(version unknown)'}"
    if torch.mps_available:
        yield Finding("torch-mps-available", Severity.OK, Section.TORCH, f"{label} sees the Apple GPU as the mps device",
                      ("torch.backends.mps.is_available() = True",))
        return
    if not _apple_silicon(facts) or (_apple(facts) and _apple(facts).rosetta):
        return  # an Intel Mac has no MPS to offer; under Rosetta the Rosetta finding says why
    evidence = (f"torch.backends.mps.is_built() = {torch.mps_built}", "torch.backends.mps.is_available() = False")
    fix = Fix("Install the macOS arm64 wheel from the package index (it has MPS built in)",
              ("pip uninstall -y torch torchvision torchaudio", "pip install torch torchvision torchaudio"), MPS_URL)
    yield Finding("torch-mps-unavailable", Severity.ERROR, Section.TORCH,
                  f"{label} does not see the Apple GPU (MPS): training runs on the CPU", evidence, fix)


def tf_metal_version_mismatch(facts: Facts, matrix: object) -> Iterator[Finding]:
    metal = package(facts, "tensorflow-metal")
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    tf_version = (tf.version if tf else None) or package(facts, "tensorflow") or package(facts, "tensorflow-macos")
    if not metal or not tf_version:
        return
    tables = _tables(matrix)
    if tables is None:
        return
    pairing = tables.metal_pairing(metal)
    if pairing is None:
        return  # a plug-in newer than the table: not judged
    from ..matrix.tables.broken import in_range

    if in_range(tf_version, pairing.tensorflow) is not False:
        return
    right = tables.metal_for_tf(tf_version)
    commands = (f"pip install 'tensorflow-metal=={right.plugin}.*'",) if right else ()
    summary = (f"Install tensorflow-metal {right.plugin} (the plug-in for TensorFlow {tf_version})" if right
               else f"Install a TensorFlow that tensorflow-metal {metal} supports ({pairing.tensorflow})")
    yield Finding(
        "tf-metal-version-mismatch", Severity.ERROR, Section.TENSORFLOW,
        f"tensorflow-metal {metal} is the plug-in for TensorFlow {pairing.tensorflow}, not for the installed {tf_version}",
        (f"tensorflow-metal {metal}: TensorFlow {pairing.tensorflow} (the plug-in's own table)", f"TensorFlow {tf_version} is installed"),
        Fix(summary, commands, METAL_URL),
    )


def tf_metal_missing(facts: Facts, matrix: object) -> Iterator[Finding]:
    """TensorFlow on Apple silicon without the tensorflow-metal plug-in runs on the CPU: a note where a whole package
    list shows it absent (the CPU is a fine choice), a warning where TensorFlow lists no GPU (the GPU was wanted),
    even where no package list says whether the plug-in is installed."""
    tf = facts.frameworks.tensorflow if facts.frameworks else None
    tf_version = package(facts, "tensorflow") or package(facts, "tensorflow-macos") or (tf.version if tf else None)
    packages = facts.python_packages or {}
    listed_absent = facts.python_packages is not None and "tensorflow-metal" in packages and not packages["tensorflow-metal"]
    no_gpu = tf is not None and tf.gpus_visible == 0 and not packages.get("tensorflow-metal")
    if not tf_version or not (listed_absent or no_gpu) or not _apple_silicon(facts) or (_apple(facts) and _apple(facts).rosetta):
        return
    tables = _tables(matrix)
    if tables is None:
        return
    right = tables.metal_for_tf(tf_version)
    evidence = ("tensorflow-metal is not installed" if listed_absent else "no package list says whether tensorflow-metal is installed",)
    if no_gpu:
        evidence += ("TensorFlow lists no GPU device (tf.config.list_physical_devices('GPU') is empty)",)
    yield Finding(
        "tf-metal-missing", Severity.WARNING if no_gpu else Severity.INFO, Section.TENSORFLOW,
        f"TensorFlow {tf_version} on Apple silicon " + ("sees no GPU: the Apple GPU needs the tensorflow-metal plug-in" if no_gpu
                                                         else "without tensorflow-metal: it runs on the CPU only"),
        evidence,
        Fix("Install the tensorflow-metal plug-in for this TensorFlow to train on the Apple GPU",
            (f"pip install 'tensorflow-metal=={right.plugin}.*'",) if right else ("pip install tensorflow-metal",), METAL_URL),
    )


CHECKS = (apple_gpu, apple_python_under_rosetta, apple_macos_too_old_for_mps, torch_mps_runtime,
          tf_metal_version_mismatch, tf_metal_missing)
