"""gpus.toml's [[spec]] rows: parsed, consistent with the compute-capability rows, dense figures, exact matching."""

from __future__ import annotations

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.gpu_specs import parse_spec_table
from gpudoctor.matrix.tables.reader import Reader


@pytest.fixture(scope="module")
def table():
    return load_matrix().gpu_specs


def test_the_common_gpus_have_sourced_rows(table):
    for name in ("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H200", "NVIDIA A100-SXM4-40GB", "NVIDIA L4",
                 "NVIDIA L40S", "Tesla T4", "NVIDIA GeForce RTX 4090"):  # fmt: skip
        spec = table.for_name(name)
        assert spec is not None and spec.sources and spec.reviewed, name


def test_the_figures_are_dense_not_with_sparsity(table):
    # With sparsity, the H100 SXM data sheet prints 1,979 TFLOPS bf16; dense is half.
    assert table.for_name("NVIDIA H100 80GB HBM3").tflops["bf16"] == pytest.approx(1979 / 2, rel=0.01)
    for spec in table.specs:
        t = spec.tflops
        if "tf32" in t and "fp16" in t:
            assert t["tf32"] <= t["fp16"], spec.name  # every architecture runs TF32 at most at the fp16 rate


def test_a_variant_without_a_row_gets_no_spec_rather_than_a_wrong_one(table):
    assert table.for_name("NVIDIA H200 NVL") is None and table.for_name("NVIDIA H100 NVL") is None
    assert {s.name for s in table.matching("H100")} == {"H100 SXM5 80GB", "H100 PCIe"}


def test_pcie_link_bandwidth(table):
    assert table.link_gbs(4, 16) == pytest.approx(31.5, rel=0.01)
    assert table.link_gbs(None, 16) is None and table.link_gbs(9, 16) is None


def test_a_bad_row_names_the_key():
    doc = {"spec": [{"name": "X", "names": ["X"], "fp32_tflops": "fast", "sources": ["https://x"], "reviewed": "2026-01-01"}]}
    with pytest.raises(MatrixError, match=r"spec\[0\]\.fp32_tflops"):
        parse_spec_table(doc, lambda data, where: Reader("gpus.toml", data, where))


def test_matrix_gpu_shows_the_figures_beside_the_builds():
    from click.testing import CliRunner

    from gpudoctor.cli import main

    run = CliRunner().invoke(main, ["matrix", "gpu", "L40S"])
    assert run.exit_code == 0
    assert "compute capability 8.9" in run.output and "newest torch" in run.output
    assert "peak TFLOPS  fp32 91.6, tf32 183, fp16 362.05, bf16 362.05 (dense)" in run.output
    assert "NVLink       none" in run.output
