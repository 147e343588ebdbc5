"""What `gpudoctor env` says (envgen/result_format.py): the Dockerfile's own choice shown only when it differs and was
written, the reasons cut at eight without -v, and the JSON of a machine nothing fits (issue 11)."""

from __future__ import annotations

import json

import pytest

from gpudoctor.envgen.generate import EnvFailure, EnvNoFit, EnvRequest, generate
from gpudoctor.envgen.result_format import no_fit_json, no_fit_text, to_json, to_text
from gpudoctor.matrix import load_matrix
from gpudoctor.matrix.solver.solve import Target

MATRIX = load_matrix()
DOCKER_LINE = "Dockerfile (a Linux container): "


def _generate(tmp_path, os, formats=("all",)):
    request = EnvRequest(framework="torch", formats=formats, output_dir=tmp_path, gpus=("RTX 4090",), driver="560.94", os=os)
    return generate(request, MATRIX)


def test_a_linux_machine_shows_one_choice(tmp_path):
    text = to_text(_generate(tmp_path, "linux"))
    assert DOCKER_LINE not in text
    assert text.count("Chosen: ") == 1


def test_native_windows_shows_the_containers_linux_choice(tmp_path):
    result = _generate(tmp_path, "windows")
    assert result.plan.docker_choice not in (None, result.plan.choice)
    assert DOCKER_LINE in to_text(result)
    without_docker = _generate(tmp_path / "pip", "windows", formats=("pip",))
    assert DOCKER_LINE not in to_text(without_docker)


KEPLER = Target("linux", None, "340.108", None, ("3.0",))


def _no_fit(reasons, suggestion="use a newer driver"):
    return EnvNoFit("torch", "GPU with CC 3.0, NVIDIA driver 340.108, Linux x86_64", KEPLER, reasons, suggestion)


def test_no_fit_shows_eight_reasons_then_counts_the_rest():
    nine = tuple(f"reason {i}" for i in range(1, 10))
    text = no_fit_text(_no_fit(nine))
    assert text.splitlines() == [
        "No torch build fits GPU with CC 3.0, NVIDIA driver 340.108, Linux x86_64:",
        *(f"  - reason {i}" for i in range(1, 9)),
        "  (1 more: -v lists them)",
        "What to change: use a newer driver",
    ]
    assert "  - reason 9" in no_fit_text(_no_fit(nine), verbose=True)
    eight = nine[:8]
    assert "more: -v" not in no_fit_text(_no_fit(eight))
    assert "What to change" not in no_fit_text(_no_fit(eight, suggestion=None))


def test_no_fit_json():
    data = json.loads(no_fit_json(_no_fit(("too old",))))
    target = data.pop("target")
    assert target["summary"] == "GPU with CC 3.0, NVIDIA driver 340.108, Linux x86_64"
    assert (target["driver_version"], target["compute_capabilities"]) == ("340.108", ["3.0"])
    assert data == {"schema": "gpudoctor.env/1", "ok": False, "framework": "torch", "reasons": ["too old"],
                    "suggestion": "use a newer driver", "files": []}


def test_no_fit_message():
    assert str(_no_fit(())) == "no torch build fits GPU with CC 3.0, NVIDIA driver 340.108, Linux x86_64"
    assert str(EnvNoFit("tensorflow", "x", None, (), None, "no build of any release fits")) == "no build of any release fits"


def _broken_probe():
    raise RuntimeError("nvml handle lost")


def test_a_probe_that_breaks_is_named_with_its_error(tmp_path):
    with pytest.raises(EnvFailure) as caught:
        generate(EnvRequest(framework="torch", output_dir=tmp_path), MATRIX, probe=_broken_probe)
    assert str(caught.value) == ("could not probe this machine (RuntimeError: nvml handle lost); "
                                 "describe it with --gpu/--driver/--os or --for SNAPSHOT")


def test_the_json_result_names_every_part(tmp_path):
    result = _generate(tmp_path, "windows")
    data = json.loads(to_json(result))
    assert list(data) == ["schema", "ok", "source", "target", "choice", "docker_choice", "docker_image", "name", "docker_name", "files",
                          "skipped", "warnings", "next"]
    assert (data["schema"], data["ok"], data["source"]) == ("gpudoctor.env/1", True, "description")
    assert data["docker_choice"]["version"] == result.plan.docker_choice.version  # the container's own Linux choice
    assert data["next"] == list(result.next_steps) and data["warnings"] == list(result.warnings)
    assert [f["format"] for f in data["files"]] == ["conda", "pip", "docker", "uv"]
    linux = json.loads(to_json(_generate(tmp_path / "linux", "linux")))
    assert linux["docker_choice"] is None  # the same choice as the machine's: not repeated
