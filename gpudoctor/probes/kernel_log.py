"""The kernel log since boot, read for the NVIDIA driver's Xid lines: ``dmesg`` first (one fast read of the ring
buffer), ``journalctl -k -b`` when dmesg is refused (kernel.dmesg_restrict=1, the default on Ubuntu since 20.10,
denies it to ordinary users; journalctl lets members of adm / systemd-journal read the kernel log).

A refusal is *unknown* (ProbeFailed, the log is None), never "no Xid": a log nobody could read says nothing."""

from __future__ import annotations

from ..errors import ProbeFailed
from ..model import KernelLog, XidEvent
from ..runner import CommandResult, Runner
from ..xid_text import parse_kernel_log

DMESG = ("dmesg",)
JOURNAL = ("journalctl", "-k", "-b", "--no-pager")
# What journalctl prints (on stderr, rc 0) when the user may not read the system journal: its output is then the
# user's own journal, without the kernel's lines, so an empty answer would be read as "no Xid".
_JOURNAL_DENIED = ("insufficient permissions", "not seeing messages from other users", "No journal files were")


def probe_kernel_log(runner: Runner) -> KernelLog:
    dmesg = runner.run(DMESG, timeout=3.0)
    if dmesg.ok:
        return kernel_log_from(dmesg.stdout, "dmesg")
    journal = runner.run(JOURNAL, timeout=5.0)
    if journal.ok and not any(text in journal.stderr + journal.stdout[:300] for text in _JOURNAL_DENIED):
        return kernel_log_from(journal.stdout, "journalctl -k")
    raise ProbeFailed(f"kernel log not readable: {_why(dmesg)}; {_why(journal)}")


def kernel_log_from(text: str, source: str) -> KernelLog:
    xids, off_bus = parse_kernel_log(text)
    return KernelLog(
        source=source,
        xid_events=tuple(XidEvent(x.xid, x.pci_bus_id, x.text) for x in xids),
        fallen_off_bus=tuple(dict.fromkeys(o.pci_bus_id for o in off_bus)),
    )


def _why(result: CommandResult) -> str:
    if result.error:
        return result.error
    first = (result.stderr.strip() or result.stdout.strip()).splitlines()[:1]
    return f"{result.argv[0]}: {first[0][:200]}" if first else f"{result.argv[0]}: exit status {result.returncode}"
