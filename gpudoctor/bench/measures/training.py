"""The CNN smoke model's training step (verify's CNN: same model, same synthetic images) on the device and on the
CPU -- the GPU/CPU speedup -- and the largest batch whose training step fits in device memory (a bounded search:
doubling until out of memory, then bisecting)."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from gpudoctor.bench.measures.timing import Context, time_it
from gpudoctor.bench.model import Measurement

if TYPE_CHECKING:  # annotations only: this module runs in bench's child, and importing it loads no framework
    import torch

BATCH = 128  # the same batch on the GPU and the CPU, so the step times divide into the speedup
START_BATCH = 1024
MAX_BATCH = 1 << 20  # 1M 28x28 images: past every GPU's memory for this model; the search stops here regardless


def run(ctx: Context) -> list[Measurement]:
    import torch

    ctx.progress("cnn-step")
    out = [_step(ctx, ctx.device, "cnn-step")]
    if ctx.cuda:
        ctx.progress("cnn-step-cpu")
        out.append(_step(ctx, torch.device("cpu"), "cnn-step-cpu"))
        if ctx.quick:  # up to 11 steps of huge batches: the longest measurement, and not a health figure
            out.append(Measurement("largest-batch", skipped="--quick does not search for it (the full run does)"))
        else:
            ctx.progress("largest-batch")
            out.append(_largest_batch(ctx))
    else:
        out.append(Measurement("cnn-step-cpu", skipped="the device is the CPU: cnn-step is the CPU figure"))
        out.append(Measurement("largest-batch", skipped="the CPU shares host memory: no device limit to find"))
    return out


def _model_step(device: torch.device, batch: int):
    import torch
    from torch import nn

    from gpudoctor.workloads import data  # numpy, like torch, is only imported in the child
    from gpudoctor.workloads.torch_models import Cnn, images

    torch.manual_seed(0)
    model = Cnn().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = data.cnn_data(batch, seed=1)
    xb, yb = images(x).to(device), torch.from_numpy(y).to(device)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()

    return step


def _step(ctx: Context, device: torch.device, name: str) -> Measurement:
    try:
        step = _model_step(device, BATCH)
        if device.type == "cuda":
            timed = time_it(step, device, warmup=3, min_runs=10, budget_s=0.5 if ctx.quick else 1.5, settle=ctx.quick)
        else:
            timed = time_it(step, device, warmup=1, min_runs=2 if ctx.quick else 3, max_runs=10,
                            budget_s=0.3 if ctx.quick else 2.0, settle=ctx.quick)  # fmt: skip
    except RuntimeError as exc:
        return Measurement(name, error=f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}")
    return Measurement(name, timed.median_s * 1000, f"batch {BATCH} of 28x28 images, {timed.how()}")


def _fits(device: torch.device, batch: int) -> bool:
    import torch
    from torch import nn

    from gpudoctor.workloads.torch_models import Cnn

    model = opt = x = y = None
    try:
        model = Cnn().to(device)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        x = torch.randn(batch, 1, 28, 28, device=device)
        y = torch.randint(0, 10, (batch,), device=device)
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        torch.cuda.synchronize(device)
        return True
    except torch.cuda.OutOfMemoryError:
        return False
    finally:
        del model, opt, x, y
        gc.collect()
        torch.cuda.empty_cache()


def _largest_batch(ctx: Context) -> Measurement:
    fits, fails, tries = 0, None, 0
    batch = START_BATCH
    try:
        while batch <= MAX_BATCH:
            tries += 1
            if not _fits(ctx.device, batch):
                fails = batch
                break
            fits, batch = batch, batch * 2
        # Bisect between the last batch that fitted and the first that did not, to within an eighth.
        steps = 0 if ctx.quick else 3
        while fails is not None and fits and steps and fails - fits > fits // 8:
            steps, tries, middle = steps - 1, tries + 1, (fits + fails) // 2
            fits, fails = (middle, fails) if _fits(ctx.device, middle) else (fits, middle)
    except RuntimeError as exc:
        return Measurement("largest-batch", error=f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}")
    if not fits:
        return Measurement("largest-batch", error=f"not even a batch of {START_BATCH} fits in device memory")
    bound = f"{fails} does not (out of memory)" if fails else f"the search stops at {MAX_BATCH}"
    return Measurement("largest-batch", float(fits), f"one training step of batch {fits} fits, {bound}; {tries} tries")
