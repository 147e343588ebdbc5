"""Platforms besides a PC with an NVIDIA card: a Mac (what MPS needs), a Jetson (L4T release, integrated GPU) and a
hosted notebook (Colab, Kaggle). Observe only: what these facts mean is judged in checks/platforms_*.py."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from ..runner import Runner

if TYPE_CHECKING:
    from ..model import Apple, Jetson, Notebook


# "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, DATE: Wed Jan  8 01:49:37 UTC 2025"
_TEGRA_RELEASE = r"#\s*R(?P<major>\d+)\s*\([^)]*\),\s*REVISION:\s*(?P<revision>\d+(?:\.\d+)*)(?P<rest>.*)"


# Patterns are strings that re compiles on first use (and caches), not at import: a `check` run without Jetson release
# text never needs them, and compiling every module's patterns at import was a measurable part of the start-up time.
_BOARD = r"BOARD:\s*(?P<board>[\w.-]+)"


# The variables that say where a notebook runs; kept verbatim (they hold no secrets: run type, release tag, GPU flag).
NOTEBOOK_ENV = {
    "colab": ("COLAB_GPU", "COLAB_RELEASE_TAG", "COLAB_TPU_ADDR"),
    "kaggle": ("KAGGLE_KERNEL_RUN_TYPE", "KAGGLE_DATA_PROXY_PROJECT", "KAGGLE_CONTAINER_NAME"),
}


def probe_apple(runner: Runner, mac_ver: Callable[[], tuple] | None = None,
                machine: Callable[[], str] | None = None) -> Apple:  # fmt: skip
    """On darwin only. Rosetta: sysctl.proc_translated is 1 for a translated (x86_64) process on Apple silicon, 0 for a
    native one; Intel Macs do not have the key ("unknown oid"), and nothing runs translated there. ``mac_ver`` and
    ``machine`` default to platform's, imported here: only a Mac pays the ~3 ms that importing `platform` costs."""
    if mac_ver is None or machine is None:
        import platform

        mac_ver, machine = mac_ver or platform.mac_ver, machine or platform.machine
    arch = machine() or None
    translated = runner.run(["sysctl", "-n", "sysctl.proc_translated"], timeout=5.0)
    rosetta: bool | None = None
    if translated.ok and translated.stdout.strip() in ("0", "1"):
        rosetta = translated.stdout.strip() == "1"
    elif translated.returncode not in (None, 0) and "unknown oid" in (translated.stderr + translated.stdout).lower():
        rosetta = False
    brand = runner.run(["sysctl", "-n", "machdep.cpu.brand_string"], timeout=5.0)
    chip = brand.stdout.strip() or None if brand.ok else None
    from ..model import Apple  # the platforms' classes are created only where the platform is

    return Apple(macos=mac_ver()[0] or None, python_arch=arch, rosetta=rosetta, chip=chip)


def parse_nv_tegra_release(text: str) -> tuple[str | None, str | None]:
    """-> (L4T release "36.4.3", board "generic") from /etc/nv_tegra_release's first line; (None, None) if unreadable."""
    for line in text.splitlines():
        match = re.match(_TEGRA_RELEASE, line.strip())
        if match:
            board = re.search(_BOARD, match.group("rest"))
            return f"{match.group('major')}.{match.group('revision')}", board.group("board") if board else None
    return None, None


def probe_jetson(runner: Runner, root: Path = Path("/")) -> Jetson | None:
    """None on a machine that is not a Jetson (neither the release file nor the nvidia-l4t-core package)."""
    release_text = _read(root / "etc/nv_tegra_release")
    l4t, board = parse_nv_tegra_release(release_text) if release_text else (None, None)
    core = runner.run(["dpkg-query", "-W", "-f=${Version}", "nvidia-l4t-core"], timeout=5.0)
    l4t_core = core.stdout.strip() or None if core.ok else None
    if release_text is None and l4t_core is None:
        return None
    model = (_read(root / "proc/device-tree/model") or "").replace("\x00", "").strip() or None
    if l4t is None and l4t_core:
        l4t = l4t_core.split("-", 1)[0]  # "36.4.3-20250107174145": the package version leads with the L4T release
    from ..model import Jetson

    return Jetson(l4t=l4t, l4t_core=l4t_core, board=board, model=model)


def probe_notebook(environ: Mapping[str, str], root: Path = Path("/")) -> Notebook | None:
    """Colab sets COLAB_* variables and mounts /content; Kaggle sets KAGGLE_KERNEL_RUN_TYPE and mounts /kaggle."""
    for kind, names in NOTEBOOK_ENV.items():
        seen = {name: environ[name] for name in names if name in environ}
        if seen:
            return _notebook(kind, seen)
    if (root / "content").is_dir() and _has_google_colab():  # /content alone is too common a name to tell
        return _notebook("colab", {})
    if (root / "kaggle/working").is_dir():
        return _notebook("kaggle", {})
    return None


def _notebook(kind: str, env: dict[str, str]) -> Notebook:
    from ..model import Notebook  # created only in a notebook

    return Notebook(kind=kind, env=env)


def _has_google_colab() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("google.colab") is not None
    except (ImportError, ValueError):
        return False


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None
