"""The PyTorch smoke tests: CNN, LSTM and transfer learning, each trained for a fixed number of steps on the requested
device and then judged (gpudoctor/verify/assess.py). Imported only by the worker (a child process)."""

from __future__ import annotations

import copy
import math
import time
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

from gpudoctor.verify import assess, data, weights
from gpudoctor.verify.plan import Plan, Progress, training_summary
from gpudoctor.verify.model import CaseFailed, CaseRequest, Check, NoDevice, Status

PLANS = {
    "cnn": Plan(steps=40, batch=64, lr=2e-3, eval_n=512, target=assess.LearnTarget(min_drop=0.5, min_accuracy=0.6)),
    "lstm": Plan(steps=60, batch=64, lr=5e-3, eval_n=512, target=assess.LearnTarget(min_drop=0.3, min_accuracy=0.3)),
    "transfer": Plan(steps=80, batch=32, lr=1e-2, eval_n=256, target=assess.LearnTarget(min_drop=0.3, min_accuracy=0.5)),
}
PRETRAIN = Plan(steps=60, batch=32, lr=2e-3, eval_n=0, target=assess.LearnTarget(0.0, 0.0))
TRANSFER_SIZE = 64
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


# ---------------------------------------------------------------------------------------------------------------
# Device


def resolve_device(request: str) -> tuple[torch.device, str, str | None]:
    """-> (device, its name, a note on why). Raises NoDevice when a CUDA device is asked for and not there."""
    available = torch.cuda.is_available()
    count = torch.cuda.device_count() if available else 0
    if request == "cpu":
        return torch.device("cpu"), "CPU", "--device cpu"
    if request == "auto":
        if count:
            return torch.device("cuda:0"), torch.cuda.get_device_name(0), None
        return torch.device("cpu"), "CPU", "no CUDA device is visible to PyTorch" + _why_no_cuda()
    index = int(request.split(":", 1)[1]) if ":" in request else 0
    if not count:
        raise NoDevice(f"no CUDA device: torch.cuda.is_available() is False{_why_no_cuda()}")
    if index >= count:
        raise NoDevice(f"no CUDA device cuda:{index}: PyTorch sees {count} (cuda:0..cuda:{count - 1})")
    return torch.device(f"cuda:{index}"), torch.cuda.get_device_name(index), None


def _why_no_cuda() -> str:
    if torch.version.cuda is None:
        return f" (torch {torch.__version__} is a CPU-only build)"
    return f" (torch {torch.__version__} is a CUDA {torch.version.cuda} build; no driver or GPU is visible)"


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


# ---------------------------------------------------------------------------------------------------------------
# Models (after shared/seeds: the Keras examples, in PyTorch)


class Cnn(nn.Module):
    """conv-pool-conv-pool-conv, flatten, dense, dense on 28x28x1 images, 10 classes."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 64, 3), nn.ReLU(),
        )  # fmt: skip
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(64 * 3 * 3, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


class Lstm(nn.Module):
    """embedding (1000 x 128), LSTM 128, dense over the vocabulary."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(data.VOCAB, 128)
        self.lstm = nn.LSTM(128, 128, batch_first=True)
        self.out = nn.Linear(128, data.VOCAB)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, (h, _) = self.lstm(self.embedding(x))
        return self.out(h[-1])


class Transfer(nn.Module):
    """A frozen ImageNet backbone (MobileNetV3-small's features) and a new head."""

    def __init__(self, backbone: nn.Module, classes: int) -> None:
        super().__init__()
        self.backbone = backbone
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(weights.TORCH_BACKBONE_FEATURES, classes)
        self.register_buffer("mean", torch.tensor(IMAGENET_MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(IMAGENET_STD).view(1, 3, 1, 1))

        self.frozen = False

    def freeze(self) -> None:
        """Frozen means frozen: no gradients, and BatchNorm keeps its statistics (the backbone stays in eval mode)."""
        self.frozen = True
        for p in self.backbone.parameters():
            p.requires_grad_(False)
        self.backbone.eval()

    def train(self, mode: bool = True) -> "Transfer":
        super().train(mode)
        if self.frozen:
            self.backbone.eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.pool(self.backbone((x - self.mean) / self.std)))


