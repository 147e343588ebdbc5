"""The PyTorch smoke tests, one job per module: device (where it runs, every CUDA call), models, training (the loop,
evaluation, placement log, offline pretraining), checks (placement, GPU-vs-CPU agreement, mixed precision) and case
(one smoke test end to end). Imported only in the worker's child process, and by tests."""
