"""Judging a multi-GPU launch from what its ranks reported: every rank trained, gradients were averaged, replicas are
equal, every rank answered; a hang keeps NCCL's tail; a hang that passes with NCCL_P2P_DISABLE=1 names P2P."""

from __future__ import annotations

import pytest

from gpudoctor.verify.multigpu import assess
from gpudoctor.verify.multigpu.model import Launch
from gpudoctor.verify.model import SmokeStatus
from tests.conftest import needs
from tests.multigpu.fakes import nccl_lines, rank


def launch(ranks, world=2, backend="gloo", **kw) -> Launch:
    kw.setdefault("returncode", 0)
    kw.setdefault("timed_out", False)
    return Launch(world, backend, wall_s=9.0, ranks=tuple(ranks), **kw)


def judged(ranks, **kw):
    return assess.judge(launch(ranks, **kw), None, 60, assess.CNN_TARGET)


def check(result, name):
    return next(c for c in result.checks if c.name == name)


def test_two_healthy_ranks_pass_with_every_check():
    result = judged([rank(0), rank(1)])
    assert result.status is SmokeStatus.PASSED, result.reason
    assert [c.name for c in result.checks] == ["ranks", "trained", "gradients-averaged", "replicas-equal", "allreduce"]
    assert "bit-identical" in check(result, "replicas-equal").detail
    assert result.device == "cpu x2" and result.batch_size == 64


def test_a_rank_that_did_not_train_fails_and_is_named():
    result = judged([rank(0), rank(1, last_loss=2.30, accuracy=0.11)])
    assert result.status is SmokeStatus.FAILED
    trained = check(result, "trained")
    assert trained.status is SmokeStatus.FAILED and "rank 1 did not train" in trained.detail and "rank 0" not in trained.detail


def test_replicas_that_differ_fail():
    other = rank(1, param_norm=NORM_OFF, param_sha256="0" * 64, gathered_norms=(11.634317104312961, NORM_OFF))
    result = judged([rank(0, gathered_norms=(11.634317104312961, NORM_OFF)), other])
    replicas = check(result, "replicas-equal")
    assert replicas.status is SmokeStatus.FAILED and "replicas differ" in replicas.detail
    assert replicas.measured["norm_rel_spread"] > assess.REPLICA_TOLERANCE


NORM_OFF = 11.634317104312961 * (1 + 1e-4)


def test_equal_digests_but_a_gather_that_carried_other_numbers_fail():
    result = judged([rank(0, gathered_norms=(11.634317104312961, 5.0)), rank(1)])
    assert check(result, "replicas-equal").status is SmokeStatus.FAILED
    assert "all_gather disagrees" in check(result, "replicas-equal").detail


def test_norms_within_tolerance_pass_without_claiming_bit_identity():
    n1 = 11.634317104312961 * (1 + 1e-9)
    result = judged([rank(0, gathered_norms=(11.634317104312961, n1)), rank(1, param_norm=n1, param_sha256="f" * 64,
                                                                             gathered_norms=(11.634317104312961, n1))])
    replicas = check(result, "replicas-equal")
    assert replicas.status is SmokeStatus.PASSED and "not bit-identical" in replicas.detail


def test_gradients_not_averaged_fail():
    result = judged([rank(0, grad_avg_rel_err=0.6), rank(1, grad_avg_rel_err=0.6)])
    assert check(result, "gradients-averaged").status is SmokeStatus.FAILED


def test_identical_local_gradients_prove_nothing():
    result = judged([rank(0, local_grad_spread=0.0), rank(1, local_grad_spread=0.0)])
    grads = check(result, "gradients-averaged")
    assert grads.status is SmokeStatus.FAILED and "did not train on different data" in grads.detail


def test_a_missing_rank_fails():
    result = judged([rank(0)])
    assert check(result, "ranks").status is SmokeStatus.FAILED and "no result from rank 1" in check(result, "ranks").detail


def test_nccl_ranks_sharing_a_gpu_fail():
    result = judged([rank(0, backend="nccl"), rank(1, backend="nccl", device="cuda:0")], backend="nccl")
    assert check(result, "ranks").status is SmokeStatus.FAILED


def test_a_hang_keeps_the_nccl_tail():
    hung = launch([], backend="nccl", returncode=None, timed_out=True, tail=tuple(["noise", *nccl_lines()]))
    result = assess.judge(hung, None, 60, assess.CNN_TARGET)
    assert result.status is SmokeStatus.FAILED and "hung: killed after 60s" in result.reason
    assert "Could not enable P2P between dev 0" in result.stderr_tail and "noise" not in result.stderr_tail


def test_a_hang_that_passes_without_p2p_names_acs_and_iommu_with_the_fix():
    hung = launch([], backend="nccl", returncode=None, timed_out=True, tail=tuple(nccl_lines()))
    retry = launch([rank(0, backend="nccl"), rank(1, backend="nccl")], backend="nccl", p2p_disabled=True)
    result = assess.judge(hung, retry, 60, assess.CNN_TARGET)
    assert result.status is SmokeStatus.FAILED
    assert "with NCCL_P2P_DISABLE=1 it passed" in result.reason and "ACS" in result.reason and "IOMMU" in result.reason
    assert "NCCL_P2P_DISABLE=1" in result.reason and result.checks[0].name == "p2p"
    assert check(result, "replicas-equal").status is SmokeStatus.PASSED  # the retry's own checks are kept


def test_a_hang_that_also_hangs_without_p2p_is_not_blamed_on_p2p():
    hung = launch([], backend="nccl", returncode=None, timed_out=True, tail=tuple(nccl_lines()))
    retry = launch([], backend="nccl", returncode=None, timed_out=True, p2p_disabled=True)
    result = assess.judge(hung, retry, 60, assess.CNN_TARGET)
    assert "not a peer-to-peer problem alone" in result.reason and "ACS" not in result.reason


@pytest.mark.parametrize("backend, timed_out, disabled, expected", [
    ("nccl", True, False, True), ("nccl", True, True, False), ("nccl", False, False, False), ("gloo", True, False, False),
])  # fmt: skip
def test_retry_only_an_nccl_hang_with_p2p_on(backend, timed_out, disabled, expected):
    one = launch([], backend=backend, returncode=None if timed_out else 0, timed_out=timed_out, p2p_disabled=disabled)
    assert assess.should_retry_without_p2p(one) is expected


@needs("torch")
def test_the_parent_target_is_the_cnn_plan_of_the_rank_worker():
    from gpudoctor.verify.torch_cases.training import PLANS

    assert assess.CNN_TARGET == PLANS["cnn"].target