def _images(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))  # NHWC -> NCHW


# ---------------------------------------------------------------------------------------------------------------
# Training and the checks


def _evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor, device: torch.device) -> tuple[float, float]:
    was_training = model.training
    model.eval()
    with torch.no_grad():
        logits = model(x.to(device))
        loss = nn.functional.cross_entropy(logits, y.to(device)).item()
        acc = (logits.argmax(1).cpu() == y).float().mean().item()
    model.train(was_training)
    return loss, acc


def _train(
    model: nn.Module,
    params: list[nn.Parameter],
    x: torch.Tensor,
    y: torch.Tensor,
    plan: Plan,
    lr: float,
    device: torch.device,
    progress: Progress,
    phase: str,
    on_batch: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], None] | None = None,
) -> float:
    opt = torch.optim.Adam(params, lr=lr)
    _sync(device)
    start = time.perf_counter()
    for step in range(plan.steps):
        sl = slice(step * plan.batch, (step + 1) * plan.batch)
        xb, yb = x[sl].to(device, non_blocking=True), y[sl].to(device, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        logits = model(xb)
        loss = nn.functional.cross_entropy(logits, yb)
        loss.backward()
        opt.step()
        if on_batch is not None:
            on_batch(xb, yb, logits)
        progress(step + 1, plan.steps, phase)
    _sync(device)
    return time.perf_counter() - start


class PlacementLog:
    """Records where every batch and every output of the training loop lived."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.batches = 0
        self.misplaced: list[str] = []

    def __call__(self, xb: torch.Tensor, yb: torch.Tensor, logits: torch.Tensor) -> None:
        self.batches += 1
        for what, t in (("input batch", xb), ("label batch", yb), ("output", logits)):
            if not _same_device(t.device, self.device):
                self.misplaced.append(f"{what} {self.batches} on {t.device}")


def _same_device(a: torch.device, b: torch.device) -> bool:
    return a.type == b.type and (a.type != "cuda" or (a.index or 0) == (b.index or 0))


def placement_check(model: nn.Module, log: PlacementLog, device: torch.device) -> Check:
    tensors = list(model.named_parameters()) + list(model.named_buffers())
    wrong = [f"{name} on {t.device}" for name, t in tensors if not _same_device(t.device, device)]
    wrong += log.misplaced
    measured: dict[str, Any] = {
        "tensors": len(tensors),
        "batches": log.batches,
        "misplaced": len(wrong),
        "cuda_available": torch.cuda.is_available(),
        "cuda_device_count": torch.cuda.device_count() if torch.cuda.is_available() else 0,
    }
    problems = []
    if wrong:
        problems.append(f"{len(wrong)} tensors not on {device}: " + ", ".join(wrong[:3]))
    if log.batches == 0:
        problems.append("no batch was seen")
    if device.type == "cuda" and not torch.cuda.is_available():
        problems.append("torch.cuda.is_available() is False")
    if problems:
        return Check("placement", Status.FAILED, "; ".join(problems), measured)
    saw = f", PyTorch sees {measured['cuda_device_count']} CUDA device(s)" if device.type == "cuda" else ""
    return Check(
        "placement",
        Status.PASSED,
        f"all {len(tensors)} parameters/buffers and {log.batches} batches and outputs on {device}{saw}",
        measured,
    )


def _one_step(model: nn.Module, xb: torch.Tensor, yb: torch.Tensor) -> tuple[float, list[float]]:
    model.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(model(xb), yb)
    loss.backward()
    grads = [p.grad.detach().double().cpu().flatten() for p in model.parameters() if p.grad is not None]
    flat = torch.cat(grads).tolist() if grads else []
    return loss.item(), flat


def agreement_check(model_cpu: nn.Module, xb: torch.Tensor, yb: torch.Tensor, device: torch.device) -> Check:
    """One forward + backward from the same weights on the CPU and on ``device`` (fp32, TF32 off)."""
    model_dev = copy.deepcopy(model_cpu).to(device)
    tf32 = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    try:
        loss_c, grads_c = _one_step(model_cpu, xb, yb)
        loss_d, grads_d = _one_step(model_dev, xb.to(device), yb.to(device))
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = tf32
    model_cpu.zero_grad(set_to_none=True)
    return assess.agreement(str(device), loss_c, loss_d, assess.relative_error(grads_c, grads_d))


def amp_step(model: nn.Module, xb: torch.Tensor, yb: torch.Tensor, device: torch.device, dtype: torch.dtype) -> float:
    """One mixed-precision training step on a copy of the model (fp16 with a loss scaler): -> its loss."""
    model = copy.deepcopy(model).to(device).train()
    xb, yb = xb.to(device), yb.to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=1e-3)
    scaler = torch.amp.GradScaler(device.type, enabled=dtype == torch.float16)
    with torch.autocast(device.type, dtype=dtype):
        loss = nn.functional.cross_entropy(model(xb), yb)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    return float(loss.item())


def amp_check(model: nn.Module, xb: torch.Tensor, yb: torch.Tensor, device: torch.device, amp: bool | None) -> Check:
    if device.type != "cuda":
        return assess.skipped("amp", "mixed precision needs a CUDA device; this ran on the CPU")
    major, minor = torch.cuda.get_device_capability(device)
    cc = f"{major}.{minor}"
    if amp is False:
        return assess.skipped("amp", "turned off by --no-amp")
    if amp is None and major < 7:
        return assess.skipped("amp", f"compute capability {cc} < 7.0 (no tensor cores): off by default, --amp forces it")
    measured: dict[str, Any] = {"compute_capability": cc}
    problems = []
    dtypes = [("fp16", torch.float16)] + ([("bf16", torch.bfloat16)] if torch.cuda.is_bf16_supported() else [])
    for short, dtype in dtypes:
        measured[f"{short}_loss"] = amp_step(model, xb, yb, device, dtype)
        if not math.isfinite(measured[f"{short}_loss"]):
            problems.append(f"{short} loss is {measured[f'{short}_loss']}")
    if problems:
        return Check("amp", Status.FAILED, "mixed precision step: " + "; ".join(problems), measured)
    bf16 = f", bf16 loss {measured['bf16_loss']:.4f}" if "bf16_loss" in measured else ", bf16 not supported here"
    return Check("amp", Status.PASSED, f"fp16 step with loss scaling: loss {measured['fp16_loss']:.4f}{bf16}", measured)


# ---------------------------------------------------------------------------------------------------------------
# The cases


def _make(test: str, request: CaseRequest, device: torch.device, notes: list[str], out: dict[str, Any], progress: Progress):
    """-> (model, trainable params, train x, train y, eval x, eval y, frozen part or None, classes)."""
    plan = PLANS[test]
    n = plan.steps * plan.batch
    if test == "cnn":
        x, y = data.cnn_data(n, seed=1)
        ex, ey = data.cnn_data(plan.eval_n, seed=2)
        model = Cnn()
        return model, list(model.parameters()), _images(x), torch.from_numpy(y), _images(ex), torch.from_numpy(ey), None, data.CNN_CLASSES
    if test == "lstm":
        x, y = data.lstm_data(n, seed=1)
        ex, ey = data.lstm_data(plan.eval_n, seed=2)
        model = Lstm()
        return model, list(model.parameters()), torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(ex), torch.from_numpy(ey), None, data.LANGUAGE_WORDS
    # transfer
    backbone, source = weights.torch_backbone(request.weights)
    out["weights"] = source.description
    if source.kind == "fallback":
        notes.append(weights.FALLBACK_NOTE)
        _pretrain(backbone, device, request.lr_scale, progress)
    x, y = data.transfer_data(n, seed=1, size=TRANSFER_SIZE)
    ex, ey = data.transfer_data(plan.eval_n, seed=2, size=TRANSFER_SIZE)
    model = Transfer(backbone, data.TRANSFER_CLASSES)
    model.freeze()
    return model, list(model.head.parameters()), _images(x), torch.from_numpy(y), _images(ex), torch.from_numpy(ey), model.backbone, data.TRANSFER_CLASSES


def _pretrain(backbone: nn.Module, device: torch.device, lr_scale: float, progress: Progress) -> None:
    """Offline stand-in for ImageNet: train the whole backbone on task A, then it is frozen for task B."""
    x, y = data.pretrain_data(PRETRAIN.steps * PRETRAIN.batch, seed=3, size=TRANSFER_SIZE)
    model = Transfer(backbone, data.PRETRAIN_CLASSES).to(device).train()
    _train(model, list(model.parameters()), _images(x), torch.from_numpy(y), PRETRAIN, PRETRAIN.lr * lr_scale, device,
           progress, "pretraining backbone")  # fmt: skip
    # BatchNorm statistics with torchvision's momentum (0.01) are still near their initial values after so few
    # steps: recompute them over the task-A data (cumulative average), as one does after short training.
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for m in norms:
        m.reset_running_stats()
        m.momentum = None
    with torch.no_grad():
        for i in range(0, min(len(x), 8 * PRETRAIN.batch), PRETRAIN.batch):
            model(_images(x[i : i + PRETRAIN.batch]).to(device))
    for m in norms:
        m.momentum = 0.01
    model.cpu()


def run(request: CaseRequest, progress: Progress) -> dict[str, Any]:
    """Run one case; -> the fields of a SmokeResult (the worker adds framework/test/wall time)."""
    torch.manual_seed(0)
    device, device_name, note = resolve_device(request.device)
    out: dict[str, Any] = {
        "device": str(device),
        "device_name": device_name,
        "device_note": note,
        "framework_version": torch.__version__,
    }
    notes: list[str] = []
    plan = PLANS[request.test]
    model, params, x, y, ex, ey, frozen_part, classes = _make(request.test, request, device, notes, out, progress)
    torch.manual_seed(0)
    if request.test == "transfer":
        model.head.reset_parameters()
    checks: list[Check] = []

    # 3. the GPU computes right: one step from the same initial weights on the CPU and on the device
    probe_x, probe_y = x[: plan.batch], y[: plan.batch]
    if device.type == "cuda":
        checks.append(agreement_check(model.cpu(), probe_x, probe_y, device))
    else:
        checks.append(assess.skipped("agreement", "ran on the CPU: there is no GPU result to compare with the CPU's"))
    # 5. mixed precision (on a copy, before training)
    amp = amp_check(model, probe_x, probe_y, device, request.amp)

    model.to(device).train()
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    first_loss, _ = _evaluate(model, ex, ey, device)
    before = {k: v.detach().clone() for k, v in frozen_part.state_dict().items()} if frozen_part is not None else None
    head_before = [p.detach().clone() for p in params]
    log = PlacementLog(device)
    train_s = _train(model, params, x, y, plan, plan.lr * request.lr_scale, device, progress, "training", log)
    last_loss, accuracy = _evaluate(model, ex, ey, device)

    # 1. it learned
    chance = 1.0 / classes
    checks.insert(0, assess.learned(first_loss, last_loss, accuracy, chance, plan.target))
    # 2. it ran where asked
    checks.insert(1, placement_check(model, log, device))
    # 4. transfer learning froze what it should
    if frozen_part is not None and before is not None:
        after = frozen_part.state_dict()
        changed = [k for k, v in before.items() if not torch.equal(v, after[k].detach().to(v.device))]
        head_changed = sum(1 for a, b in zip(head_before, params) if not torch.equal(a, b.detach()))
        checks.append(assess.frozen(changed, len(before), head_changed, len(params)))
    checks.append(amp)

    out.update(training_summary(plan, first_loss, last_loss, accuracy, chance, train_s, torch.cuda.max_memory_allocated(device) / 2**20 if device.type == "cuda" else None, checks, notes))
    return out


def cnn_step_time(device_request: str, steps: int = 20, batch: int = 256) -> float:
    """Seconds per CNN training step (after warm-up) on a device: the benchmark's GPU/CPU speedup figure."""
    device, _, _ = resolve_device(device_request)
    torch.manual_seed(0)
    model = Cnn().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = data.cnn_data(batch, seed=1)
    xb, yb = _images(x).to(device), torch.from_numpy(y).to(device)
    for i in range(steps + 3):
        if i == 3:
            _sync(device)
            start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()
    _sync(device)
    return (time.perf_counter() - start) / steps


__all__ = ["run", "resolve_device", "cnn_step_time", "CaseFailed", "NoDevice"]
