"""Text for people from ``gpudoctor matrix jax`` (gpudoctor.matrix.queries.jax_queries): returns lines."""

from __future__ import annotations

from ..matrix.queries.jax_queries import JaxInfo
from ..matrix.tables.model import python_span


def jax_lines(j: JaxInfo) -> list[str]:
    lines = [f"JAX {j.series}: jax + jaxlib + a CUDA plugin wheel (jax-cuda12-plugin / jax-cuda13-plugin)"]
    for r in j.releases:
        lines.append("")
        lines.append(f"{r.version}  Python {python_span(r.python)}"
                     + (f"; needs jaxlib >= {r.jaxlib_min}" if r.jaxlib_min else ""))
        for p in r.plugins:
            lines.append(f"  {p.extra:<13} Linux driver >= {p.driver_min}, compute capability >= {p.cc_min}, "
                         f"CUDA >= {p.cuda_min}, cuDNN >= {p.cudnn_min}")
        if not r.plugins:
            lines.append("  no CUDA plugin wheel: CPU only")
        lines.append(f"  install: {r.install}")
    lines += ["", "CPU only: pip install jax (jaxlib alone is the CPU build)", "Sources:"]
    lines += [f"  {url}" for url in j.sources]
    return lines
