"""`gpudoctor matrix jax`: a series or a release answered from matrices/jax.toml, text and --json; unknown is exit 2."""

from __future__ import annotations

import json

from click.testing import CliRunner

from gpudoctor.cli import main


def run(*args: str):
    return CliRunner().invoke(main, ["matrix", "jax", *args])


def test_a_series_lists_its_releases_with_their_plugins():
    result = run("0.7", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [r["version"] for r in data["releases"]] == ["0.7.0", "0.7.1", "0.7.2"]
    by_version = {r["version"]: r for r in data["releases"]}
    assert [p["plugin"] for p in by_version["0.7.0"]["plugins"]] == ["cuda12"]
    cuda13 = by_version["0.7.2"]["plugins"][1]
    assert (cuda13["extra"], cuda13["driver_min"], cuda13["cc_min"], cuda13["cudnn_min"]) == ("jax[cuda13]", "580", "7.5", "9.12")
    assert by_version["0.7.0"]["python"] == ["3.11", "3.12", "3.13"]
    assert by_version["0.7.2"]["install"] == 'pip install "jax[cuda13]==0.7.2"'


def test_text_names_drivers_and_the_cpu_route():
    result = run("0.4.30")
    assert result.exit_code == 0
    assert "jax[cuda12]   Linux driver >= 525, compute capability >= 5.2, CUDA >= 12.1, cuDNN >= 9.1" in result.stdout
    assert "Python 3.9–3.12" in result.stdout
    assert "jax[cuda13]" not in result.stdout


def test_an_unknown_release_lists_the_known_series():
    result = run("0.3")
    assert result.exit_code == 2
    assert "jax 0.3 is not in the matrix (it knows 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.10)" in result.stderr
