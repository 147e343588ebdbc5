"""Device memory bandwidth (a large device-to-device copy: every byte is read once and written once) and the
host<->device copy bandwidth over PCIe, from pageable and from pinned (page-locked) host memory."""

from __future__ import annotations

from gpudoctor.bench.measures.timing import Context, time_it
from gpudoctor.bench.model import Measurement

_MIB = 1024 * 1024


def run(ctx: Context) -> list[Measurement]:
    ctx.progress("memory-copy")
    out = [_device_copy(ctx)]
    names = ("h2d-pageable", "h2d-pinned", "d2h-pageable", "d2h-pinned")
    if not ctx.cuda:
        return out + [Measurement(n, skipped="no host-device link: the CPU works in host memory") for n in names]
    for name in names:
        if ctx.quick and not name.endswith("pinned"):  # only the pinned copies are judged against the link
            out.append(Measurement(name, skipped="--quick measures the pinned copies only (the ones judged against the link)"))
            continue
        ctx.progress(name)
        out.append(_transfer(ctx, name))
    return out


def _error(name: str, exc: BaseException) -> Measurement:
    return Measurement(name, error=f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}")


def _device_copy(ctx: Context) -> Measurement:
    import torch

    mib = (256 if ctx.quick else 1024) if ctx.cuda else (64 if ctx.quick else 256)
    try:
        src = torch.ones(mib * _MIB, dtype=torch.uint8, device=ctx.device)
        dst = torch.empty_like(src)
        timed = time_it(lambda: dst.copy_(src), ctx.device, min_runs=5, budget_s=0.5 if ctx.quick else 1.0, settle=ctx.quick)
    except RuntimeError as exc:
        return _error("memory-copy", exc)
    gbs = 2 * mib * _MIB / timed.median_s / 1e9  # read + write
    return Measurement("memory-copy", gbs, f"{mib} MiB copied (read + write counted), {timed.how()}")


def _transfer(ctx: Context, name: str) -> Measurement:
    import torch

    mib = 64 if ctx.quick else 256
    pinned = name.endswith("pinned")
    try:
        host = torch.ones(mib * _MIB, dtype=torch.uint8)
        if pinned:
            host = host.pin_memory()
        dev = torch.empty(mib * _MIB, dtype=torch.uint8, device=ctx.device)
        if name.startswith("h2d"):
            timed = time_it(lambda: dev.copy_(host, non_blocking=pinned), ctx.device, min_runs=5, budget_s=0.6,
                            settle=ctx.quick)  # fmt: skip
        else:
            timed = time_it(lambda: host.copy_(dev, non_blocking=pinned), ctx.device, min_runs=5, budget_s=0.6,
                            settle=ctx.quick)  # fmt: skip
    except RuntimeError as exc:
        return _error(name, exc)
    return Measurement(name, mib * _MIB / timed.median_s / 1e9, f"{mib} MiB, {timed.how()}")
