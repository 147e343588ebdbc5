"""Exact printed text of the reports for recorded machines (Flutter's doctor tests check the exact lines), plus the
rules a reader relies on: error evidence without -v, the [-] box for "not applicable", --ignore keeping the rest,
colour only on a real terminal, and NO_COLOR honoured there."""

from __future__ import annotations

import dataclasses
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpudoctor import __version__
from gpudoctor.checks import run_checks
from gpudoctor.cli import main
from gpudoctor.matrix import load_matrix
from gpudoctor.render.markdown import render_markdown
from gpudoctor.render.text import render_text
from tests.conftest import FACTS_DIR, load_facts

MATRIX = load_matrix()
REPO = Path(__file__).resolve().parents[2]


def report(name: str, ignore: frozenset[str] = frozenset()):
    # The matrix's review date is pinned, so a data update does not rewrite these pages.
    r = run_checks(load_facts(name), MATRIX, f"snapshot {name}.json", ignore)
    return dataclasses.replace(r, matrix_reviewed="2026-01-01")


def golden(text: str) -> str:
    return text.replace("{VERSION}", __version__)


NOUVEAU_TEXT = golden("""\
gpudoctor {VERSION} — snapshot nouveau.json · matrix reviewed 2026-01-01

Cause: The open-source nouveau driver holds the GPU: CUDA needs the NVIDIA driver  [nouveau-loaded]
  fix: Blacklist nouveau, rebuild the initramfs, reboot, then install the NVIDIA driver

[✗] GPU and driver
    ✗ The open-source nouveau driver holds the GPU: CUDA needs the NVIDIA driver  [nouveau-loaded]  ← cause
        PCI 0000:01:00.0: bound to nouveau
        fix: Blacklist nouveau, rebuild the initramfs, reboot, then install the NVIDIA driver
          $ printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf
          $ sudo update-initramfs -u   # Fedora/RHEL: sudo dracut --force
          $ sudo reboot
          $ sudo ubuntu-drivers install
          see https://ubuntu.com/server/docs/nvidia-drivers-installation
[-] CUDA toolkit: unknown; a CUDA toolkit is needed only to compile CUDA code
[-] cuDNN: no framework that needs it is known
[-] PyTorch: not in the evidence
[-] TensorFlow: not in the evidence
[-] JAX: not in the evidence
[✓] Environment: Fedora Linux 40 x86_64, kernel 6.10.6-200.fc40.x86_64, Python 3.12.5

Summary: problems found (1 error, 0 warnings, 0 notes).
""")

HEALTHY_TEXT = golden("""\
gpudoctor {VERSION} — snapshot healthy-h100.json · matrix reviewed 2026-01-01

[✓] GPU and driver
    ✓ 1 NVIDIA GPU, driver 570.124.06 (supports CUDA up to 12.8)  [gpus-found]
[✓] CUDA toolkit: CUDA 12.4 at /usr/local/cuda-12.4 (nvcc on PATH)
[✓] cuDNN: pip: nvidia-cudnn-cu12 9.5.1.17
[✓] PyTorch: torch 2.7.1+cu126 (CUDA 12.6)
[-] TensorFlow: not installed
[-] JAX: not installed
[✓] Environment: Ubuntu 22.04.4 LTS x86_64, kernel 5.15.0-105-generic, Python 3.11.9

Summary: no problems found (0 errors, 0 warnings, 0 notes).
""")

NO_GPU_TEXT = golden("""\
gpudoctor {VERSION} — snapshot no-gpu-cuda-builds.json · matrix reviewed 2026-01-01

[•] GPU and driver
    • No NVIDIA GPU found: GPU checks are skipped, frameworks will run on the CPU  [no-nvidia-gpu]
[✓] CUDA toolkit: CUDA 13.0 at /usr/local/cuda-13.0 (nvcc on PATH)
[✓] cuDNN: pip: nvidia-cudnn-cu13 9.24.0.43
[•] PyTorch
    • torch 2.14.1+cu130 is a CUDA 13.0 build; no NVIDIA GPU or driver found, so it will run on the CPU  [torch-cuda-build-no-gpu]
[•] TensorFlow
    • TensorFlow 2.21.0 is a CUDA 12.5 build; no NVIDIA GPU or driver found, so it will run on the CPU  [tf-cuda-build-no-gpu]
[-] JAX: not installed
[✓] Environment: Debian GNU/Linux 12 (bookworm) x86_64, kernel 6.18.44-fc-v769, Python 3.11.7, in a docker container

Summary: no problems found (0 errors, 0 warnings, 3 notes).
""")

