"""Pasted AMD output -> facts (with provenance), the ROCm tables, `matrix rocm`, and the matrix cache key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from gpudoctor.checks import run_checks
from gpudoctor.cli import main
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.cache import content_key
from gpudoctor.model import Severity

DATA = Path(__file__).parent.parent / "data" / "amd"
MATRICES = Path(__file__).parent.parent.parent / "matrices"


def test_pasted_rocminfo_gives_the_gpu_and_its_target_with_provenance():
    facts = read_evidence((DATA / "rocminfo-rx5700xt.txt").read_text())
    assert [(g.name, g.gfx_target) for g in facts.amd_gpus] == [("AMD Radeon RX 5700 XT", "gfx1010")]
    assert facts.rocm.amdgpu_loaded is True
    assert facts.provenance["amd_gpus[0].gfx_target"] == "rocminfo, line 69"
    assert facts.gpus is None  # an AMD GPU is never an NVIDIA one


def test_collect_env_of_a_rocm_build_with_the_error_line():
    text = "\n".join([
        "PyTorch version: 2.5.1+rocm6.2",
        "Is debug build: False",
        "CUDA used to build PyTorch: N/A",
        "ROCM used to build PyTorch: 6.2.41133-dd7f95766",
        "GPU models and configuration: AMD Radeon RX 5700 XT (gfx1010:xnack-)",
        "HIP runtime version: 6.2.41133",
        "MIOpen runtime version: 3.2.0",
        "RuntimeError: HIP error: invalid device function",
    ])
    facts = read_evidence(text)
    assert facts.frameworks.torch.build == "rocm" and facts.frameworks.torch.hip == "6.2.41133"
    assert (facts.amd_gpus[0].name, facts.amd_gpus[0].gfx_target) == ("AMD Radeon RX 5700 XT", "gfx1010")
    assert (facts.rocm.hip_runtime, facts.rocm.miopen) == ("6.2.41133", "3.2.0")
    assert facts.gpus is None
    report = run_checks(facts, load_matrix())
    finding = next(f for f in report.findings if f.id == "gpu-gfx-not-in-rocm-build")
    assert finding.severity == Severity.ERROR and any("invalid device function" in e for e in finding.evidence)


def test_amd_smi_and_rocm_smi_text():
    amd_smi = "GPU: 0\n    ASIC:\n        MARKET_NAME: AMD Instinct MI300X\n        TARGET_GRAPHICS_VERSION: gfx942\n" \
              "    BUS:\n        BDF: 0000:0c:00.0\n\nAMDSMI Tool: 24.6.2+2b02a07 | AMDSMI Library version: 24.6.2.0 | ROCm version: 6.2.0\n"
    facts = read_evidence(amd_smi)
    assert (facts.amd_gpus[0].gfx_target, facts.amd_gpus[0].pci_bus_id, facts.rocm.version) == ("gfx942", "0000:0c:00.0", "6.2.0")
    rocm_smi = "GPU[0]\t\t: Card series: \t\tNavi 31 [Radeon RX 7900 XT/7900 XTX]\nGPU[0]\t\t: GFX Version: \t\tgfx1100\n"
    facts = read_evidence(rocm_smi)
    assert facts.amd_gpus[0].gfx_target == "gfx1100" and "7900 XTX" in facts.amd_gpus[0].name


def test_the_rocm_tables():
    table = load_matrix().rocm
    assert table.gfx_for("Radeon RX 7900 XTX") == "gfx1100" and table.gfx_for("MI300X") == "gfx942"
    assert table.gfx_for("AMD Radeon PRO W7900") == "gfx1100" and table.gfx_for("GeForce RTX 4090") is None
    assert table.newest_with("gfx1010") is None  # no official wheel ever carried it
    assert all(w.sources and w.reviewed for w in table.wheels)


def test_matrix_rocm_text_json_and_unknown_release():
    runner = CliRunner()
    text = runner.invoke(main, ["matrix", "rocm", "6.4"])
    assert text.exit_code == 0 and "--index-url https://download.pytorch.org/whl/rocm6.4" in text.output
    assert "gfx1100  AMD Radeon PRO W7900" in text.output
    data = json.loads(runner.invoke(main, ["matrix", "rocm", "6.4", "--json"]).output)
    assert {w["torch"] for w in data["wheels"]} == {"2.8", "2.9"} and "gfx1201" in data["gfx"]
    unknown = runner.invoke(main, ["matrix", "rocm", "5.9"])
    assert unknown.exit_code == 2 and "it knows 6.1, 6.2" in unknown.output and "Traceback" not in unknown.output


def test_the_cache_key_covers_rocm_toml(tmp_path):
    copy = tmp_path / "m"
    shutil.copytree(MATRICES, copy)
    before = content_key(copy)
    (copy / "rocm.toml").write_text((copy / "rocm.toml").read_text() + "\n# edited\n")
    assert content_key(copy) != before
