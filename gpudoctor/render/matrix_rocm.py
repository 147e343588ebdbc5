"""Text of ``gpudoctor matrix rocm``: a list of strings, printed by the CLI. Matrix data is our own (trusted)."""

from __future__ import annotations

from ..matrix.queries.rocm_queries import RocmInfo


def rocm_lines(info: RocmInfo) -> list[str]:
    lines = [f"ROCm {info.rocm}: official PyTorch wheels"]
    for w in info.wheels:
        notes = [] if w.wheels_confirmed else ["wheel index not read: from the release notes"]
        if not w.arch_confirmed:
            notes.append("targets from the build scripts, not read from the wheel")
        lines.append(f"  torch {w.torch:<6} pip install 'torch=={w.torch}.*' --index-url {w.index_url}"
                     + (f"   ({'; '.join(notes)})" if notes else ""))
        lines.append(f"               gfx targets: {' '.join(w.arch)}")
    lines.append("")
    lines.append("AMD GPUs these wheels run on:")
    lines += _grouped(info.gpus)
    if info.gpus_without_wheel:
        lines.append("")
        lines.append("AMD GPUs none of them carries (build from source; HSA_OVERRIDE_GFX_VERSION is an unsupported workaround):")
        lines += _grouped(info.gpus_without_wheel)
    return lines


def _grouped(pairs: tuple[tuple[str, str], ...]) -> list[str]:
    by_gfx: dict[str, list[str]] = {}
    for name, gfx in pairs:
        by_gfx.setdefault(gfx, []).append(name)
    return [f"  {gfx:<8} {', '.join(names)}" for gfx, names in by_gfx.items()]
