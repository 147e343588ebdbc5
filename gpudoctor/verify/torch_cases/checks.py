"""What a PyTorch smoke test proves besides learning: placement of every tensor, GPU-vs-CPU agreement of one step
(in exact fp32), and a mixed-precision step (policy in assess.amp)."""

from __future__ import annotations

import copy
from typing import Any

import torch
from torch import nn

from gpudoctor.verify import assess
from gpudoctor.verify.model import SmokeCheck, SmokeStatus
from gpudoctor.workloads.torch_device import amp_dtypes, compute_capability, exact_fp32, same_device
from gpudoctor.verify.torch_cases.training import PlacementLog

AMP_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


def placement_check(model: nn.Module, log: PlacementLog, device: torch.device, cuda: Any = None) -> SmokeCheck:
    cuda = cuda or torch.cuda
    tensors = list(model.named_parameters()) + list(model.named_buffers())
    wrong = [f"{name} on {t.device}" for name, t in tensors if not same_device(t.device, device)]
    wrong += log.misplaced
    available = cuda.is_available()
    measured: dict[str, Any] = {
        "tensors": len(tensors),
        "batches": log.batches,
        "misplaced": len(wrong),
        "cuda_available": available,
        "cuda_device_count": cuda.device_count() if available else 0,
    }
    problems = []
    if wrong:
        problems.append(f"{len(wrong)} tensors not on {device}: " + ", ".join(wrong[:3]))
    if log.batches == 0:
        problems.append("no batch was seen")
    if device.type == "cuda" and not available:
        problems.append("torch.cuda.is_available() is False")
    if problems:
        return SmokeCheck("placement", SmokeStatus.FAILED, "; ".join(problems), measured)
    saw = f", PyTorch sees {measured['cuda_device_count']} CUDA device(s)" if device.type == "cuda" else ""
    return SmokeCheck(
        "placement",
        SmokeStatus.PASSED,
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


def agreement_check(model_cpu: nn.Module, xb: torch.Tensor, yb: torch.Tensor, device: torch.device) -> SmokeCheck:
    """One forward + backward from the same weights on the CPU and on ``device``, in exact fp32 (no TF32, no cuDNN
    autotuning) so that assess.AGREEMENT_TOLERANCE can be tight."""
    model_dev = copy.deepcopy(model_cpu).to(device)
    with exact_fp32():
        loss_c, grads_c = _one_step(model_cpu, xb, yb)
        loss_d, grads_d = _one_step(model_dev, xb.to(device), yb.to(device))
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


def amp_check(model: nn.Module, xb: torch.Tensor, yb: torch.Tensor, device: torch.device, amp: bool | None,
              cuda: Any = None) -> SmokeCheck:  # fmt: skip
    on_gpu = device.type == "cuda"
    return assess.amp(
        on_gpu,
        compute_capability(device, cuda) if on_gpu else None,
        amp,
        amp_dtypes(device, cuda) if on_gpu else [],
        lambda dtype: amp_step(model, xb, yb, device, AMP_DTYPES[dtype]),
    )