NOUVEAU_MARKDOWN = golden("""\
## gpudoctor {VERSION} report

Compatibility matrix reviewed 2026-01-01.

**Cause: The open-source nouveau driver holds the GPU: CUDA needs the NVIDIA driver  [nouveau-loaded]**

- fix: Blacklist nouveau, rebuild the initramfs, reboot, then install the NVIDIA driver

### ✗ GPU and driver

- **error** `nouveau-loaded`: The open-source nouveau driver holds the GPU: CUDA needs the NVIDIA driver
  - PCI 0000:01:00.0: bound to nouveau
  - fix: Blacklist nouveau, rebuild the initramfs, reboot, then install the NVIDIA driver

    ```sh
    printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf
    sudo update-initramfs -u   # Fedora/RHEL: sudo dracut --force
    sudo reboot
    sudo ubuntu-drivers install
    ```

  - see <https://ubuntu.com/server/docs/nvidia-drivers-installation>

<details><summary>facts</summary>

    driver: unknown, kernel module nouveau
    NVML: NVML Shared Library Not Found
    PCI 0000:01:00.0: 10de:2684, driver nouveau

</details>

### - CUDA toolkit

not applicable: unknown; a CUDA toolkit is needed only to compile CUDA code


<details><summary>facts</summary>

    CUDA toolkits: unknown

</details>

### - cuDNN

not applicable: no framework that needs it is known


<details><summary>facts</summary>

    no cuDNN on the loader path or as a pip wheel

</details>

### - PyTorch

not applicable: not in the evidence


<details><summary>facts</summary>

    torch: unknown

</details>

### - TensorFlow

not applicable: not in the evidence


<details><summary>facts</summary>

    tensorflow: unknown

</details>

### - JAX

not applicable: not in the evidence


<details><summary>facts</summary>

    jax: unknown

</details>

### ✓ Environment


<details><summary>facts</summary>

    Fedora Linux 40 x86_64, kernel 6.10.6-200.fc40.x86_64, Python 3.12.5
    probe nvml failed: NVML Shared Library Not Found

</details>

Summary: problems found (1 error, 0 warnings, 0 notes).
""")


@pytest.mark.parametrize("name, expected", [("nouveau", NOUVEAU_TEXT), ("healthy-h100", HEALTHY_TEXT),
                                            ("no-gpu-cuda-builds", NO_GPU_TEXT)])
def test_text_report_exactly(name, expected):
    assert render_text(report(name)) == expected


def test_markdown_report_exactly():
    assert render_markdown(report("nouveau")) == NOUVEAU_MARKDOWN


def test_error_evidence_and_fix_show_without_verbose_and_notes_keep_theirs_for_verbose():
    r = report("cuda-visible-devices-wrong")
    error = next(f for f in r.findings if f.id == "cuda-visible-devices-hides-all-gpus")
    note = next(f for f in r.findings if f.id == "gpu-pcie-link-narrowed")
    assert error.evidence and note.evidence
    text, verbose = render_text(r), render_text(r, verbose=True)
    assert f"        {error.evidence[0]}\n" in text  # an error shows why, unasked
    assert "          $ unset CUDA_VISIBLE_DEVICES" in text
    assert f"        {note.evidence[0]}\n" not in text  # a note's detail waits for -v
    assert f"        {note.evidence[0]}\n" in verbose


def test_not_applicable_is_the_dash_box_and_not_a_pass():
    lines = render_text(report("healthy-h100")).splitlines()
    assert "[-] TensorFlow: not installed" in lines
    assert not any(line.startswith("[✓] TensorFlow") for line in lines)


def test_ignore_drops_only_that_finding():
    full = report("cuda-visible-devices-wrong")
    ignored = report("cuda-visible-devices-wrong", frozenset({"cuda-visible-devices-hides-all-gpus"}))
    assert [f.id for f in ignored.findings] == [f.id for f in full.findings if f.id != "cuda-visible-devices-hides-all-gpus"]
    assert [f.id for f in ignored.findings] == ["gpus-found", "gpu-memory-in-use", "gpu-ecc-uncorrected-errors", "gpu-pcie-link-narrowed"]
    text = render_text(ignored)
    assert "cuda-visible-devices-hides-all-gpus" not in text and "CUDA_VISIBLE_DEVICES hides" not in text
    assert "[gpu-memory-in-use]" in text and "[gpu-ecc-uncorrected-errors]" in text
    assert "Summary: problems found (0 errors, 2 warnings, 1 note)." in text
    cli = CliRunner().invoke(main, ["check", "--from", str(FACTS_DIR / "cuda-visible-devices-wrong.json"),
                                    "--ignore", "cuda-visible-devices-hides-all-gpus"])
    assert cli.exit_code == 0 and "[gpu-memory-in-use]" in cli.output
    assert CliRunner().invoke(main, ["check", "--strict", "--from", str(FACTS_DIR / "cuda-visible-devices-wrong.json"),
                                     "--ignore", "cuda-visible-devices-hides-all-gpus"]).exit_code == 1


def _on_a_pty(*args: str, env: dict[str, str]) -> bytes:
    """Run gpudoctor with its stdout on a real pseudo-terminal (CliRunner's never is one) and return what it wrote."""
    try:
        leader, follower = pty.openpty()
    except OSError as exc:  # a chroot or container without /dev/pts mounted
        pytest.skip(f"no pseudo-terminal can be opened here: {exc}")
    child_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    proc = subprocess.Popen([sys.executable, "-m", "gpudoctor", *args], stdout=follower, stderr=subprocess.PIPE,
                            cwd=REPO, env={**child_env, "TERM": "xterm", **env})
    os.close(follower)
    out = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(leader)
    return out


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_colour_on_a_terminal_and_no_color_honoured_there():
    args = ("check", "--from", str(FACTS_DIR / "nouveau.json"))
    coloured = _on_a_pty(*args, env={})
    assert b"\x1b[31m[\xe2\x9c\x97] GPU and driver" in coloured  # red "[✗] GPU and driver"
    plain = _on_a_pty(*args, env={"NO_COLOR": "1"})
    assert b"[\xe2\x9c\x97] GPU and driver" in plain and b"\x1b[" not in plain
    piped = subprocess.run([sys.executable, "-m", "gpudoctor", *args], capture_output=True, cwd=REPO, timeout=60)
    assert b"\x1b[" not in piped.stdout and b"[\xe2\x9c\x97] GPU and driver" in piped.stdout
