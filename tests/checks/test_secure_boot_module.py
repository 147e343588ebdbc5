"""modprobe's "Key was rejected by service" / "Required key not available" for the nvidia module: Secure Boot refuses
an unsigned (or unenrolled) module, so the driver is installed but not loaded; the fix is the key, not a reinstall
(matrices/signatures.toml: the entry comes before the general "could not insert" one of its family)."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.evidence import read_evidence
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Severity


def _report(text: str):
    return run_checks(read_evidence(text, "paste"), load_matrix())


@pytest.mark.parametrize("line", [
    "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service",
    "modprobe: ERROR: could not insert 'nvidia_uvm': Required key not available",
])
def test_secure_boot_is_named_with_the_key_fix(line):
    (f,) = [f for f in _report(line).findings if f.severity >= Severity.WARNING]
    assert (f.id, f.severity) == ("gpu-without-driver", Severity.ERROR)
    assert f.title.startswith("Secure Boot refuses the NVIDIA kernel module")
    assert any("mokutil --import" in c for c in f.fix.commands)
    assert f.evidence[0] == f"log: {line}"


def test_another_insert_failure_stays_the_general_finding():
    (f,) = [f for f in _report("modprobe: ERROR: could not insert 'nvidia_367': Function not implemented").findings
            if f.severity >= Severity.WARNING]
    assert f.id == "gpu-without-driver" and not f.title.startswith("Secure Boot")
