"""gpus.toml's spec table: every figure a row states is kept, and a file without [[spec]] rows parses to an empty
table (issue 11: mutants of gpudoctor/matrix/gpu_specs.py that the suite let live)."""

from __future__ import annotations

import sys

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.gpu_specs import GpuSpec, GpuSpecTable, parse_spec_table
from gpudoctor.matrix.tables.reader import Reader
from gpudoctor.resources import matrices_dir

if sys.version_info >= (3, 11):
    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def _parse(doc: dict) -> GpuSpecTable:
    return parse_spec_table(doc, lambda data, where: Reader("gpus.toml", data, where))


def test_the_shipped_h100_sxm_row_keeps_every_figure():
    # parsed here rather than taken from load_matrix(), whose cached result would not run the parser under test
    shipped = _parse(tomllib.loads((matrices_dir() / "gpus.toml").read_text(encoding="utf-8")))
    assert shipped.for_name("NVIDIA H100 80GB HBM3") == GpuSpec(
        name="H100 SXM5 80GB", names=("H100 80GB HBM3", "H100 SXM5 80GB"),
        tflops={"fp32": 67.0, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4},
        memory_gb=80.0, memory_bandwidth_gbs=3350.0, pcie_gen=5, pcie_width=16, nvlink_gbs=900.0, power_w=700.0,
        sources=("https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
                 "https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html", "https://glennklockwood.com/garden/processors/h100"),
        reviewed="2026-11-24",
    )


def test_a_row_without_optional_figures_reads_them_as_unknown():
    table = _parse({"spec": [{"name": "X1", "names": ["X1"], "nvlink_gbs": 0, "sources": ["https://example.com/x1"],
                              "reviewed": "2026-01-01"}]})
    # nvlink_gbs = 0 says "no NVLink", which is not the same as unknown (None)
    assert table.specs == (GpuSpec(name="X1", names=("X1",), nvlink_gbs=0.0, sources=("https://example.com/x1",),
                                   reviewed="2026-01-01"),)


def test_a_file_without_spec_rows_is_an_empty_table():
    assert _parse({}) == GpuSpecTable()
    only_floors = _parse({"tensor_cores": {"fp16_min_cc": "7.0"}, "bench": {"matmul_floor": 0.5}})
    assert only_floors == GpuSpecTable(specs=(), tensor_min_cc={"fp16": "7.0"}, floors={"matmul": 0.5})


@pytest.mark.parametrize("name", [None, "", "   ", "NVIDIA"])
def test_a_missing_or_vendor_only_name_matches_no_row(name):
    assert load_matrix().gpu_specs.for_name(name) is None
