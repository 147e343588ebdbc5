"""The parent side that every child process of verify and bench shares: the environment a child starts with, and a
signal's name for the reason of a child that died of one."""

from __future__ import annotations

import os
import signal


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's C++ INFO/WARNING spam
    env.setdefault("PYTHONUNBUFFERED", "1")
    # OpenMP threads that spin while waiting burn a busy host's cores for nothing: measured on 2 loaded cores, ten
    # MobileNet training steps took 16 s of CPU with spinning threads and 2 s without.
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    # PYTHONPATH stays the user's: the child imports the framework the user's Python imports, and this same gpudoctor
    # through child_start (which loads it from its own directory, in front of nothing).
    return env


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
