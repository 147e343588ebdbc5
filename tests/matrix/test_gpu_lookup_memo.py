"""The memoised GPU-name lookup (issue 23) answers exactly what the brute-force scan of the table answered: the
tokenised table is built once per Matrix and each name is remembered, which must change no answer."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gpudoctor.checks import run_checks
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.model import GpuModel, Matrix, name_tokens
from gpudoctor.render.json_report import report_to_dict
from gpudoctor.snapshot import facts_from_dict

M = load_matrix()
TABLE_NAMES = [n for model in M.gpus for n in model.names]
ROOT = Path(__file__).resolve().parents[2]


def reference_gpu_by_name(matrix: Matrix, name: str) -> GpuModel | None:
    """The lookup as it was before issue 23: every table name tokenised again for every question."""
    tokens = name_tokens(name)
    if not tokens:
        return None
    best = None
    for model in matrix.gpus:
        for candidate in model.names:
            cand = name_tokens(candidate)
            if cand and tokens[: len(cand)] == cand and (best is None or len(cand) > best[0]):
                best = (len(cand), model)
    return best[1] if best else None


_PREFIXES = st.sampled_from(["", "NVIDIA ", "NVIDIA GeForce ", "Tesla ", "Quadro ", "nvidia ", "  "])
_SUFFIXES = st.sampled_from(["", "-SXM4-80GB", " 80GB HBM3", " Laptop GPU", "-PCIE-16GB", " Ti", " MIG 1g.10gb", ".G1.8GB", "x"])
_NAMES = st.one_of(
    st.builds(lambda p, n, s: p + n + s, _PREFIXES, st.sampled_from(TABLE_NAMES), _SUFFIXES),
    st.text(st.characters(codec="utf-8"), max_size=30),
    st.text("abcdefghrtxRTXAHLV0123456789 -_/.", max_size=20),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_NAMES, min_size=1, max_size=6))
def test_memoised_lookup_matches_the_scan(names: list[str]) -> None:
    for name in names + names:  # asked twice: the second answer comes from the memo
        assert M.gpu_by_name(name) is reference_gpu_by_name(M, name), name


def test_every_table_name_and_its_nvidia_smi_spelling_resolve_as_before() -> None:
    for name in TABLE_NAMES:
        for spelled in (name, f"NVIDIA {name}", f"NVIDIA GeForce {name}", f"Tesla {name}-SXM2-16GB", name.upper()):
            assert M.gpu_by_name(spelled) is reference_gpu_by_name(M, spelled)


def test_a_fresh_matrix_and_a_pickled_one_answer_alike_and_carry_no_cache() -> None:
    M.gpu_by_name("NVIDIA H100 80GB HBM3")
    copy = pickle.loads(pickle.dumps(M))
    assert "_gpu_memo" not in copy.__dict__ and "_gpu_name_table" not in copy.__dict__
    assert copy == M
    assert copy.gpu_compute_capability("NVIDIA H100 80GB HBM3") == "9.0"


def test_the_memo_stays_bounded_on_untrusted_names() -> None:
    matrix = pickle.loads(pickle.dumps(M))  # a Matrix of its own, with an empty memo
    for i in range(5000):
        matrix.gpu_by_name(f"NVIDIA Made Up {i}")
    assert len(matrix.__dict__["_gpu_memo"]) <= 4096
    assert matrix.gpu_by_name("NVIDIA Made Up 4999") is None


def test_many_gpus_of_mixed_models_are_judged_as_by_the_scan(monkeypatch) -> None:
    """A snapshot of many GPUs of mixed models (cc not given), judged with the memoised lookups and the solve memo,
    gives the very report the brute-force lookup without any memo gives; and the solve memo never answers for
    other facts (a second snapshot judged after it gets its own fixes)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_scale import snapshot

    import gpudoctor.checks._builds as builds

    def report(data: dict) -> dict:
        return report_to_dict(run_checks(facts_from_dict(json.loads(json.dumps(data))), M, "snapshot"))

    many, few = snapshot(60), snapshot(3)
    few["frameworks"]["torch"] = {"version": "2.4.1+cu118", "cuda": "11.8"}
    memoised = (report(many), report(few))
    assert any(f["id"] == "gpu-arch-not-in-build" for f in memoised[0]["findings"])

    original = builds.solve_for  # its memo is inside: clearing it before every call turns it off

    def unmemoised(*args, **kwargs):
        builds._SOLVED.clear()
        return original(*args, **kwargs)

    monkeypatch.setattr(builds, "solve_for", unmemoised)
    monkeypatch.setattr(Matrix, "gpu_by_name", reference_gpu_by_name)
    assert (report(many), report(few)) == memoised
