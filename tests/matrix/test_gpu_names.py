"""GPU names -> compute capability (issue 10): the rows added on 2026-11-24 checked against the values recorded from
their sources (tests/data/matrix/gpu_cc_sources.txt), nvidia-smi-style names resolving, and near names that must not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.tables.model import name_tokens
from gpudoctor.resources import matrices_dir

try:
    import tomllib  # novermin: tomli stands in below 3.11
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

M = load_matrix()
DATA = Path(__file__).resolve().parent.parent / "data" / "matrix"


def _recorded() -> list[tuple[str, str, str]]:
    rows = []
    for line in (DATA / "gpu_cc_sources.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        source, name, printed = (cell.strip() for cell in line.split("|"))
        m = re.fullmatch(r"(?i)sm_?(\d+)(\d)", printed)
        cc = f"{m.group(1)}.{m.group(2)}" if m else (printed if "." in printed else printed + ".0")
        rows.append((source, name, cc))
    return rows


@pytest.mark.parametrize(("source", "name", "cc"), _recorded())
def test_recorded_names_resolve_to_their_recorded_compute_capability(source, name, cc):
    if cc == "2.1":  # Fermi: not in the table; a recorded near name (GTX 675M next to 675MX) must stay unknown
        assert M.gpu_compute_capability(name) is None
    else:
        assert M.gpu_compute_capability(name) == cc


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        # nvidia-smi / torch.cuda.get_device_name() spellings
        ("NVIDIA A10G", "8.6"), ("NVIDIA A10", "8.6"), ("NVIDIA A100-SXM4-80GB", "8.0"), ("NVIDIA A100 80GB PCIe", "8.0"),
        ("NVIDIA H800 PCIe", "9.0"), ("NVIDIA H800", "9.0"), ("NVIDIA H20", "9.0"), ("NVIDIA H200", "9.0"), ("NVIDIA H100 PCIe", "9.0"),
        ("NVIDIA L20", "8.9"), ("NVIDIA L4", "8.9"), ("NVIDIA L40S", "8.9"), ("NVIDIA A800-SXM4-80GB", "8.0"), ("NVIDIA A800 80GB PCIe", "8.0"),
        ("Quadro T2000 with Max-Q Design", "7.5"), ("Quadro T1000 with Max-Q Design", "7.5"), ("Quadro RTX 3000 with Max-Q Design", "7.5"),
        ("Quadro P2000 with Max-Q Design", "6.1"), ("Quadro P3200", "6.1"), ("Quadro P5200 with Max-Q Design", "6.1"),
        ("NVIDIA T1200 Laptop GPU", "7.5"), ("NVIDIA T500", "7.5"),
        ("NVIDIA RTX A5000 Laptop GPU", "8.6"), ("NVIDIA RTX A2000 Laptop GPU", "8.6"), ("NVIDIA RTX A3000 Laptop GPU", "8.6"),
        ("NVIDIA RTX A4000 Laptop GPU", "8.6"), ("NVIDIA RTX 2000 Ada Generation Laptop GPU", "8.9"),
        ("NVIDIA RTX 5000 Ada Generation Laptop GPU", "8.9"), ("Quadro RTX 5000", "7.5"),
        ("NVIDIA GeForce GTX 680", "3.0"), ("GeForce GTX 680", "3.0"), ("NVIDIA GeForce GTX 680M", "3.0"),
        ("NVIDIA GeForce GTX 660 Ti", "3.0"), ("NVIDIA GeForce GTX 650 Ti BOOST", "3.0"), ("NVIDIA GeForce GTX 780M", "3.0"),
        ("NVIDIA GeForce GTX 880M", "3.0"), ("GeForce GT 640M LE", "3.0"), ("GeForce GTX 770", "3.0"),
        ("NVIDIA GeForce GTX 780", "3.5"), ("NVIDIA GeForce GTX 780 Ti", "3.5"),
        ("Tesla K10", "3.0"), ("GRID K520", "3.0"), ("Quadro K5000", "3.0"), ("Quadro K2000D", "3.0"), ("Quadro K5200", "3.5"),
        ("Quadro K2200", "5.0"), ("Quadro K2100M", "3.0"), ("Quadro K620M", "5.0"), ("Quadro K610M", "3.5"),
        ("NVIDIA GeForce GTX 980M", "5.2"), ("NVIDIA GeForce 940M", "5.0"), ("NVIDIA GeForce 920M", "3.5"),
        # the K10's boards as nvidia-smi names them (a dotted suffix: HTCondor DeviceName, DCGM's K10 naming kludge)
        ("Tesla K10.G1.8GB", "3.0"), ("Tesla K10.G2.8GB", "3.0"), ("NVIDIA GeForce MX130", "5.0"),
    ],
)
def test_nvidia_smi_names(name, cc):
    assert M.gpu_compute_capability(name) == cc


@pytest.mark.parametrize(
    "name",
    # near names that must not borrow a neighbour's row: unknown is the right answer
    ["NVIDIA L2", "NVIDIA H2", "NVIDIA A1", "NVIDIA GeForce GTX 675M", "NVIDIA GeForce GTX 670M", "NVIDIA GeForce GTX 860M",
     "NVIDIA GeForce GT 730", "NVIDIA GeForce GT 740M", "NVIDIA GeForce GTX 68", "GRID K5", "NVIDIA A10M", "NVIDIA L40X",
     "NVIDIA GeForce MX150", "Tesla K1.G1"],  # MX150: no NVIDIA source found; "K1.G1": a dot does not make K1 a K10
)
def test_near_names_do_not_match(name):
    assert M.gpu_compute_capability(name) is None


def _matched_name(name: str) -> str | None:
    """The table name that wins for ``name`` (the longest whole-word prefix), as gpu_by_name chooses it."""
    tokens = name_tokens(name)
    hits = [n for m in M.gpus for n in m.names if tokens[: len(name_tokens(n))] == name_tokens(n)]
    return max(hits, key=lambda n: len(name_tokens(n))) if hits else None


@pytest.mark.parametrize(
    ("name", "row"),
    [("NVIDIA A10G", "A10G"), ("NVIDIA A10", "A10"), ("NVIDIA A100-SXM4-40GB", "A100"), ("NVIDIA H20", "H20"),
     ("NVIDIA H200", "H200"), ("NVIDIA L20", "L20"), ("NVIDIA L4", "L4"), ("NVIDIA L40", "L40"),
     ("NVIDIA GeForce GTX 680M", "GTX 680M"), ("NVIDIA GeForce GTX 680", "GTX 680"), ("Quadro K2000D", "K2000D"),
     ("Quadro K2000", "K2000"), ("Quadro M5000M", "M5000M"), ("NVIDIA RTX 5000 Ada Generation", "RTX 5000 Ada"),
     ("Quadro RTX 5000", "RTX 5000"), ("Tesla K10", "Tesla K10")],
)
def test_the_name_itself_wins_not_a_neighbour(name, row):
    assert _matched_name(name) == row


def test_no_name_is_listed_under_two_compute_capabilities():
    seen: dict[tuple[str, ...], str] = {}
    for model in M.gpus:
        for n in model.names:
            key = name_tokens(n)
            assert seen.setdefault(key, model.cc) == model.cc, (n, seen[key], model.cc)


def test_every_name_added_on_2026_11_24_names_its_sources():
    """Names added to existing rows carry an '# added 2026-11-24' comment with their source URLs, which the file's
    `sources` list also holds; the new 3.0 table has its own `sources` and `reviewed`."""
    text = (matrices_dir() / "gpus.toml").read_text()
    doc = tomllib.loads(text)
    comments = [line for line in text.splitlines() if line.startswith("# added 2026-11-24")]
    assert len(comments) >= 9
    for line in comments:
        urls = re.findall(r"https://\S+?(?=,|$)", line)
        assert urls and all(u in doc["sources"] for u in urls), line
    kepler = next(t for t in doc["cc"] if t["cc"] == "3.0")
    assert kepler["reviewed"] == "2026-11-24" and kepler["sources"]
    recorded = {name for _source, name, _cc in _recorded()}
    assert {"Tesla K10", "GeForce GTX 680", "NVIDIA H800", "NVIDIA A10G", "NVIDIA L20", "H20", "A800"} <= recorded
