"""How the environment gpudoctor writes gets gpudoctor itself: the exact pip argument for this same copy."""

from __future__ import annotations

from .. import __version__

# gpudoctor must be installed in the environment it writes, so that `gpudoctor verify` there tests that environment's
# interpreter (verify runs its tests with sys.executable). It needs Python >= 3.10. It is a separate step, never a line
# of the files: a requirement the index cannot serve (gpudoctor is not published there, and PyTorch's index never
# carries it) would make pip refuse the whole file.
GPUDOCTOR_MIN_PYTHON = (3, 10)


def gpudoctor_requirement(python: str) -> str | None:
    """The pip argument that installs this same gpudoctor, for an environment it can run in (None below Python 3.10):
    the URL it was installed from (PEP 610 direct_url.json: a checkout, a VCS URL, a wheel file), else
    "gpudoctor==<version>" from an index."""
    parts = tuple(int(p) for p in python.split(".")[:2])
    if parts < GPUDOCTOR_MIN_PYTHON:
        return None
    return _installed_from() or f"gpudoctor=={__version__}"


def _installed_from() -> str | None:
    import json
    from importlib import metadata

    url = None
    try:
        # Every installed copy's metadata (a stray egg-info in the working directory can shadow the installed one).
        for dist in metadata.distributions(name="gpudoctor"):
            raw = dist.read_text("direct_url.json")
            if raw:
                url = json.loads(raw)["url"]
                break
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(url, str) or not url:
        return None
    if url.startswith("file://"):
        return url[len("file://"):]  # a local checkout or wheel: pip takes the path
    return f"gpudoctor @ {url}"
