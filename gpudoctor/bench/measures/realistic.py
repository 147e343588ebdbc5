"""A training step sized to fill a GPU (issue 23): a ResNet-18-shaped CNN on 224x224 images, batch 64, in fp32 (TF32
where the GPU has it) and in bf16 where supported, timed on the GPU and, for a few steps of a small batch, on the
CPU; with the GPU's SM clock and utilisation read while it ran. The smoke-size step (training.py) says "this GPU
trains"; this one says how much faster than the CPU it trains a real model, which a batch of 128 28x28 images
cannot (it measures kernel launches). On a machine without a GPU it runs on the CPU and says so.

The per-image time is the figure: the CPU runs a small batch (a 2-core CPU needs seconds per image) and per-image
cost on a CPU hardly depends on the batch; the speedup (assess.realistic_speedup) divides the two."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from gpudoctor.bench.measures.timing import Context, settled, sync
from gpudoctor.bench.model import Measurement

if TYPE_CHECKING:  # annotations only: this module runs in bench's child, and importing it loads no framework
    import torch

SIZE = 224
GPU_BATCH = 64
CPU_BATCH = 2
CLASSES = 1000
STAGES = ((64, 1), (128, 2), (256, 2), (512, 2))  # (channels, stride of the first block): ResNet-18, two blocks each


def run(ctx: Context) -> list[Measurement]:
    import torch

    out = []
    if ctx.cuda:
        ctx.progress("realistic-step")
        out += _gpu_steps(ctx, "tf32" in ctx.precisions, "bf16" in ctx.precisions)
        ctx.progress("realistic-step-cpu")
        out.append(_cpu_step(ctx, torch.device("cpu")))
    else:
        ctx.progress("realistic-step-cpu")
        out.append(Measurement("realistic-step", skipped="the device is the CPU: realistic-step-cpu is the CPU figure"))
        out.append(Measurement("realistic-step-bf16", skipped="the device is the CPU"))
        out.append(_cpu_step(ctx, ctx.device))
        out.append(Measurement("realistic-sm-clock", skipped="the device is the CPU"))
        out.append(Measurement("realistic-utilisation", skipped="the device is the CPU"))
    return out


def model(classes: int = CLASSES):  # -> torch.nn.Module
    """ResNet-18's shape (He et al. 2015, table 1): a 7x7 stem, four stages of two basic blocks, global pooling and
    one linear layer; written here so bench needs torch alone."""
    from torch import nn

    class Block(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.b1 = nn.BatchNorm2d(cout)
            self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.b2 = nn.BatchNorm2d(cout)
            self.down = None if stride == 1 and cin == cout else nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))  # fmt: skip

        def forward(self, x):  # type: ignore[no-untyped-def]
            y = self.b2(self.c2(nn.functional.relu(self.b1(self.c1(x)))))
            return nn.functional.relu(y + (x if self.down is None else self.down(x)))

    layers: list[nn.Module] = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in STAGES:
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*layers)


def _step_fn(device: torch.device, batch: int, bf16: bool):
    import torch
    from torch import nn

    torch.manual_seed(0)
    net = model().to(device)
    if device.type == "cuda":
        net = net.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, 3, SIZE, SIZE, device=device)
    if device.type == "cuda":
        x = x.contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, CLASSES, (batch,), device=device)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()

    return step


def _gpu_steps(ctx: Context, tf32: bool, bf16: bool) -> list[Measurement]:
    import torch

    out = []
    previous = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = tf32
    try:
        out += _gpu_step(ctx, "realistic-step", False, "TF32" if tf32 else "fp32")
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = previous
    if bf16:
        out.append(_gpu_step(ctx, "realistic-step-bf16", True, "bf16 autocast")[0])
    else:
        out.append(Measurement("realistic-step-bf16", skipped="this GPU has no bf16 tensor cores (per the matrix)"))
    return out


def _gpu_step(ctx: Context, name: str, bf16: bool, precision: str) -> list[Measurement]:
    """The step timed with CUDA events; the SM clock and utilisation read (NVML, through torch) while steps run."""
    import torch

    try:
        step = _step_fn(ctx.device, GPU_BATCH, bf16)
        for _ in range(3):  # warm-up: cuDNN picks its algorithms, the clocks ramp up
            step()
        sync(ctx.device)
        times: list[float] = []
        clocks: list[int] = []
        utilisation: list[int] = []
        deadline = time.perf_counter() + (1.0 if ctx.quick else 3.0)
        while len(times) < 30 and (len(times) < 5 or time.perf_counter() < deadline):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            _sample(ctx.device, clocks, utilisation)  # the GPU is busy with the step just queued
            end.synchronize()
            times.append(start.elapsed_time(end) / 1000.0)
            if ctx.quick and settled(times):  # --quick: stop once the runs agree
                break
    except RuntimeError as exc:
        return [Measurement(name, error=f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}")]
    times.sort()
    per_image_ms = times[len(times) // 2] / GPU_BATCH * 1000
    out = [Measurement(name, per_image_ms, f"ResNet-18 shape, {SIZE}x{SIZE}, batch {GPU_BATCH}, {precision}, "
                                           f"median of {len(times)} after 3 warm-up")]  # fmt: skip
    if name == "realistic-step":
        out.append(Measurement("realistic-sm-clock", float(min(clocks)), f"lowest of {len(clocks)} readings during the step")
                   if clocks else Measurement("realistic-sm-clock", skipped="NVML could not be read through torch"))  # fmt: skip
        out.append(Measurement("realistic-utilisation", float(min(utilisation)), f"lowest of {len(utilisation)} readings during the step")
                   if utilisation else Measurement("realistic-utilisation", skipped="NVML could not be read through torch"))  # fmt: skip
    return out


def _sample(device: torch.device, clocks: list[int], utilisation: list[int]) -> None:
    import torch

    try:
        clocks.append(int(torch.cuda.clock_rate(device)))
        utilisation.append(int(torch.cuda.utilization(device)))
    except Exception:  # noqa: BLE001 - pynvml missing or refusing: unknown, not an error
        pass


def _cpu_step(ctx: Context, device: torch.device) -> Measurement:
    import torch

    runs = 1 if ctx.quick else 2
    try:
        step = _step_fn(device, CPU_BATCH, False)
        step()  # warm-up
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            step()
            times.append(time.perf_counter() - t0)
    except RuntimeError as exc:
        return Measurement("realistic-step-cpu", error=f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}")
    per_image_ms = min(times) / CPU_BATCH * 1000
    return Measurement("realistic-step-cpu", per_image_ms,
                       f"ResNet-18 shape, {SIZE}x{SIZE}, batch {CPU_BATCH}, fp32 on the CPU ({torch.get_num_threads()} "
                       f"threads), best of {runs} after 1 warm-up")  # fmt: skip


def train_flops_per_image(size: int = SIZE, classes: int = CLASSES) -> float:
    """Floating-point operations of one training step per image of this model: 2 per multiply-add, the backward
    pass twice the forward (the usual 3x). Pure arithmetic over the layers above (convolutions and the linear
    layer; normalisation and activations are a few percent and left out)."""
    macs = 0
    side = size // 2  # stem: 7x7, stride 2
    macs += 7 * 7 * 3 * 64 * side * side
    side //= 2  # max pool
    cin = 64
    for cout, stride in STAGES:
        for block in range(2):
            s = stride if block == 0 else 1
            out_side = side // s
            macs += 3 * 3 * cin * cout * out_side * out_side + 3 * 3 * cout * cout * out_side * out_side
            if s != 1 or cin != cout:
                macs += cin * cout * out_side * out_side
            cin, side = cout, out_side
    macs += cin * classes
    return 3 * 2 * float(macs)

