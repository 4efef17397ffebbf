"""bench.tournament's watch over the bots' tables: a table whose version has not moved
for ``STALL_S`` seconds is reported as stalled, once; one that moves is not."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bench import tournament
from bench.tournament import Progress, Watched


def test_a_table_without_news_is_stalled_and_one_that_moves_is_not(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    now = [100.0]
    monkeypatch.setattr(tournament.time, "monotonic", lambda: now[0])
    tables: dict[str, Any] = {"still": SimpleNamespace(version=4), "moving": None}
    client: Any = SimpleNamespace(tables=tables)
    progress = Progress()
    progress.playing = {
        1: Watched(client, "still", -1, now[0]),
        2: Watched(client, "moving", -1, now[0]),
    }
    progress.check()  # the first look: "still" is at version 4 now
    for step in range(1, 4):
        now[0] += tournament.STALL_S / 2
        tables["moving"] = SimpleNamespace(version=step)
        progress.check()
    assert progress.stalled == {"still"}
    progress.check()
    assert capsys.readouterr().err.count("stalled: still at version 4") == 1
