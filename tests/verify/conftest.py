from __future__ import annotations

import pytest


@pytest.fixture
def frameworks_look_installed(monkeypatch):
    """For tests whose child never imports a framework (a fake child script, or the worker's test-only faults that
    end it before any import): the parent's "is it installed?" answers yes, so they run whatever this machine has."""
    import gpudoctor.verify as verify_pkg

    monkeypatch.setattr(verify_pkg, "_find_spec", lambda name: object())
