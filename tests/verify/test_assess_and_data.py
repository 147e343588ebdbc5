"""Fast unit tests of the pure parts: judging the numbers, the synthetic data's rules, result parsing, rendering."""

from __future__ import annotations

import json
import math

import pytest

from gpudoctor.verify import assess, ran_on
from gpudoctor.verify.model import WORKER_SCHEMA, SmokeCheck, SmokeResult, SmokeStatus, VerifyOptions, VerifyReport
from gpudoctor.model import ExitCode
from gpudoctor.verify.render import exit_code, headline, to_json, to_text
from gpudoctor.verify.child import parse_result, worker_argv
from gpudoctor.verify.model import CaseRequest

TARGET = assess.LearnTarget(min_drop=0.5, min_accuracy=0.6)


def test_learned_passes_with_the_numbers():
    c = assess.learned(2.30, 0.10, 0.95, 0.1, TARGET)
    assert c.status is SmokeStatus.PASSED
    assert c.measured["loss_drop"] == pytest.approx((2.30 - 0.10) / 2.30)
    assert "95.7%" in c.detail and "0.950" in c.detail


def test_learned_says_which_part_failed_and_by_how_much():
    flat = assess.learned(2.3026, 2.3026, 0.11, 0.1, TARGET)
    assert flat.status is SmokeStatus.FAILED
    assert "loss fell 0.0% (2.3026 -> 2.3026), needs at least 50%" in flat.detail
    assert "accuracy 0.110 is not clearly above chance 0.100, needs at least 0.60" in flat.detail
    only_acc = assess.learned(2.3, 1.0, 0.4, 0.1, TARGET)
    assert only_acc.status is SmokeStatus.FAILED and "loss fell" not in only_acc.detail and "accuracy 0.400" in only_acc.detail
    nan = assess.learned(2.3, math.nan, 0.9, 0.1, TARGET)
    assert nan.status is SmokeStatus.FAILED and "not finite" in nan.detail


def test_agreement_tolerance_and_garbage():
    assert assess.relative_error([1.0, -2.0], [1.0, -2.0]) == 0.0
    assert assess.relative_error([1.0, -2.0], [1.0, -2.002]) == pytest.approx(0.001)
    ok = assess.agreement("cuda:0", 1.2345, 1.2345001, 2e-5)
    assert ok.status is SmokeStatus.PASSED
    garbage = assess.agreement("cuda:0", 1.2345, 7.9, 3.5)
    assert garbage.status is SmokeStatus.FAILED
    assert "rel. error 5.40e+00" in garbage.detail and "gradients rel. error 3.50e+00" in garbage.detail
    assert assess.agreement("cuda:0", 1.0, math.nan, 0.0).status is SmokeStatus.FAILED


def test_frozen_detects_a_moved_backbone_and_an_idle_head():
    assert assess.frozen([], 10, 2, 2).status is SmokeStatus.PASSED
    moved = assess.frozen(["bn.running_mean", "conv.weight"], 10, 2, 2)
    assert moved.status is SmokeStatus.FAILED and "2 of 10 frozen backbone tensors changed (bn.running_mean" in moved.detail
    idle = assess.frozen([], 10, 0, 2)
    assert idle.status is SmokeStatus.FAILED and "head did not train" in idle.detail


