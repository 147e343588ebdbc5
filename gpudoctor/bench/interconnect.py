"""Judging bench's across-device figures, as pure functions: the all-reduce bus bandwidth against what the link
between the GPUs carries one way (NVLink from matrices/gpus.toml's nvlink_gbs, which NVIDIA's data sheets give for
both directions together; else the board's PCIe generation x width), and the P2P matrix against the topology
(gpudoctor.topology_text). A figure far below is a warning with the likely causes the topology shows."""

from __future__ import annotations

import dataclasses

from gpudoctor import topology_text as topology
from gpudoctor.bench.model import BenchFinding, Interconnect, PeerLink
from gpudoctor.matrix.tables.gpu_specs import GpuSpec, GpuSpecTable

NCCL_TESTS_URL = "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md"
ACS_URL = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#pci-access-control-services-acs"


def peer_links(links: dict[topology.Pair, str] | None, p2p: dict[topology.Pair, dict[str, str | None]] | None,
               gpus: int) -> tuple[PeerLink, ...]:  # fmt: skip
    """Every ordered pair i != j of the visible GPUs, with what topo -m and NVML said (None: unknown)."""
    out = []
    for a in range(gpus):
        for b in range(gpus):
            if a == b:
                continue
            caps = (p2p or {}).get((a, b), {})
            out.append(PeerLink(a, b, (links or {}).get((a, b)), caps.get("read"), caps.get("write"), caps.get("nvlink")))
    return tuple(out)


def expected_busbw(links: tuple[PeerLink, ...], spec: GpuSpec | None, table: GpuSpecTable) -> tuple[float | None, str]:
    """What the slowest link should carry one way (a ring all-reduce's bus bandwidth is bounded by it)."""
    if spec is None or not links:
        return None, ""
    codes = {p.link for p in links}
    if None not in codes and all(c.startswith("NV") for c in codes if c) and spec.nvlink_gbs:
        return spec.nvlink_gbs / 2, f"NVLink {spec.nvlink_gbs:g} GB/s both ways / 2 ({spec.name} data sheet)"
    pcie = table.link_gbs(spec.pcie_gen, spec.pcie_width)
    if pcie is None:
        return None, ""
    return pcie, f"PCIe gen {spec.pcie_gen} x{spec.pcie_width}: {pcie:.1f} GB/s one way ({spec.name} data sheet)"


def judge(measured: Interconnect, spec: GpuSpec | None, table: GpuSpecTable) -> Interconnect:
    findings = [f for f in (_p2p_finding(measured.links),) if f is not None]
    if measured.backend != "nccl" or measured.busbw_gbs is None:
        return dataclasses.replace(measured, findings=tuple(findings))  # the CPU has no link spec: a figure only
    expected, basis = expected_busbw(measured.links, spec, table)
    ratio = measured.busbw_gbs / expected if expected else None
    floor = table.floors.get("allreduce")
    if ratio is not None and floor is not None and ratio < floor:
        findings.append(BenchFinding(
            "bench-allreduce-below-topology", "warning",
            f"all-reduce bus bandwidth {measured.busbw_gbs:.1f} GB/s is {ratio:.0%} of the {expected:.1f} GB/s the "
            f"link should carry (under {floor:.0%})",
            (f"expected: {basis}", *_causes(measured.links)),
            ("NCCL_DEBUG=INFO shows which transport NCCL chose (P2P, SHM or NET): "
             "`NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH gpudoctor bench`",
             f"check ACS and the IOMMU: {ACS_URL}", "`nvidia-smi topo -m` shows the path between each pair"),
        ))  # fmt: skip
    return dataclasses.replace(measured, expected_gbs=expected, expected_basis=basis or None, ratio=ratio,
                               findings=tuple(findings))  # fmt: skip


def _causes(links: tuple[PeerLink, ...]) -> list[str]:
    """The likely causes the topology and NVML show, worst first."""
    causes = []
    no_p2p = sorted({f"GPU{p.a}-GPU{p.b}: {p.p2p_read}" for p in links if p.p2p_read not in (None, "ok")})
    if no_p2p:
        causes.append("P2P is not available between " + ", ".join(no_p2p[:6]) + ": NCCL falls back to copies "
                      "through host memory (P2P disabled, ACS or the IOMMU redirecting peer traffic)")  # fmt: skip
    paths = {p.link for p in links if p.link}
    if "SYS" in paths:
        causes.append("some pairs are SYS: traffic crosses the CPU sockets' interconnect (QPI/UPI), far slower "
                      "than a PCIe switch")  # fmt: skip
    if paths & {"PHB", "NODE"}:
        causes.append("some pairs go through the CPU's PCIe host bridge (PHB/NODE) rather than a PCIe switch "
                      "(PIX/PXB)")  # fmt: skip
    if not causes:
        causes.append("the topology shows no cause: check the links' current PCIe generation/width under load "
                      "(`nvidia-smi -q -d PCIE`) and other processes using the GPUs")  # fmt: skip
    return causes


def _p2p_finding(links: tuple[PeerLink, ...]) -> BenchFinding | None:
    problems = sorted({why for p in links if p.link and (why := topology.p2p_expectation(p.link, p.p2p_read))})
    if not problems:
        return None
    return BenchFinding("bench-p2p-unavailable", "warning", "GPU peer-to-peer does not match the topology",
                        tuple(problems[:6]), (f"see {ACS_URL}", "`nvidia-smi topo -p2p rw` shows the P2P matrix",
                                              "`nvidia-smi nvlink --status` shows each NVLink's state"))  # fmt: skip
