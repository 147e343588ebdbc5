"""Hypothesis strategies for hostile snapshots: JSON-ish values shaped like the facts format (so they reach the
checks), with strings that try to break the terminal and the Markdown of the report, odd spellings of versions,
and values of the wrong type or of absurd size."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Union

from hypothesis import strategies as st

from gpudoctor.model import Facts, type_hints

# Each of these, raw in the output, would control a terminal or forge report structure.
HOSTILE = [
    "\x1b[31m", "\x1b]8;;http://evil\x07", "\r", "\n", "\nSummary: no problems found.", "\n[✓] GPU and driver",
    "\x00", "\x7f", "\x9b31m", "\u2028", "\u2029", "\u202e", "\u0085", "\ud800", "\x08\x08",
    "```", "~~~", "\n```\n", "# Forged heading", "\n## Forged", "[link](http://evil.example)", "![img](http://e/x.png)",
    "<img src=x onerror=alert(1)>", "<details>", "</details>", "@octocat", "@org/team", "| a | b |", "**bold**",
    "_em_", "`code`", "http://evil.example", "www.evil.example", "&lt;", "$x^2$", "1. ", "- ", "> quote", "\\",
]
ODD_VERSIONS = ["sm_86", "compute_90a", "cu121", "cu90", "12", "12.8", "8.6", "", " ", "weird", "1e5", "-1", "99999.99999",
                "9" * 60, "9" * 5000, "sm_" + "9" * 4400, "1." + "9" * 4400, "12.8.r12.8", "nan", "0.0", "v12.1", "sm_", "..", "1..2", "+cu121", "2.7.1+cu126"]
ENV_NAMES = ["CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "CUDA_HOME", "PATH", "CUDA_FORCE_PTX_JIT", "TF_CPP_MIN_LOG_LEVEL",
             "NVIDIA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"]
PACKAGES = ["torch", "tensorflow", "tensorflow-cpu", "tensorflow-intel", "keras", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11",
            "nvidia-cuda-runtime-cu12", "jax", "tf-nightly"]

hostile_text = st.lists(st.one_of(st.sampled_from(HOSTILE), st.sampled_from(ODD_VERSIONS), st.text(max_size=12)),
                        min_size=1, max_size=5).map("".join)
odd_int = st.one_of(st.integers(-3, 10), st.integers(-(2**63) + 1, 2**63 - 1), st.sampled_from([0, 2**31, 2**53 + 1]))
wrong = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False), st.integers(), st.text(max_size=5),
                  st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


def _string(name: str) -> st.SearchStrategy[str]:
    if name in ("compute_capability", "cuda_version", "cuda", "version", "cudnn", "hip"):
        return st.one_of(st.sampled_from(ODD_VERSIONS), hostile_text)
    if name == "os":
        return st.one_of(st.sampled_from(["linux", "windows", "darwin"]), hostile_text)
    if name == "kernel_module":
        return st.one_of(st.sampled_from(["nvidia", "nouveau"]), hostile_text)
    if name == "build":
        return st.one_of(st.sampled_from(["cuda", "rocm", "cpu", "xpu"]), hostile_text)
    return hostile_text


def value_for(tp: Any, name: str = "", depth: int = 0) -> st.SearchStrategy[Any]:
    """A value that usually has the type the format wants (so the checks see it), sometimes not."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
        return st.one_of(st.none(), value_for(inner, name, depth))
    if dataclasses.is_dataclass(tp):
        hints = type_hints(tp)
        fields = {f.name: value_for(hints[f.name], f.name, depth + 1) for f in dataclasses.fields(tp) if f.name != "schema"}
        return st.fixed_dictionaries({}, optional=fields)
    if origin is tuple:
        (inner, _) = typing.get_args(tp)
        if inner is str and name in ("arch_list", "compute_capabilities"):
            return st.lists(st.one_of(st.sampled_from(ODD_VERSIONS + ["sm_50", "sm_86", "compute_90", "sm_120"]), hostile_text), max_size=4)
        return st.lists(value_for(inner, name, depth + 1), max_size=3)
    if origin is dict:
        keys = st.sampled_from(ENV_NAMES) if name == "env" else st.sampled_from(PACKAGES) if name == "python_packages" else hostile_text
        _k, value_tp = typing.get_args(tp)
        return st.dictionaries(st.one_of(keys, hostile_text), value_for(value_tp, name, depth + 1), max_size=4)
    if tp is bool:
        return st.booleans()
    if tp is int:
        return odd_int
    if tp is str:
        return _string(name)
    raise TypeError(tp)


snapshots = value_for(Facts)
# Mostly well-typed snapshots, and some with one top-level key of the wrong type.
any_snapshot = st.one_of(
    snapshots,
    st.builds(lambda base, key, bad: {**base, key: bad}, snapshots,
              st.sampled_from([f.name for f in dataclasses.fields(Facts)]), wrong),
)


def _leaves(data: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _leaves(v, path + (k,))] + [path]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _leaves(v, path + (i,))] + [path]
    return [path]


def _replace(data: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {**data, head: _replace(data[head], rest, value)}
    return [(_replace(v, rest, value) if i == head else v) for i, v in enumerate(data)]


def _leaf_value(original: Any) -> st.SearchStrategy[Any]:
    if isinstance(original, bool):
        return st.booleans()
    if isinstance(original, int):
        return odd_int
    if isinstance(original, str):
        return st.one_of(st.sampled_from(ODD_VERSIONS), hostile_text)
    if isinstance(original, list):
        return st.lists(st.one_of(st.sampled_from(ODD_VERSIONS), hostile_text), max_size=3)
    return st.one_of(st.none(), wrong)


def mutated(snapshot: dict) -> st.SearchStrategy[dict]:
    """A real snapshot with 1-4 of its values (strings, numbers, lists) replaced by odd or hostile ones."""
    paths = [p for p in _leaves(snapshot) if p and p[0] != "schema"]

    @st.composite
    def build(draw):
        data = snapshot
        for path in draw(st.lists(st.sampled_from(paths), min_size=1, max_size=4, unique=True)):
            try:
                original = _get(data, path)
            except (KeyError, IndexError, TypeError):
                continue
            data = _replace(data, path, draw(_leaf_value(original)))
        return data

    return build()


def _get(data: Any, path: tuple) -> Any:
    for key in path:
        data = data[key]
    return data


def overlay(base: Any, extra: Any) -> Any:
    """``extra`` laid over ``base``: objects merged key by key, lists of objects item by item, anything else replaced."""
    if isinstance(base, dict) and isinstance(extra, dict):
        return {**base, **{k: overlay(base[k], v) if k in base else v for k, v in extra.items()}}
    if isinstance(base, list) and isinstance(extra, list) and all(isinstance(v, dict) for v in base + extra):
        return [overlay(b, e) for b, e in zip(base, extra)] + base[len(extra):] + extra[len(base):]
    return extra


def odd_machine(fixtures: dict[str, dict]) -> st.SearchStrategy[dict]:
    """A real machine's snapshot with a few values changed or keys added (odd, hostile, huge), so every check is
    reached with something it has not seen."""
    names = sorted(fixtures)
    return st.one_of(
        mutated(fixtures["kitchen-sink"]),
        st.sampled_from(names).flatmap(lambda name: mutated(fixtures[name])),
        st.builds(lambda name, extra: overlay(fixtures[name], extra), st.sampled_from(names), snapshots),
    )
