"""The terminal client's tests speak English whatever the machine's locale."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _english(monkeypatch: pytest.MonkeyPatch) -> None:
    """``CARDAVIA_LANG=en`` (a test of the language choice sets its own environment)."""
    monkeypatch.setenv("CARDAVIA_LANG", "en")
