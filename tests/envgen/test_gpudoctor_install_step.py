"""gpudoctor reaches a new environment as its own install step, taken from where this copy came from; it is never a
line of the generated files (the package index does not serve it, and one unresolvable line fails the whole file)."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

from gpudoctor import __version__
from gpudoctor.envgen import render
from tests.envgen import parsing


class FakeDistribution:
    def __init__(self, direct_url: dict | None) -> None:
        self._text = json.dumps(direct_url) if direct_url is not None else None

    def read_text(self, name: str) -> str | None:
        return self._text if name == "direct_url.json" else None


@pytest.mark.parametrize(("direct_url", "expected"), [
    ({"url": "file:///home/me/src/gpudoctor", "dir_info": {"editable": True}}, "/home/me/src/gpudoctor"),
    ({"url": "file:///tmp/dist/gpudoctor-0.1.0-py3-none-any.whl", "archive_info": {}}, "/tmp/dist/gpudoctor-0.1.0-py3-none-any.whl"),
    ({"url": "https://github.com/example/gpudoctor.git", "vcs_info": {"vcs": "git", "commit_id": "abc"}},
     "gpudoctor @ https://github.com/example/gpudoctor.git"),
    (None, f"gpudoctor=={__version__}"),  # installed from an index: no direct_url.json
])
def test_the_install_step_names_where_this_gpudoctor_came_from(monkeypatch, direct_url, expected):
    monkeypatch.setattr(metadata, "distributions", lambda name: [FakeDistribution(direct_url)])
    assert render.gpudoctor_requirement("3.12") == expected


def test_no_install_step_where_gpudoctor_cannot_run(monkeypatch):
    monkeypatch.setattr(metadata, "distributions", lambda name: [FakeDistribution(None)])
    assert render.gpudoctor_requirement("3.9") is None


def test_generated_files_never_depend_on_gpudoctor_and_say_how_to_add_it(tmp_path, monkeypatch):
    monkeypatch.setattr(metadata, "distributions", lambda name: [FakeDistribution({"url": "file:///src/my gpudoctor"})])
    from click.testing import CliRunner

    from gpudoctor.cli import main

    result = CliRunner().invoke(main, ["env", "--framework", "torch", "--gpu", "RTX 4090", "--driver", "550.54.15",
                                       "-o", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    _, requirements = parsing.requirements_file((tmp_path / "requirements.txt").read_text())
    assert "gpudoctor" not in {r.name for r in requirements}
    assert "gpudoctor" not in (tmp_path / "pyproject-uv.toml").read_text().split("dependencies", 1)[1].split("]", 1)[0]
    assert "#   pip install '/src/my gpudoctor'     (gpudoctor itself, for the next line)" in (tmp_path / "requirements.txt").read_text()
    assert "pip install '/src/my gpudoctor'" in result.output
