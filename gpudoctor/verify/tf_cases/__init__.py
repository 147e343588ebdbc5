"""The TensorFlow (Keras 3) smoke tests, one job per module: device (where it runs, every tf.config call), models,
training (the custom tf.function step, evaluation, the placer's log, offline pretraining), checks (placement,
GPU-vs-CPU agreement, mixed precision) and case (one smoke test end to end). Imported only in the worker's child
process, and by tests. Importing this package imports nothing: device.py can be tested with a fake tf module."""
