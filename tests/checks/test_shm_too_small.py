"""/dev/shm too small or not writable (matrices/signatures.toml, family "shm"): NCCL's shared-memory segments fail
(an error: NCCL stops) or a DataLoader worker dies of SIGBUS (a warning: PyTorch says it "might be" shared memory).
Lines from NVIDIA/nccl#342, pytorch/pytorch#37004 and pytorch/torchtitan#853 (NCCL), hkchengrex/STCN#132 and
PaddlePaddle/PaddleSpeech#790 (DataLoader)."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Severity


def _judged(text: str):
    return [f for f in run_checks(read_evidence(text, "paste"), load_matrix()).findings if f.severity >= Severity.WARNING]


@pytest.mark.parametrize("lines", [
    "06b2d0f10e5a:90:90 [0] include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device\n"
    "06b2d0f10e5a:90:90 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-250a7cc850ba9298-0-1-3 (size 9637888)\n",
    "node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied\n",
    "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, unhandled system error\n"
    "Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)\n",
])
def test_nccl_shared_memory_failures_are_an_error_with_the_container_fix(lines):
    (f,) = _judged(lines)
    assert (f.id, f.severity) == ("shm-too-small", Severity.ERROR)
    assert f.evidence[0].startswith("log: ") and f.evidence[0][len("log: "):] in lines.splitlines()
    assert any("--ipc=host" in c for c in f.fix.commands) and any("df -h /dev/shm" in c for c in f.fix.commands)


@pytest.mark.parametrize("line", [
    "RuntimeError: unable to write to file </torch_739_144252761_4>: No space left on device (28)",  # logicalclocks/hopsworks#1557
    "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
    "RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus error. It is possible that dataloader's "
    "workers are out of shared memory. Please try to raise your shared memory limit.",
])
def test_a_dataloader_bus_error_is_a_warning_not_an_error(line):
    (f,) = _judged(line)
    assert (f.id, f.severity) == ("shm-too-small", Severity.WARNING)
    assert any("num_workers=0" in c for c in f.fix.commands)


@pytest.mark.parametrize("line", [
    "RuntimeError: DataLoader worker (pid 13) is killed by signal: Killed.",  # the OOM killer, not shared memory
    "NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC",
    "perror: Error while creating shared memory segment!",  # a program's own shmget failure, not NCCL
])
def test_near_misses_say_nothing_about_shared_memory(line):
    assert [f.id for f in _judged(line) if f.id == "shm-too-small"] == []


def test_nvidias_container_note_on_the_default_64_mb_is_information():
    text = ("NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be\n"
            "   insufficient for PyTorch.  NVIDIA recommends the use of the following flags:\n")
    (f,) = [f for f in run_checks(read_evidence(text, "paste"), load_matrix()).findings if f.id == "shm-too-small"]
    assert f.severity is Severity.INFO and "--ipc=host" in f.fix.commands[0]
    assert _judged("RuntimeError: unable to write to file </tmp/checkpoint.pt>: No space left on device (28)") == []
