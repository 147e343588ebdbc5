"""The platform tags benchmarks/bench_env_resolve.py passes to pip: pip's --platform is literal, so a tag left out is
a machine the resolve wrongly calls unresolvable (the aarch64 torch files failed on nvidia-cuda-cupti 13.x, whose
only Linux wheels are manylinux_2_25; pip -vv: "none of the wheel's tags (py3-none-manylinux_2_25_aarch64) are
compatible" with manylinux_2_28/2_34 alone)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from packaging.tags import Tag

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_env_resolve.py"


def _platforms() -> dict:
    spec = importlib.util.spec_from_file_location("bench_env_resolve", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines constants and functions only; main() runs under __name__ == "__main__"
    return module.PLATFORMS


def test_a_glibc_2_34_linux_target_accepts_every_older_manylinux_wheel():
    platforms = _platforms()
    for arch in ("x86_64", "aarch64"):
        tags = platforms[("linux", arch)]
        # the wheels that failed: nvidia_cuda_cupti-13.2.86-py3-none-manylinux_2_25_{arch}.whl
        assert Tag("py3", "none", f"manylinux_2_25_{arch}").platform in tags
        assert {f"manylinux_2_{m}_{arch}" for m in range(17, 35)} <= set(tags)
        assert f"manylinux2014_{arch}" in tags
    assert "manylinux1_aarch64" not in platforms[("linux", "aarch64")]  # no such tag: manylinux1 is x86 only
