"""Text for the platform tables' matrix answers (``gpudoctor matrix jetpack``): lines, no printing."""

from __future__ import annotations

from ..matrix.queries.platform_queries import JetpackInfo


def jetpack_lines(j: JetpackInfo) -> list[str]:
    def value(name: str, text: str | None) -> str:
        if not text:
            return "not in the matrix"
        return f"{text} (not confirmed against a source)" if name in j.unconfirmed else text

    lines = [
        f"JetPack {j.jetpack} (L4T {j.l4t}, Ubuntu {j.ubuntu}, Python {j.python})",
        f"  CUDA            {value('cuda', j.cuda)}",
        f"  cuDNN           {value('cudnn', j.cudnn)}",
        f"  TensorRT        {value('tensorrt', j.tensorrt)}",
        f"  PyTorch builds  {', '.join(j.torch)} (NVIDIA's Jetson builds; the package index's aarch64 torch is not one)",
        f"  install         {value('torch_index', j.torch_install)}",
        "  check a board   cat /etc/nv_tegra_release; dpkg-query -W nvidia-l4t-core",
    ]
    return lines + [f"  source          {url}" for url in j.sources[-2:]]
