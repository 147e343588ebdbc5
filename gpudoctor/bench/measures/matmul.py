"""Dense matmul throughput per precision: C = A @ B of n x n matrices is 2n^3 floating-point operations."""

from __future__ import annotations

from gpudoctor.bench.measures.timing import Context, time_it
from gpudoctor.bench.model import Measurement

_DTYPES = {"fp32": "float32", "tf32": "float32", "fp16": "float16", "bf16": "bfloat16"}  # torch dtype names


def size(ctx: Context, precision: str) -> int:
    if ctx.cuda:
        return 4096 if ctx.quick else 8192
    # Two busy CPU cores do tens of GFLOPS in fp32 and far less in bf16 without AMX: keep each run well under 1 s.
    return (512 if ctx.quick else 1024) if precision == "fp32" else 256 if ctx.quick else 512


def run(ctx: Context) -> list[Measurement]:
    out = []
    for precision in ("fp32", "tf32", "fp16", "bf16"):
        name = f"matmul-{precision}"
        if precision not in ctx.precisions:
            why = "no tensor cores for it on this device (gpus.toml [tensor_cores])" if ctx.cuda else \
                "a tensor-core precision: not measured on the CPU"
            out.append(Measurement(name, skipped=why))
            continue
        ctx.progress(name)
        out.append(_one(ctx, precision, name))
    return out


def _one(ctx: Context, precision: str, name: str) -> Measurement:
    import torch

    n = size(ctx, precision)
    # "highest" keeps fp32 exact; "high" lets cuBLAS use TF32 tensor cores (torch's documented switch for both).
    torch.set_float32_matmul_precision("high" if precision == "tf32" else "highest")
    try:
        gen = torch.Generator(device=ctx.device).manual_seed(0)
        a = torch.randn(n, n, device=ctx.device, generator=gen).to(getattr(torch, _DTYPES[precision]))
        b = torch.randn(n, n, device=ctx.device, generator=gen).to(getattr(torch, _DTYPES[precision]))
        c = torch.empty_like(a)
        timed = time_it(lambda: torch.matmul(a, b, out=c), ctx.device, warmup=2 if ctx.cuda else 1,
                        min_runs=5 if ctx.cuda else 3, budget_s=0.5 if ctx.quick else 1.5, settle=ctx.quick)  # fmt: skip
    except (RuntimeError, TypeError) as exc:
        return Measurement(name, error=f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}")
    finally:
        torch.set_float32_matmul_precision("highest")
    tflops = 2 * n**3 / timed.median_s / 1e12
    return Measurement(name, tflops, f"{n}x{n}, {timed.how()}")
