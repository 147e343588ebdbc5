"""The measurements, run in the child (``python -m gpudoctor.bench.worker``); the only bench modules that use torch,
and they import it inside the functions that run there, so importing this package loads no framework. Each module has ``run(ctx) -> list[Measurement]``; REGISTRY is the order they run in. A new measurement
(the all-reduce bus bandwidth and P2P matrix across GPUs) is one more module here and names in model.MEASUREMENTS."""

from __future__ import annotations

from gpudoctor.bench.measures import matmul, memory, realistic, training

REGISTRY = (("matmul", matmul.run), ("memory", memory.run), ("training", training.run), ("realistic", realistic.run))
