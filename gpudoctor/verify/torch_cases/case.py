"""One PyTorch smoke test end to end: build the data and model, measure (agreement and mixed precision first, on
copies; then training), and hand the numbers to assess, in the report's order. Imported only by the worker."""

from __future__ import annotations

import time
from typing import Any

import torch
from torch import nn

from gpudoctor.verify import assess
from gpudoctor.workloads import data, weights
from gpudoctor.verify.model import CaseRequest, SmokeCheck
from gpudoctor.verify.training_plan import Progress, training_summary
from gpudoctor.workloads import torch_device as dev
from gpudoctor.verify.torch_cases.checks import agreement_check, amp_check, placement_check
from gpudoctor.workloads.torch_models import Cnn, Lstm, Transfer, images
from gpudoctor.verify.torch_cases.training import PLANS, TRANSFER_SIZE, PlacementLog, evaluate, pretrained, train


def _make(test: str, request: CaseRequest, device: torch.device, notes: list[str], out: dict[str, Any], progress: Progress):
    """-> (model, trainable params, train x, train y, eval x, eval y, frozen part or None, classes)."""
    plan = PLANS[test]
    n = plan.steps * plan.batch
    if test == "cnn":
        (x, y), (ex, ey) = data.cnn_data(n, seed=1), data.cnn_data(plan.eval_n, seed=2)
        model = Cnn()
        return model, list(model.parameters()), images(x), torch.from_numpy(y), images(ex), torch.from_numpy(ey), None, data.CNN_CLASSES
    if test == "lstm":
        (x, y), (ex, ey) = data.lstm_data(n, seed=1), data.lstm_data(plan.eval_n, seed=2)
        model = Lstm()
        return model, list(model.parameters()), torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(ex), torch.from_numpy(ey), None, data.LANGUAGE_WORDS
    backbone, source = weights.torch_backbone(request.weights)
    out["weights"] = source.description
    if source.kind == "fallback":
        notes.append(weights.FALLBACK_NOTE)
        out["weights"] = pretrained(backbone, device, request.lr_scale, progress) or source.description
    x, y = data.transfer_data(n, seed=1, size=TRANSFER_SIZE)
    ex, ey = data.transfer_data(plan.eval_n, seed=2, size=TRANSFER_SIZE)
    model = Transfer(backbone, data.TRANSFER_CLASSES)
    model.freeze()
    return model, list(model.head.parameters()), images(x), torch.from_numpy(y), images(ex), torch.from_numpy(ey), model.backbone, data.TRANSFER_CLASSES


def run(request: CaseRequest, progress: Progress) -> dict[str, Any]:
    """Run one case; -> the fields of a SmokeResult (the worker adds framework/test/wall time)."""
    torch.manual_seed(0)
    device, device_name, note = dev.resolve_device(request.device)
    out: dict[str, Any] = {"device": str(device), "device_name": device_name, "device_note": note,
                           "framework_version": torch.__version__}  # fmt: skip
    notes: list[str] = []
    plan = PLANS[request.test]
    model, params, x, y, ex, ey, frozen_part, classes = _make(request.test, request, device, notes, out, progress)
    torch.manual_seed(0)
    if request.test == "transfer":
        model.head.reset_parameters()

    # Before training, from the same initial weights: one step on the CPU and on the device, and mixed precision
    probe_x, probe_y = x[: plan.batch], y[: plan.batch]
    if device.type != "cpu":  # CUDA, MPS, XPU or DirectML: the same CPU-vs-device agreement holds for each
        agreement = agreement_check(model.cpu(), probe_x, probe_y, device)
    else:
        agreement = assess.skipped("agreement", "ran on the CPU: there is no GPU result to compare with the CPU's")
    amp = amp_check(model, probe_x, probe_y, device, request.amp)

    model.to(device).train()
    dev.reset_peak_memory(device)
    first_loss, _ = evaluate(model, ex, ey, device)
    before = {k: v.detach().clone() for k, v in frozen_part.state_dict().items()} if frozen_part is not None else None
    head_before = [p.detach().clone() for p in params]
    log = PlacementLog(device)
    train_s = train(model, params, x, y, plan, plan.lr * request.lr_scale, device, progress, "training", log)
    last_loss, accuracy = evaluate(model, ex, ey, device)

    chance = 1.0 / classes
    checks: list[SmokeCheck] = [
        assess.learned(first_loss, last_loss, accuracy, chance, plan.target),
        placement_check(model, log, device),
        agreement,
    ]
    if frozen_part is not None and before is not None:
        after = frozen_part.state_dict()
        changed = [k for k, v in before.items() if not torch.equal(v, after[k].detach().to(v.device))]
        head_changed = sum(1 for a, b in zip(head_before, params) if not torch.equal(a, b.detach()))
        checks.append(assess.frozen(changed, len(before), head_changed, len(params)))
    checks.append(amp)
    peak = dev.peak_memory_mib(device)
    out.update(training_summary(plan, first_loss, last_loss, accuracy, chance, train_s, peak, checks, notes))
    return out


def cnn_step_time(device_request: str, steps: int = 20, batch: int = 256) -> float:
    """Seconds per CNN training step (after warm-up) on a device: the benchmark's GPU/CPU speedup figure."""
    device, _, _ = dev.resolve_device(device_request)
    torch.manual_seed(0)
    model = Cnn().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = data.cnn_data(batch, seed=1)
    xb, yb = images(x).to(device), torch.from_numpy(y).to(device)
    for i in range(steps + 3):
        if i == 3:
            dev.sync(device)
            start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()
    dev.sync(device)
    return (time.perf_counter() - start) / steps
