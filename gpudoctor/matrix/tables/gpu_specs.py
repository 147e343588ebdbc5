"""What each GPU should deliver (matrices/gpus.toml's [[spec]] rows, [tensor_cores], [pcie] and [bench]): peak dense
TFLOPS per precision, memory bandwidth, PCIe link, NVLink, power. Data and pure lookups only; `gpudoctor bench`
judges its measurements against these and `gpudoctor matrix gpu NAME` shows them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .rows import name_tokens

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")


@dataclass(frozen=True)
class GpuSpec:
    """One GPU model's published peak figures (TFLOPS per precision, memory size and bandwidth)."""
    name: str  # "H100 SXM5 80GB"
    names: tuple[str, ...]  # nvidia-smi product names this row answers for, matched exactly
    tflops: Mapping[str, float] = field(default_factory=dict)  # precision -> dense peak; a missing key = unknown
    memory_gb: float | None = None
    memory_bandwidth_gbs: float | None = None
    pcie_gen: int | None = None
    pcie_width: int | None = None
    nvlink_gbs: float | None = None  # 0: the board has no NVLink
    power_w: float | None = None
    sources: tuple[str, ...] = ()
    reviewed: str | None = None


@dataclass(frozen=True)
class GpuSpecTable:
    """The GPU spec table: models, tensor-core floors, PCIe lane rates and the bench floors."""
    specs: tuple[GpuSpec, ...] = ()
    tensor_min_cc: Mapping[str, str] = field(default_factory=dict)  # precision -> lowest cc with tensor cores for it
    pcie_lane_gbs: Mapping[int, float] = field(default_factory=dict)  # generation -> GB/s per lane per direction
    floors: Mapping[str, float] = field(default_factory=dict)  # "matmul" | "memory" | "pinned_transfer" | "allreduce" | "realistic_step"

    def for_name(self, product_name: str | None) -> GpuSpec | None:
        """The row whose names include this product name exactly (case and vendor words aside), or None."""
        tokens = name_tokens(product_name or "")
        if not tokens:
            return None
        return next((s for s in self.specs if any(name_tokens(n) == tokens for n in s.names)), None)

    def matching(self, query: str) -> tuple[GpuSpec, ...]:
        """Every row one of whose names starts with the query's words: "H100" -> SXM and PCIe."""
        tokens = name_tokens(query)
        if not tokens:
            return ()
        return tuple(s for s in self.specs if any(name_tokens(n)[: len(tokens)] == tokens for n in s.names))

    def link_gbs(self, gen: int | None, width: int | None) -> float | None:
        """One direction's usable bandwidth of a PCIe link, GB/s (None when the generation or width is unknown)."""
        if gen is None or width is None or gen not in self.pcie_lane_gbs:
            return None
        return self.pcie_lane_gbs[gen] * width


def parse_spec_table(doc: Mapping[str, Any], reader: Callable[[Mapping[str, Any], str], Any]) -> GpuSpecTable:
    """gpus.toml's document -> the table. ``reader(data, where)`` makes a matrix Reader (errors name file and key)."""
    top = reader(doc, "")
    specs = tuple(_spec(t) for t in top.tables("spec")) if top.has("spec") else ()
    tensor: dict[str, str] = {}
    if top.has("tensor_cores"):
        t = top.sub("tensor_cores")
        tensor = {p: t.version(f"{p}_min_cc") for p in PRECISIONS if t.has(f"{p}_min_cc")}
    lanes: dict[int, float] = {}
    if top.has("pcie"):
        p = top.sub("pcie")
        raw = p.data.get("lane_gbs")
        if not isinstance(raw, dict):
            raise p.fail("lane_gbs", "must be a table of generation -> GB/s")
        for gen, gbs in raw.items():
            if not str(gen).isdigit() or not _is_number(gbs):
                raise p.fail("lane_gbs", f"{gen!r} = {gbs!r} is not generation = GB/s")
            lanes[int(gen)] = float(gbs)
    floors: dict[str, float] = {}
    if top.has("bench"):
        b = top.sub("bench")
        for key in ("matmul", "memory", "pinned_transfer", "allreduce", "realistic_step"):
            value = _number(b, f"{key}_floor")
            if value is not None:
                if not 0 < value < 1:
                    raise b.fail(f"{key}_floor", "must be a ratio between 0 and 1")
                floors[key] = value
    return GpuSpecTable(specs, tensor, lanes, floors)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(r: Any, key: str) -> float | None:
    if not r.has(key):
        return None
    value = r.data[key]
    if not _is_number(value) or value < 0:
        raise r.fail(key, "must be a number >= 0")
    return float(value)


def _spec(t: Any) -> GpuSpec:
    names = t.strs("names")
    if not names:
        raise t.fail("names", "must list at least one product name")
    tflops = {p: v for p in PRECISIONS if (v := _number(t, f"{p}_tflops")) is not None}
    gen, width = t.int("pcie_gen", required=False), t.int("pcie_width", required=False)
    return GpuSpec(
        name=t.str("name"), names=names, tflops=tflops, memory_gb=_number(t, "memory_gb"),
        memory_bandwidth_gbs=_number(t, "memory_bandwidth_gbs"), pcie_gen=gen, pcie_width=width,
        nvlink_gbs=_number(t, "nvlink_gbs"), power_w=_number(t, "power_w"), sources=t.urls("sources", required=True),
        reviewed=t.date("reviewed"),
    )
