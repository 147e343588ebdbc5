"""Every key the tables write reaches the model (issue 11): a loader that misspells a key reads it as absent, and a
rule would then silently judge without it. For each array of rows in matrices/*.toml, each key that some row sets
must be set (non-empty) on some loaded row of the same field name; each scalar of a table's top level likewise.

The tables are parsed here, in a fixture, not taken from load_matrix(): that one is cached on disk and in the process,
so a test of the loader through it would test a copy loaded before (and mutation testing would never reach the loader)."""

from __future__ import annotations

import dataclasses
try:
    import tomllib  # novermin: tomli stands in below 3.11
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

import pytest

from gpudoctor.matrix.tables.loader import parse_and_validate
from gpudoctor.resources import matrices_dir


@pytest.fixture(scope="module")
def parsed():
    return parse_and_validate(matrices_dir())

# (file, array of rows, the loaded rows)
ROWS = [
    ("torch.toml", "release", lambda m: m.torch),
    ("tensorflow.toml", "release", lambda m: m.tensorflow),
    ("cuda.toml", "release", lambda m: m.cuda_releases),
    ("cuda.toml", "major", lambda m: m.cuda_majors),
    ("cuda.toml", "targets", lambda m: m.cuda_targets),
    ("cudnn.toml", "release", lambda m: m.cudnn),
    ("gpus.toml", "cc", lambda m: m.gpus),
    ("gpus.toml", "spec", lambda m: m.gpu_specs.specs),
    ("keras.toml", "tensorflow", lambda m: m.keras.tensorflow),
    ("keras.toml", "standalone", lambda m: m.keras.standalone),
    ("known_broken.toml", "broken", lambda m: m.known_broken),
    ("platforms.toml", "cuda_image", lambda m: m.platforms.cuda_images),
    ("platforms.toml", "tf_linux_conda", lambda m: m.platforms.tf_linux_conda),
    ("rocm.toml", "wheel", lambda m: m.rocm.wheels),
    ("amd_gpus.toml", "gpu", lambda m: m.rocm.gpus),
    ("jetpack.toml", "release", lambda m: m.platform_tables.jetpack),
    ("xid.toml", "xid", lambda m: m.xid.rows),
    ("jax.toml", "release", lambda m: m.jax.releases),
]


def _raw(file):
    with open(matrices_dir() / file, "rb") as f:
        return tomllib.load(f)


def _set(value):
    return value is not None and value != () and value != "" and value != {} and value != []


@pytest.mark.parametrize(("file", "array", "loaded"), ROWS, ids=[f"{f}:{a}" for f, a, _ in ROWS])
def test_each_key_of_a_row_reaches_the_model(parsed, file, array, loaded):
    raw_rows = _raw(file)[array]
    rows = loaded(parsed)
    assert len(rows) == len(raw_rows)
    fields = {f.name for f in dataclasses.fields(rows[0])}
    checked = 0
    for key in sorted({k for r in raw_rows for k in r} & fields):
        if not any(_set(r[key]) for r in raw_rows if key in r):
            continue
        checked += 1
        assert any(_set(getattr(row, key)) for row in rows), f"{file} [[{array}]] {key} is written but never read"
    assert checked > 0


@pytest.mark.parametrize(("file", "loaded"), [
    ("platforms.toml", lambda m: m.platforms),
    ("rocm.toml", lambda m: m.rocm),
])
def test_each_top_level_value_reaches_the_model(parsed, file, loaded):
    table = loaded(parsed)
    raw = _raw(file)
    names = {f.name for f in dataclasses.fields(table)}
    for key, value in raw.items():
        if key in names and _set(value) and not isinstance(value, list | dict):
            assert _set(getattr(table, key)), f"{file} {key} is written but never read"


def test_nested_platform_values_are_read(parsed):
    raw = _raw("platforms.toml")
    platforms = parsed.platforms
    assert dict(platforms.jetson_containers) == {"torch": str(raw["jetson"]["torch_container"]),
                                                 "tensorflow": str(raw["jetson"]["tensorflow_container"])}
    assert platforms.aarch64_gpu_prefixes == tuple(map(str, raw["aarch64"]["gpu_prefixes"]))
    assert len(platforms.tf_linux_system) == len(raw["tf_linux_system"]["series"]) > 0


def test_a_fresh_parse_equals_the_cached_matrix(parsed):
    # The disk cache must give back exactly what parsing gives (and a loader change must show in a fresh parse).
    from gpudoctor.matrix import load_matrix

    assert parsed == load_matrix()
