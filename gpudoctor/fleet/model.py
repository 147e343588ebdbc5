"""What the fleet view holds: a compact digest per node (never the whole report, so 10,000 nodes stay small) and
the aggregate judged from them."""

from __future__ import annotations

from dataclasses import dataclass

# The facts compared across nodes, in print order: key -> label. Values are strings (or None: unknown).
DRIFT_KEYS = {
    "driver": "driver",
    "driver_cuda": "driver CUDA",
    "cuda_toolkit": "CUDA toolkit",
    "cudnn": "cuDNN",
    "torch": "torch",
    "torch_cuda": "torch CUDA",
    "tensorflow": "TensorFlow",
    "gpu_count": "GPU count",
    "gpu_model": "GPU model",
    "pcie_width": "PCIe width",
    "ecc_uncorrected": "ECC uncorrected errors",
}


@dataclass(frozen=True)
class NodeFinding:
    """A finding in one node's `gpudoctor check` report, as the fleet compares it: id, severity, title."""

    id: str
    severity: str  # "ok" | "info" | "warning" | "error"
    title: str


@dataclass(frozen=True)
class NodeResult:
    """One node's answer, or why it gave none (``failure``; then the rest is empty)."""

    name: str
    origin: str  # the file it was read from, or "srun task 3"
    failure: str | None = None  # "timed out after 120 s", "gpudoctor: not found (exit 127)", "not valid JSON ..."
    exit_code: int | None = None  # the node's own `gpudoctor check` exit code
    sections: tuple[tuple[str, str], ...] = ()  # (section, status) in the report's order
    findings: tuple[NodeFinding, ...] = ()
    facts: tuple[tuple[str, str | None], ...] = ()  # (DRIFT_KEYS key, value) for every key

    @property
    def answered(self) -> bool:
        return self.failure is None

    def fact(self, key: str) -> str | None:
        return dict(self.facts).get(key)


@dataclass(frozen=True)
class FindingGroup:
    """One finding id across the fleet: its worst severity and every node that reported it."""

    id: str
    severity: str  # the worst on any node
    title: str  # the title on the first node that has it (titles carry that node's versions)
    nodes: tuple[str, ...]


@dataclass(frozen=True)
class Drift:
    """A fact that is not the same on every node that reported it."""

    key: str
    label: str
    majority: str | None  # None when the most common values tie: then no value is "right" and every node is listed
    majority_count: int
    outliers: tuple[tuple[str, str], ...]  # (node, its value)
    unknown: tuple[str, ...] = ()  # nodes that could not tell: neither majority nor outlier

    @property
    def summary(self) -> str:
        """Plain text (renderers escape it): "535.104.05 on 3 nodes", or the tie said as a tie."""
        nodes = f"{self.majority_count} node{'s' if self.majority_count != 1 else ''}"
        if self.majority is None:
            return f"no majority (the most common values are on {nodes} each)"
        return f"{self.majority} on {nodes}"


@dataclass(frozen=True)
class GoldenDiff:
    """A fact on which a node differs from the golden reference node: its value and the golden one."""

    node: str
    key: str
    label: str
    value: str
    golden: str


@dataclass(frozen=True)
class FleetReport:
    """A fleet's answers side by side: every node (failed too), findings grouped by id, drift, golden differences."""

    nodes: tuple[NodeResult, ...]  # sorted by name; failed nodes included
    sections: tuple[str, ...]  # section column order
    findings: tuple[FindingGroup, ...]  # errors first, then warnings, info, ok
    drift: tuple[Drift, ...]
    golden: str | None = None  # where the golden reference came from
    golden_diffs: tuple[GoldenDiff, ...] = ()
    source: str = ""  # "slurm partition debug", "directory reports/"

    @property
    def failed(self) -> tuple[NodeResult, ...]:
        return tuple(n for n in self.nodes if not n.answered)

    @property
    def nodes_with_errors(self) -> tuple[str, ...]:
        return tuple(n.name for n in self.nodes if any(f.severity == "error" for f in n.findings))

    @property
    def exit_code(self) -> int:
        """DESIGN's exit codes: 1 when a node has an error finding, failed to answer, or differs from the golden."""
        problems = self.failed or self.nodes_with_errors or self.golden_diffs
        return 1 if problems else 0
