"""shell-variable-not-exported: a variable typed at a shell prompt without `export` ("$ HSA_OVERRIDE_GFX_VERSION=10.3.0")
stays in that shell: the programs it starts afterwards never see it. Pure: reads Facts only."""

from __future__ import annotations

from typing import Iterator

from ..model import Facts, Finding, Fix, Section, Severity
from ._facts import symptoms

_WHY = {
    "HSA_OVERRIDE_GFX_VERSION": "the ROCm runtime reads it at start-up to report another gfx target",
    "CUDA_VISIBLE_DEVICES": "CUDA reads it when a program initialises CUDA",
    "LD_LIBRARY_PATH": "the loader reads it when a program starts",
}


def shell_variable_not_exported(facts: Facts, matrix: object) -> Iterator[Finding]:
    seen: set[str] = set()
    for symptom in symptoms(facts, "variable-not-exported"):
        name = symptom.subject or ""
        if name in seen or (facts.host and facts.host.env and name in facts.host.env):
            continue  # exported elsewhere in the same paste: it does reach the program
        seen.add(name)
        yield Finding(
            "shell-variable-not-exported", Severity.WARNING, Section.ENVIRONMENT,
            f"{name} is set at the prompt but not exported: the programs started afterwards do not see it",
            (f"log: {symptom.text}", *((_WHY[name],) if name in _WHY else ()),
             "a shell variable set without `export` stays in that shell; `NAME=value command` or `export NAME=value` passes it on"),
            Fix("Export it (or put it before the command)", (f"export {symptom.text.lstrip('$ ').strip()}",),
                "https://www.gnu.org/software/bash/manual/html_node/Environment.html"),
        )


CHECKS = (shell_variable_not_exported,)
