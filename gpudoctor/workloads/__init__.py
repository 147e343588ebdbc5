"""What runs in the child processes that both ``verify`` and ``bench`` start: the synthetic data, the models and
devices of the training step they both time or train, the pretrained weights, the all-reduce timing, and the parent
side they share (the child's environment, torchrun's command line, signal names). verify (the smoke tests and
their judging) and bench (the measurements and theirs) each import these and never each other.

Importing this package loads no framework; the modules that use one import it where they run, in the child.
"""

from __future__ import annotations


class NoDevice(Exception):
    """The requested device is not there (``--device cuda`` on a machine without one): a failed test, no traceback."""


class CaseFailed(Exception):
    """A case that cannot go on (e.g. a --weights file that does not fit): a failed test with this message."""