def test_data_is_seeded_and_follows_its_rule():
    np = pytest.importorskip("numpy", reason="numpy is not installed: the data is generated in the worker, with numpy")
    from gpudoctor.workloads import data

    x1, y1 = data.cnn_data(64, seed=5)
    x2, y2 = data.cnn_data(64, seed=5)
    assert np.array_equal(x1, x2) and np.array_equal(y1, y2)
    assert not np.array_equal(x1, data.cnn_data(64, seed=6)[0])
    assert x1.shape == (64, 28, 28, 1) and set(np.unique(y1)) <= set(range(10))
    # the rule: the class's square is the brightest 6x6 patch (+-1 px)
    for img, k in zip(x1[:, :, :, 0], y1):
        r, c = data._ROWS[k // 5], data._COLS[k % 5]
        assert img[max(r - 1, 0) : r + 7, max(c - 1, 0) : c + 7].mean() > img.mean() + 0.3

    seqs, nxt = data.lstm_data(256, seed=1)
    cycle = list(data._language())
    successor = {w: cycle[(i + 1) % len(cycle)] for i, w in enumerate(cycle)}
    assert seqs.shape == (256, 20) and seqs.max() < data.VOCAB
    clean = [s for s in seqs if s[-1] in successor and s[-2] in successor and successor[s[-2]] == s[-1]]
    assert len(clean) > 150  # most sentences are clean, and for those the next word is the last word's successor
    assert all(successor[s[-1]] == n for s, n in zip(seqs, nxt) if any(s is c for c in clean))

    img, lab = data.transfer_data(32, seed=1, size=64)
    assert img.shape == (32, 64, 64, 3) and img.min() >= 0.0 and img.max() <= 1.0
    colours = data._COLOURS[lab]
    # the pixels of the square's colour are there
    for im, col in zip(img, colours):
        assert np.any(np.all(np.isclose(im, col), axis=-1))
    a, b = data.pretrain_data(16, seed=3, size=64)
    assert a.shape == (16, 64, 64, 3) and set(np.unique(b)) <= set(range(6))


def test_parse_result_takes_only_a_worker_document_for_this_test():
    result = SmokeResult("torch", "cnn", SmokeStatus.PASSED, device="cpu", checks=(SmokeCheck("learned", SmokeStatus.PASSED, "ok"),))
    doc = json.dumps({"schema": WORKER_SCHEMA, "result": result.to_dict()})
    assert parse_result(doc, CaseRequest("torch", "cnn")) == (result, None)
    assert parse_result(doc, CaseRequest("torch", "lstm")) == (None, "it answers for torch cnn, not torch lstm")
    assert parse_result(json.dumps({"schema": "other", "result": {}}), CaseRequest("torch", "cnn"))[1] == (
        "not a gpudoctor.verify.worker/1 document"
    )
    assert parse_result("spam\n" + doc, CaseRequest("torch", "cnn"))[0] is None  # the file holds the document alone


def test_worker_argv_carries_the_options():
    argv = worker_argv(CaseRequest("tf", "transfer", "cuda:1", False, ("/w/a.h5",)), "/tmp/x/result.json")
    assert argv[1].endswith("child_start.py") and argv[2] == "gpudoctor.verify.worker"
    assert argv[3:] == ["--framework", "tf", "--test", "transfer", "--device", "cuda:1", "--result-file",
                        "/tmp/x/result.json", "--no-amp", "--weights", "/w/a.h5"]  # fmt: skip


def _report(*results: SmokeResult, device: str = "auto") -> VerifyReport:
    return VerifyReport(VerifyOptions(device=device), results, wall_s=1.0)


def test_first_line_says_where_it_ran():
    gpu = SmokeResult("torch", "cnn", SmokeStatus.PASSED, device="cuda:0", device_name="NVIDIA H100 80GB HBM3")
    cpu = SmokeResult("tf", "cnn", SmokeStatus.PASSED, device="cpu", device_name="CPU",
                      device_note="no CUDA device is visible to TensorFlow (tensorflow 2.21.0 is a CUDA build)")
    assert headline(_report(gpu)) == "Smoke tests ran on NVIDIA H100 80GB HBM3 (cuda:0)"
    assert headline(_report(cpu)) == "Smoke tests ran on the CPU: no CUDA device is visible"
    assert ran_on(_report(gpu, cpu)) == "on NVIDIA H100 80GB HBM3 (cuda:0) (PyTorch); on the CPU: no CUDA device is visible (TensorFlow)"
    missing = SmokeResult("torch", "cnn", SmokeStatus.FAILED, reason="no CUDA device: torch.cuda.is_available() is False")
    assert headline(_report(missing, device="cuda")) == "Smoke tests could not run on cuda: no CUDA device is visible"
    skipped = SmokeResult("tf", "cnn", SmokeStatus.SKIPPED, reason="TensorFlow and Keras are not installed")
    assert headline(_report(skipped)).startswith("Smoke tests nothing ran: TensorFlow and Keras are not installed")


def test_renderers_and_exit_code():
    ok = SmokeResult("torch", "cnn", SmokeStatus.PASSED, device="cpu", device_name="CPU", first_loss=2.3, last_loss=0.1,
                     accuracy=0.9, chance=0.1, steps=40, batch_size=64)
    bad = SmokeResult("tf", "lstm", SmokeStatus.FAILED, reason="learned: loss fell 0.0%", first_loss=math.nan)
    skip = SmokeResult("tf", "cnn", SmokeStatus.SKIPPED, reason="TensorFlow is not installed")
    assert exit_code(_report(ok, skip)) is ExitCode.OK
    assert exit_code(_report(ok, bad)) is ExitCode.PROBLEMS
    assert exit_code(_report(skip)) is ExitCode.PROBLEMS  # nothing ran: nothing was proved
    assert exit_code(_report()) is ExitCode.PROBLEMS
    assert to_text(_report(skip)).rstrip().endswith("0 passed, 0 failed, 1 skipped in 1.0s: nothing was proved: no test ran")
    text = to_text(_report(ok, bad, skip))
    assert "✓ PyTorch CNN: passed" in text and "✗ TensorFlow LSTM: failed - learned: loss fell 0.0%" in text
    assert "- TensorFlow CNN: skipped - TensorFlow is not installed" in text
    assert text.rstrip().endswith("1 passed, 1 failed, 1 skipped in 1.0s: some tests failed")
    doc = json.loads(to_json(_report(ok, bad, skip)))
    assert doc["schema"] == "gpudoctor.verify/1"
    assert doc["summary"] == {"passed": 1, "failed": 1, "skipped": 1, "ok": False, "wall_s": 1.0, "children": None}
    assert doc["results"][1]["first_loss"] == "nan"  # NaN is not JSON: written as a string
    assert doc["exit_code"] == 1
