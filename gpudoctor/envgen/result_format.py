"""EnvResult / EnvNoFit -> text for people and JSON for machines. Pure: returns strings, prints nothing. Every
untrusted string (GPU names from --gpu or a snapshot) passes through ``one_line`` before it reaches a terminal."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from .generate import EnvNoFit, EnvResult
from .labels import accelerated_line
from .render import FILENAMES, build_label, one_line

JSON_SCHEMA = "gpudoctor.env/1"
SKIPPED_SHOWN = 4  # "skipped:" reasons shown without -v


def to_text(result: EnvResult, verbose: bool = False) -> str:
    plan = result.plan
    choice = plan.choice
    lines = [f"Target ({one_line(result.source)}): {one_line(result.summary)}"]
    lines += [f"Warning: {one_line(w)}" for w in result.warnings]
    lines.append(f"Chosen: {build_label(choice)}, Python {choice.python}")
    if choice.index_url:
        lines.append(f"  wheel index: {choice.index_url}")
    if choice.conda_packages:
        lines.append(f"  from conda-forge: {', '.join(choice.conda_packages)}")
    for key, value in choice.env:
        lines.append(f"  needs in the environment: {key}={value}")
    accelerated = accelerated_line(choice)
    if accelerated:
        lines.append(accelerated)
    lines += [f"  - {one_line(r)}" for r in choice.reasons]
    lines += _skipped_lines(choice.skipped, verbose)
    if choice.notes:
        lines.append("Notes:")
        lines += [f"  - {one_line(n)}" for n in choice.notes]
    docker = plan.docker_choice
    if docker is not None and docker != choice and any(fmt == "docker" for fmt, _ in result.files):
        base = f", FROM {plan.docker_image}" if plan.docker_image else ""
        lines.append(f"Dockerfile (a Linux container): {build_label(docker)}, Python {docker.python}{base}")
        lines += [f"  - {one_line(r)}" for r in docker.reasons]
    for fmt, why in result.skipped:
        lines.append(f"Not written: {FILENAMES[fmt]} ({one_line(why)})")
    lines.append("Wrote:")
    lines += [f"  {path}" for _, path in result.files]
    lines.append("Next:")
    lines += [f"  {step}" for step in result.next_steps]
    return "\n".join(lines) + "\n"


def to_json(result: EnvResult) -> str:
    plan = result.plan
    payload = {
        "schema": JSON_SCHEMA,
        "ok": True,
        "source": result.source,
        "target": {**_plain(result.target), "summary": result.summary},
        "choice": _plain(plan.choice),
        "docker_choice": _plain(plan.docker_choice) if plan.docker_choice not in (None, plan.choice) else None,
        "docker_image": plan.docker_image,
        "name": result.name,
        "docker_name": result.docker_name,
        "files": [{"format": fmt, "path": path} for fmt, path in result.files],
        "skipped": [{"format": fmt, "reason": why} for fmt, why in result.skipped],
        "warnings": list(result.warnings),
        "next": list(result.next_steps),
    }
    return json.dumps(payload, indent=2)


def no_fit_text(exc: EnvNoFit, verbose: bool = False) -> str:
    lines = [f"No {exc.framework} build fits {one_line(exc.summary)}:"]
    reasons = [one_line(r) for r in exc.reasons]
    shown = reasons if verbose or len(reasons) <= 8 else reasons[:8]
    lines += [f"  - {r}" for r in shown]
    if len(shown) < len(reasons):
        lines.append(f"  ({len(reasons) - len(shown)} more: -v lists them)")
    if exc.suggestion:
        lines.append(f"What to change: {one_line(exc.suggestion)}")
    return "\n".join(lines) + "\n"


def no_fit_json(exc: EnvNoFit) -> str:
    payload = {
        "schema": JSON_SCHEMA,
        "ok": False,
        "framework": exc.framework,
        "target": {**_plain(exc.target), "summary": exc.summary},
        "reasons": list(exc.reasons),
        "suggestion": exc.suggestion,
        "files": [],
    }
    return json.dumps(payload, indent=2)


def error_json(message: str) -> str:
    return json.dumps({"schema": JSON_SCHEMA, "ok": False, "error": message, "files": []}, indent=2)


def _skipped_lines(skipped: tuple[str, ...], verbose: bool) -> list[str]:
    shown = skipped if verbose else skipped[:SKIPPED_SHOWN]
    lines = [f"  - skipped: {one_line(why)}" for why in shown]
    if len(shown) < len(skipped):
        lines.append(f"  - ({len(skipped) - len(shown)} more skipped: -v lists them all)")
    return lines


def _plain(value: Any) -> Any:
    if value is None:
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value
