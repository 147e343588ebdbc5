"""matrices/wheels.toml against its evidence (tests/data/wheels/pypi.json, recorded from the package index by
tools/audit_wheels.py): the file is regenerated and compared, and every documented row the wheels contradict must
be explained by it. Offline: the fixture is the index."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.solver.solve import Target, solve

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("audit_wheels", ROOT / "tools" / "audit_wheels.py")
audit = importlib.util.module_from_spec(_spec)
sys.modules["audit_wheels"] = audit
_spec.loader.exec_module(audit)

FIXTURE = audit.load_fixture()
MATRIX = load_matrix()


def test_overlay_is_generated_from_its_evidence():
    assert (ROOT / "matrices" / "wheels.toml").read_text() == audit.render_overlay(FIXTURE), \
        "matrices/wheels.toml drifted from tests/data/wheels/pypi.json and the tables: run python tools/audit_wheels.py overlay"


def test_fixture_covers_the_matrix():
    """Every release the tables name has its wheels recorded (TF 1.x / torch 1.x too)."""
    for release in MATRIX.torch:
        for v in release.versions:
            assert v in FIXTURE["projects"]["torch"]["releases"], f"torch {v}"
    for release in MATRIX.tensorflow:
        for v in release.versions:
            assert v in FIXTURE["projects"][release.package]["releases"], f"{release.package} {v}"
    assert "1.0.0" in FIXTURE["projects"]["torch"]["releases"] and "1.0.0" in FIXTURE["projects"]["tensorflow-gpu"]["releases"]


def test_every_contradiction_is_explained_by_the_overlay():
    found = audit.contradictions(FIXTURE)
    unexplained = []
    for c in found:
        if not _explained(c):
            unexplained.append(f"{c['file']} {c['row']}: {c['field']}: table {c['table']} / wheels {c['wheels']}")
    assert not unexplained, "documented rows contradict the wheels without an overlay entry:\n" + "\n".join(unexplained)
    # The and-cuda pins are wheel-level facts no documented row can carry, so they stay contradictions; row-level
    # ones (matrix-audit.md #2, #5, #11) disappear as the tables are corrected to the wheels.
    fields = {(c["row"].split(" (")[0], c["field"]) for c in found}
    assert ("release 2.14.1", "and_cuda (installable)") in fields and ("release 2.15.1", "and_cuda") in fields


def _explained(c: dict) -> bool:
    package, version = c["package"], c["version"]
    if version is None:  # a row-level python: the loaded row must carry the wheels' union
        return list(MATRIX.torch_release(c["series"]).python) == eval(c["wheels"])  # noqa: S307 - our own repr
    wheel = MATRIX.wheel(package, version)
    if wheel is None:
        return False
    if c["field"] == "python":
        return list(wheel.python or ()) == eval(c["wheels"])  # noqa: S307
    if c["field"] == "and_cuda (installable)":
        return bool(wheel.and_cuda_no_wheel)
    if c["field"] == "and_cuda":
        return bool(wheel.and_cuda)
    if c["field"].endswith("cuda"):
        return wheel.cuda is not None
    if c["field"].endswith("cudnn"):
        return wheel.cudnn_pin is not None
    return False


def test_loader_exposes_documented_and_wheel():
    assert MATRIX.python_for("torch", "1.13.0") == ("3.7", "3.8", "3.9", "3.10", "3.11")
    assert "3.7" not in MATRIX.python_for("tensorflow", "2.11.1") and "3.7" in MATRIX.python_for("tensorflow", "2.11.0")
    assert MATRIX.python_for("tensorflow", "1.15.0") == ("2.7", "3.5", "3.6", "3.7")
    assert "3.11" in MATRIX.python_for("tensorflow", "2.14.1")
    assert "3.11" not in MATRIX.python_for("tensorflow", "2.14.1", and_cuda=True)
    assert MATRIX.wheel("tensorflow", "2.21.0").and_cuda_cuda == "12.9"  # the >=12.5,<13 range resolves 12.9


@pytest.mark.parametrize("python", ["3.11", "3.12"])
def test_env_never_proposes_tf214_and_cuda_where_it_cannot_install(python):
    target = Target(os="linux", python=python, driver_version="535.183.01", driver_cuda="12.2", compute_capabilities=("8.6",))
    choice = solve(MATRIX, target, "tensorflow", "2.14")
    assert choice.python != python and choice.python in ("3.9", "3.10")


def test_env_uses_torch113_cp311_wheels():
    target = Target(os="linux", python="3.11", driver_version="535.183.01", driver_cuda="12.2", compute_capabilities=("8.6",))
    assert solve(MATRIX, target, "torch", "1.13").python == "3.11"


def test_tools_pure_helpers():
    assert audit.linux_pythons(["cp311-cp311-manylinux1_x86_64.whl", "cp27-cp27mu-manylinux2010_x86_64.whl",
                                "cp312-cp312-win_amd64.whl", "py3-none-any.whl"]) == ["2.7", "3.11"]
    assert audit.parse_requirement('nvidia-cudnn-cu11 (==8.5.0.96) ; platform_system == "Linux"')[:2] == ("nvidia-cudnn-cu11", "==8.5.0.96")
    assert audit.marker_extra("extra == 'and-cuda'") == "and-cuda"
    assert audit._tf_build(["build_info = OrderedDict([('cuda_version', '12.5.1'), ('cudnn_version', '9')])"])[:2] == ("12.5.1", "9")
    assert audit._torch_cuda(["cuda: Optional[str] = '13.2'"]) == "13.2"


def test_audit_runs_offline(capsys):
    assert audit.main(["audit"]) == 0
    assert "contradiction" in capsys.readouterr().out
    assert audit.main(["overlay", "--check"]) == 0
