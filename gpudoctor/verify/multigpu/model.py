"""What ``verify --multi-gpu`` observed and judged: frozen dataclasses, JSON round-trip, no framework import.

A rank (one process of the torchrun group) reports what it did: its device, its held-out loss before and after
training, a checksum of its parameters after training and the checksums it gathered from every other rank, and the
gradient check of the first step (DDP's averaged gradient against the mean of the ranks' local gradients)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

RANK_SCHEMA = "gpudoctor.multigpu.rank/1"
FAULT_ENV = "GPUDOCTOR_MULTIGPU_FAULT"  # test-only faults of the rank worker (see rank_worker.py)


@dataclass(frozen=True)
class RankResult:
    """One rank of the DDP run: its device, how training went, and its parameters' digest to compare the replicas."""

    rank: int
    world_size: int
    backend: str  # "nccl" | "gloo"
    device: str  # "cuda:1", "cpu"
    device_name: str  # "NVIDIA H100 80GB HBM3", "CPU"
    steps: int
    batch_size: int  # per rank and step
    first_loss: float  # held-out loss before training (the same held-out set on every rank)
    last_loss: float  # held-out loss after training
    accuracy: float
    chance: float
    param_sum: float  # float64 sum of every parameter after training
    param_norm: float  # float64 L2 norm of every parameter after training
    param_sha256: str  # of the parameters' bytes: bit-identical replicas have the same digest
    gathered_norms: tuple[float, ...] = ()  # every rank's param_norm, as this rank received them (all_gather)
    grad_avg_rel_err: float | None = None  # first step: |DDP grad - mean of local grads| / |mean|
    local_grad_spread: float | None = None  # first step: how far this rank's local gradient is from the mean (rel.)
    train_s: float | None = None
    busbw_gbs: float | None = None  # all-reduce bus bandwidth (nccl-tests' definition), rank 0 measures
    algbw_gbs: float | None = None
    allreduce_bytes: int | None = None
    torch_version: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["gathered_norms"] = list(self.gathered_norms)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RankResult":
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["gathered_norms"] = tuple(float(v) for v in data.get("gathered_norms") or ())
        return cls(**kwargs)


@dataclass(frozen=True)
class Launch:
    """How one torchrun launch ended, as the parent saw it (judged by assess.py, never by the child)."""

    world_size: int
    backend: str
    returncode: int | None  # None: could not start, or killed at the timeout
    timed_out: bool
    wall_s: float
    ranks: tuple[RankResult, ...]  # the rank results that came back (some may be missing)
    problems: tuple[str, ...] = ()  # rank files that could not be read, and why
    tail: tuple[str, ...] = ()  # the last lines of the group's output (NCCL_DEBUG=INFO lines included)
    p2p_disabled: bool = False  # this launch ran with NCCL_P2P_DISABLE=1
    error: str | None = None  # why it could not start
