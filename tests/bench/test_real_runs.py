"""bench for real: the CLI on this machine's CPU (--quick, ~20 s on 2 busy cores: marked slow) and, on a GPU host,
the CUDA path (marked gpu)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest



def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpudoctor", "bench", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip


@pytest.mark.slow
@pytest.mark.no_gpu
def test_quick_bench_runs_on_the_cpu_and_says_so(tmp_path):
    html = tmp_path / "bench.html"
    done = run_cli("--quick", "--json", "--html", str(html))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (d,) = report["devices"]
    assert d["device"] == "cpu" and d["error"] is None
    assert [f["id"] for f in d["findings"]] == ["bench-ran-on-cpu"]
    measured = {m["name"]: m for m in d["measurements"]}
    assert measured["matmul-fp32"]["value"] > 0 and measured["memory-copy"]["value"] > 0
    assert measured["cnn-step"]["value"] > 0
    assert measured["h2d-pinned"]["skipped"] and measured["largest-batch"]["skipped"]
    # the realistic step ran on the CPU, and the report says so (issue 23)
    assert measured["realistic-step-cpu"]["value"] > 0 and measured["realistic-step"]["skipped"]
    (realistic,) = [j for j in d["judged"] if j["name"] == "realistic-cpu"]
    assert "ran on the CPU" in realistic["text"] and "no GPU was used" in realistic["text"]
    assert "gpudoctor bench: the CPU" in html.read_text()


@pytest.mark.gpu
def test_the_cuda_path_measures_and_judges_the_gpu():
    done = run_cli("--quick", "--json")
    assert done.returncode == 0, done.stderr
    (d,) = json.loads(done.stdout)["devices"]
    assert d["device"].startswith("cuda") and d["error"] is None
    measured = {m["name"]: m for m in d["measurements"]}
    for name in ("matmul-fp32", "memory-copy", "h2d-pinned", "d2h-pinned", "cnn-step", "cnn-step-cpu", "largest-batch"):
        assert measured[name]["value"] and measured[name]["value"] > 0, measured[name]
    assert any(j["name"] == "cnn-speedup" and j["value"] > 1 for j in d["judged"])
